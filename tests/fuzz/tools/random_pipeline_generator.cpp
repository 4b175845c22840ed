// The random pipeline generator: a Halide Generator ("random_pipeline")
// whose inputs, outputs and algorithm come from a pipeline description —
// drawn from `seed` and `budget`, or read from the file `description` — with
// estimates on every input and output and no schedule, so that any
// autoscheduler plugin can schedule it from the command line:
//
//   strata_random_pipeline_generator -g random_pipeline -o out -e object,stmt
//       target=host-cuda seed=17 budget=12
//       -p libautoschedule_strata.so autoscheduler=Strata
//
// Inputs are named after their input stages (in0, in1, ...), outputs out0,
// out1, ... in the description's output order. `schedule=root` computes every
// stage at the root on the host instead: the campaign's control, which must
// match the reference whatever an autoscheduler does.
#include "strata/fuzz/DescriptionJson.h"
#include "strata/fuzz/HalideBuilder.h"
#include "strata/fuzz/RandomPipeline.h"

#include "Halide.h"

namespace {

using namespace strata::fuzz;

enum class Schedule { None, Root };

class RandomPipelineGenerator : public Halide::Generator<RandomPipelineGenerator> {
public:
    GeneratorParam<uint64_t> seed{"seed", 0};
    GeneratorParam<int> budget{"budget", 12};
    GeneratorParam<std::string> description{"description", ""};
    GeneratorParam<Schedule> schedule{"schedule", Schedule::None, {{"none", Schedule::None}, {"root", Schedule::Root}}};

    void configure() {
        try {
            pipeline_ = description.value().empty() ? draw_random_pipeline(seed, budget)
                                                    : read_description(description.value());
        } catch (const std::exception &e) {
            throw Halide::CompileError(std::string("random_pipeline: ") + e.what());
        }
        for (const Stage &s : pipeline_.stages) {
            if (const auto *input = std::get_if<InputOp>(&s.op)) {
                inputs_[s.name] =
                    add_input<Halide::Buffer<>>(s.name, halide_type(input->type), int(input->shape.size()));
            }
        }
        for (size_t k = 0; k < pipeline_.outputs.size(); ++k) {
            const Stage &s = pipeline_.stages[pipeline_.outputs[k]];
            std::vector<Halide::Type> types;
            for (ScalarType t : s.types) types.push_back(halide_type(t));
            outputs_.push_back(add_output<Halide::Buffer<>>("out" + std::to_string(k), types, int(s.shape.size())));
        }
    }

    void generate() {
        std::map<std::string, Halide::Func> funcs;
        for (auto &[name, input] : inputs_) {
            const auto &op = std::get<InputOp>(pipeline_.stages[stage_index(name)].op);
            input->set_estimates(box_region(op.shape));
            funcs[name] = *input;
        }
        // Qualified: Generator has a build_pipeline() of its own.
        const BuiltPipeline built = strata::fuzz::build_pipeline(pipeline_, funcs);
        for (size_t k = 0; k < outputs_.size(); ++k) {
            const int stage = pipeline_.outputs[k];
            *outputs_[k] = built.stages[stage];
            outputs_[k]->set_estimates(box_region(pipeline_.stages[stage].shape));
        }
        if (schedule == Schedule::Root) schedule_compute_root(built, pipeline_);
    }

private:
    int stage_index(const std::string &name) const {
        for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
            if (pipeline_.stages[i].name == name) return int(i);
        }
        throw Halide::CompileError("random_pipeline: no stage named " + name);
    }

    Description pipeline_;
    std::map<std::string, Halide::GeneratorInput<Halide::Buffer<>> *> inputs_;
    std::vector<Halide::GeneratorOutput<Halide::Buffer<>> *> outputs_;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RandomPipelineGenerator, random_pipeline)
