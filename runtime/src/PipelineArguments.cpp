#include "strata/runtime/PipelineArguments.h"

#include "strata/runtime/HalideErrorCapture.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace strata::runtime {

namespace {

Halide::Runtime::Buffer<void> unallocated_buffer(const ArgumentInfo &arg) {
    std::vector<int> zero_extents(arg.dimensions, 0);
    return Halide::Runtime::Buffer<void>(arg.type, nullptr, zero_extents);
}

bool fully_estimated(const ArgumentInfo &arg) {
    return std::all_of(arg.estimates.begin(), arg.estimates.end(), [](const auto &e) { return e.has_value(); });
}

// A bounds-query stand-in with the input's estimated shape and no memory.
// Halide answers a query about an input read through a boundary condition
// on its own bounds (repeat_edge, constant_exterior) with the stand-in's
// region clamped: a stand-in of zero extent would come back as a 1x1x1
// input, and the pipeline would then be timed reading one pixel.
Halide::Runtime::Buffer<void> estimated_stand_in(const ArgumentInfo &arg) {
    std::vector<int> extents;
    for (const auto &e : arg.estimates) extents.push_back(int(e->extent));
    Halide::Runtime::Buffer<void> stand_in(arg.type, nullptr, extents);
    std::vector<int> mins;
    for (const auto &e : arg.estimates) mins.push_back(int(e->min));
    stand_in.set_min(mins);
    return stand_in;
}

}  // namespace

PipelineArguments::PipelineArguments(PipelineSignature signature)
    : signature_(std::move(signature)) {
    for (const auto &arg : signature_.arguments()) {
        if (arg.is_buffer()) {
            buffers_.emplace(arg.name, unallocated_buffer(arg));
        } else {
            scalars_[arg.name] = arg.scalar_default ? *arg.scalar_default : halide_scalar_value_t{};
        }
    }
}

void PipelineArguments::set_scalar(const std::string &name, double value) {
    const ArgumentInfo &arg = signature_.argument(name);
    if (arg.is_buffer()) {
        throw std::invalid_argument("argument '" + name + "' of pipeline '" + signature_.name() +
                                    "' is a buffer, not a scalar");
    }
    if (arg.scalar_min && value < scalar_as_double(*arg.scalar_min, arg.type)) {
        throw std::out_of_range("scalar '" + name + "' = " + std::to_string(value) +
                                " is below the pipeline's minimum");
    }
    if (arg.scalar_max && value > scalar_as_double(*arg.scalar_max, arg.type)) {
        throw std::out_of_range("scalar '" + name + "' = " + std::to_string(value) +
                                " is above the pipeline's maximum");
    }
    scalars_[name] = scalar_from_double(value, arg.type);
}

double PipelineArguments::scalar(const std::string &name) const {
    const ArgumentInfo &arg = signature_.argument(name);
    return scalar_as_double(scalars_.at(name), arg.type);
}

void PipelineArguments::allocate(const std::string &name, ArgumentKind kind, const std::vector<int> &extents) {
    const ArgumentInfo &arg = signature_.argument(name);
    const char *what = kind == ArgumentKind::OutputBuffer ? "output" : "input buffer";
    if (arg.kind != kind) {
        throw std::invalid_argument("argument '" + name + "' of pipeline '" + signature_.name() + "' is not an " +
                                    what);
    }
    if (int(extents.size()) != arg.dimensions) {
        throw std::invalid_argument(std::string(what) + " '" + name + "' has " + std::to_string(arg.dimensions) +
                                    " dimensions, but " + std::to_string(extents.size()) + " extents were given");
    }
    buffers_.at(name) = Halide::Runtime::Buffer<void>(arg.type, extents);
}

void PipelineArguments::set_output_extents(const std::string &name, const std::vector<int> &extents) {
    allocate(name, ArgumentKind::OutputBuffer, extents);
}

void PipelineArguments::set_input_extents(const std::string &name, const std::vector<int> &extents) {
    allocate(name, ArgumentKind::InputBuffer, extents);
}

void PipelineArguments::set_outputs_from_estimates() {
    for (const auto &arg : signature_.arguments()) {
        if (!arg.is_output()) continue;
        std::vector<int> extents;
        for (int d = 0; d < arg.dimensions; ++d) {
            if (!arg.estimates[d]) {
                throw std::invalid_argument("output '" + arg.name + "' of pipeline '" + signature_.name() +
                                            "' has no estimate for dimension " + std::to_string(d));
            }
            extents.push_back(int(arg.estimates[d]->extent));
        }
        set_output_extents(arg.name, extents);
        Halide::Runtime::Buffer<void> &out = buffers_.at(arg.name);
        for (int d = 0; d < arg.dimensions; ++d) {
            out.raw_buffer()->dim[d].min = int(arg.estimates[d]->min);
        }
    }
}

