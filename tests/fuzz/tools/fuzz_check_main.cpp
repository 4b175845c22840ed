// strata-fuzz-check: the verification run of one compiled random pipeline,
// with the apps' harness (poisoned outputs, random inputs, unwritten
// elements, launch limits, a crash as a result) and the interpreter as the
// reference.
//
//   strata-fuzz-check --pipeline seed17.json --library p.so --function p
//                     [--device opencl|host] --variant strata [app check options...]
//
// The pipeline is an object compiled with no_runtime and linked into a shared
// library with -Wl,--wrap=halide_opencl_run; this program supplies the
// Halide runtime (it exports its symbols) and records every kernel launch.
// The remaining options are app_check_main's (AppCheck.h): --seed, --report,
// --generator-log, --require-gpu-stmt, --expect-failure.
#include "strata/fuzz/CheckSpec.h"
#include "strata/fuzz/DescriptionJson.h"
#include "strata/harness/AppCheck.h"

#include <HalideRuntimeOpenCL.h>

#include <dlfcn.h>

#include <filesystem>
#include <iostream>

namespace {

struct Options {
    std::string pipeline, library, function, device = "opencl";
    std::vector<char *> rest;  // for app_check_main, argv[0] first
};

Options parse(int argc, char **argv) {
    Options o;
    o.rest.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        std::string *mine = flag == "--pipeline"   ? &o.pipeline
                            : flag == "--library"  ? &o.library
                            : flag == "--function" ? &o.function
                            : flag == "--device"   ? &o.device
                                                   : nullptr;
        if (!mine) {
            o.rest.push_back(argv[i]);
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
        *mine = argv[++i];
    }
    if (o.pipeline.empty() || o.library.empty() || o.function.empty()) {
        throw std::invalid_argument("--pipeline, --library and --function are required");
    }
    if (o.device != "opencl" && o.device != "host") throw std::invalid_argument("--device is opencl or host");
    return o;
}

template <typename F>
F symbol(void *library, const std::string &name, const std::string &path) {
    void *address = dlsym(library, name.c_str());
    if (!address) throw std::runtime_error(path + " has no symbol " + name);
    return reinterpret_cast<F>(address);
}

}  // namespace

int main(int argc, char **argv) {
    Options options;
    strata::fuzz::Description description;
    strata::harness::CompiledVariant variant;
    try {
        options = parse(argc, argv);
        description = strata::fuzz::read_description(options.pipeline);
        void *library = dlopen(options.library.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) throw std::runtime_error(std::string("cannot load ") + dlerror());
        variant.argv = symbol<strata::runtime::ArgvFunction>(library, options.function + "_argv", options.library);
        variant.metadata =
            symbol<strata::runtime::MetadataFunction>(library, options.function + "_metadata", options.library);
        variant.device = options.device == "opencl" ? halide_opencl_device_interface() : nullptr;
    } catch (const std::exception &e) {
        std::cerr << "strata-fuzz-check: " << e.what() << "\n";
        return 2;
    }
    // app_check_main picks the variant by --variant; there is only this one.
    for (size_t i = 1; i + 1 < options.rest.size(); ++i) {
        if (std::string(options.rest[i]) == "--variant") variant.name = options.rest[i + 1];
    }
    const std::string app = std::filesystem::path(options.pipeline).stem().string();
    return strata::harness::app_check_main(int(options.rest.size()), options.rest.data(), app, {variant},
                                           [&] { return strata::fuzz::check_spec(description); });
}
