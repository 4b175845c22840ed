#include "FakePipeline.h"

#include <algorithm>
#include <cstring>

namespace strata::testing {

namespace {

FakePipelineFaults g_faults;

const halide_scalar_value_t kScaleDefault = [] {
    halide_scalar_value_t v{};
    v.u.f32 = 1.0f;
    return v;
}();

const halide_filter_argument_t kArguments[] = {
    {"in", halide_argument_kind_input_buffer, 1, halide_type_t(halide_type_float, 32), nullptr, nullptr, nullptr,
     nullptr, nullptr},
    {"scale", halide_argument_kind_input_scalar, 0, halide_type_t(halide_type_float, 32), &kScaleDefault, nullptr,
     nullptr, nullptr, nullptr},
    {"out", halide_argument_kind_output_buffer, 1, halide_type_t(halide_type_float, 32), nullptr, nullptr, nullptr,
     nullptr, nullptr},
};

const halide_filter_metadata_t kMetadata = {halide_filter_metadata_t::VERSION, 3, kArguments, "host",
                                            "fake_pipeline"};

const int64_t kZero = 0, kSixteen = 16;
const int64_t *const kInputEstimate[] = {&kZero, &kSixteen};

const halide_filter_argument_t kClampedArguments[] = {
    {"in", halide_argument_kind_input_buffer, 1, halide_type_t(halide_type_float, 32), nullptr, nullptr, nullptr,
     nullptr, kInputEstimate},
    {"out", halide_argument_kind_output_buffer, 1, halide_type_t(halide_type_float, 32), nullptr, nullptr, nullptr,
     nullptr, nullptr},
};

const halide_filter_metadata_t kClampedMetadata = {halide_filter_metadata_t::VERSION, 2, kClampedArguments, "host",
                                                   "fake_clamped_pipeline"};

}  // namespace

int fake_clamped_pipeline_argv(void **args) {
    auto *in = static_cast<halide_buffer_t *>(args[0]);
    auto *out = static_cast<halide_buffer_t *>(args[1]);
    if (in->host == nullptr) return 0;  // a bounds query leaves the input as it is: any size will do
    Halide::Runtime::Buffer<float> input(*in), output(*out);
    for (int x = output.dim(0).min(); x <= output.dim(0).max(); ++x) {
        output(x) = input(std::clamp(x, input.dim(0).min(), input.dim(0).max()));
    }
    return 0;
}

const halide_filter_metadata_t *fake_clamped_pipeline_metadata() { return &kClampedMetadata; }

void set_fake_pipeline_faults(const FakePipelineFaults &faults) { g_faults = faults; }

int fake_pipeline_argv(void **args) {
    auto *in = static_cast<halide_buffer_t *>(args[0]);
    const float scale = *static_cast<float *>(args[1]);
    auto *out = static_cast<halide_buffer_t *>(args[2]);
    if (in->host == nullptr) {  // bounds query: report the region of `in` that `out` needs
        in->dim[0].min = out->dim[0].min;
        in->dim[0].extent = out->dim[0].extent + 1;
        in->dim[0].stride = 1;
        return 0;
    }
    if (g_faults.error_code) {
        // As a real pipeline does: the message through halide_error(), then the code.
        halide_error(nullptr, "the fake pipeline failed on purpose\n");
        return g_faults.error_code;
    }
    Halide::Runtime::Buffer<float> input(*in), output(*out);
    for (int x = output.dim(0).min(); x <= output.dim(0).max(); ++x) {
        if (x == g_faults.skip_element) continue;
        output(x) = scale * (input(x) + input(x + 1)) + g_faults.bias;
    }
    return 0;
}

const halide_filter_metadata_t *fake_pipeline_metadata() { return &kMetadata; }

}  // namespace strata::testing