void PipelineArguments::allocate_inputs_by_bounds_query(ArgvFunction pipeline, bool estimates_fallback) {
    std::set<std::string> queried;
    for (const auto &arg : signature_.arguments()) {
        if (arg.is_output() && buffers_.at(arg.name).data() == nullptr && arg.dimensions > 0) {
            throw std::logic_error("output '" + arg.name + "' must be sized before the bounds query");
        }
        if (arg.kind == ArgumentKind::InputBuffer && buffers_.at(arg.name).data() == nullptr) {
            buffers_.at(arg.name) =
                estimates_fallback && fully_estimated(arg) ? estimated_stand_in(arg) : unallocated_buffer(arg);
            queried.insert(arg.name);
        }
    }
    // Query with shape-only stand-ins for the outputs (no host memory), so
    // the real outputs are not touched, e.g. given a device allocation.
    std::map<std::string, Halide::Runtime::Buffer<void>> real_outputs;
    for (const auto &arg : signature_.arguments()) {
        if (!arg.is_output()) continue;
        Halide::Runtime::Buffer<void> &output = buffers_.at(arg.name);
        real_outputs[arg.name] = output;
        halide_buffer_t shape = *output.raw_buffer();
        shape.host = nullptr;
        shape.device = 0;
        shape.device_interface = nullptr;
        shape.flags = 0;
        output = Halide::Runtime::Buffer<void>(shape);
    }
    std::vector<void *> argv = make_argv();
    const int error = pipeline(argv.data());
    for (auto &[name, output] : real_outputs) buffers_.at(name) = output;
    if (error) {
        throw std::runtime_error("bounds query of pipeline '" + signature_.name() +
                                 "' failed with " + describe_halide_error(error));
    }
    for (const auto &arg : signature_.arguments()) {
        if (arg.kind != ArgumentKind::InputBuffer || !queried.count(arg.name)) continue;
        Halide::Runtime::Buffer<void> &query = buffers_.at(arg.name);
        std::vector<int> extents(arg.dimensions), mins(arg.dimensions);
        int unsized = -1;
        for (int d = 0; d < arg.dimensions; ++d) {
            mins[d] = query.dim(d).min();
            extents[d] = query.dim(d).extent();
            if (extents[d] <= 0 && unsized < 0) unsized = d;
        }
        if (unsized >= 0) {
            // Typical of an input read through a boundary condition on its own bounds.
            if (!estimates_fallback || !fully_estimated(arg)) {
                throw std::invalid_argument("the bounds query of pipeline '" + signature_.name() + "' gives input '" +
                                            arg.name + "' no size in dimension " + std::to_string(unsized) +
                                            "; size it explicitly");
            }
            for (int d = 0; d < arg.dimensions; ++d) {
                mins[d] = int(arg.estimates[d]->min);
                extents[d] = int(arg.estimates[d]->extent);
            }
        }
        Halide::Runtime::Buffer<void> allocated(arg.type, extents);
        allocated.set_min(mins);
        query = allocated;
    }
}

Halide::Runtime::Buffer<void> &PipelineArguments::buffer(const std::string &name) {
    auto it = buffers_.find(name);
    if (it == buffers_.end()) {
        throw std::out_of_range("pipeline '" + signature_.name() + "' has no buffer argument named '" +
                                name + "'");
    }
    return it->second;
}

const Halide::Runtime::Buffer<void> &PipelineArguments::buffer(const std::string &name) const {
    return const_cast<PipelineArguments *>(this)->buffer(name);
}

std::vector<void *> PipelineArguments::make_argv() {
    std::vector<void *> argv;
    for (const auto &arg : signature_.arguments()) {
        if (arg.is_buffer()) {
            argv.push_back(buffers_.at(arg.name).raw_buffer());
        } else {
            argv.push_back(&scalars_.at(arg.name));
        }
    }
    return argv;
}

int PipelineArguments::call(ArgvFunction pipeline) {
    for (const auto &arg : signature_.arguments()) {
        if (arg.kind == ArgumentKind::InputBuffer) buffers_.at(arg.name).set_host_dirty();
    }
    std::vector<void *> argv = make_argv();
    return pipeline(argv.data());
}

void PipelineArguments::copy_outputs_to_host() {
    for (const auto &arg : signature_.arguments()) {
        if (!arg.is_output()) continue;
        Halide::Runtime::Buffer<void> &out = buffers_.at(arg.name);
        if (int error = out.copy_to_host()) {
            throw std::runtime_error("copying output '" + arg.name + "' to the host failed with Halide error " +
                                     std::to_string(error));
        }
    }
}

}  // namespace strata::runtime
