# strata_add_app(): build an app's generator, compile it once per schedule
# variant for OpenCL (run under PoCL against the app's reference) and for
# CUDA sm_80 (ptxas check), and register the tests.
#
#   strata_add_app(<app>
#       [GENERATOR <file>]           default <app>_generator.cpp
#       [REFERENCE <file>]           default <app>_reference.cpp
#       [GENERATOR_NAME <name>]      name given to HALIDE_REGISTER_GENERATOR, default <app>
#       [PARAMS <key=value>...]      generator params for every variant
#       [KNOWN_FAILURES <variant>.<check> "<reason>" ...])
#
# Variants: manual (the generator's own schedule, no autoscheduler), Halide
# 21's GPU autoschedulers li2018, anderson2021 and mullapudi2016 (with
# experimental_gpu_schedule=1) as baselines, and strata (our plugin, when the
# Strata::Strata target exists). Checks: opencl, ptxas. A known failure is a
# result of someone else's tool that we record rather than hide: its test
# passes while the failure reproduces and fails once it stops reproducing.
#
# Tests: app.<app>.<variant>.opencl, app.<app>.<variant>.ptxas and, for the
# autoscheduled variants, app.<app>.<variant>.lowered (the lowered code
# against the features Strata priced); their JSON results land in
# ${STRATA_RESULTS_DIR} for scripts/demo. Strata's schedule is also checked
# at wider beams (app.<app>.strata.beam) and as picked for each GPU of
# STRATA_LOWERED_CHECK_GPUS (app.<app>.strata.lowered_<gpu>).
include_guard(GLOBAL)

set(STRATA_RESULTS_DIR "${CMAKE_BINARY_DIR}/results" CACHE PATH "Where verification results are written")
set(STRATA_GENERATE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/strata_generate.sh")
set(STRATA_WITH_GPU_SPEC_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/strata_with_gpu_spec.sh")
set(STRATA_GPU_TARGETS opencl cuda)
set(STRATA_HALIDE_TARGET_opencl "${STRATA_HOST_TARGET}-opencl")
set(STRATA_HALIDE_TARGET_cuda "${STRATA_HOST_TARGET}-cuda-cuda_capability_80")

# Benchmarks of every app variant (strata-bench), for a GPU machine: off by
# default (they are not tests and they double the generator runs). See
# scripts/gpu-bench.
option(STRATA_BUILD_GPU_BENCH "Build a strata-bench executable per app and schedule variant" OFF)
set(STRATA_BENCH_HALIDE_TARGET "${STRATA_HOST_TARGET}-cuda-cuda_capability_80" CACHE STRING
    "Halide target of the benchmark executables")
if (STRATA_BUILD_GPU_BENCH)
    include(StrataBench)
endif ()

find_program(STRATA_PTXAS ptxas HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin
             DOC "ptxas used for the CUDA resource checks (optional)")
if (NOT STRATA_PTXAS)
    message(STATUS "ptxas not found: the app ptxas checks will be skipped")
endif ()

# GPUs besides the CUDA target's whose Strata schedules each app's lowered
# check also covers (app.<app>.strata.lowered_<gpu>): the H200 is the GPU
# the measurements ran on.
set(STRATA_LOWERED_CHECK_GPUS "h200" CACHE STRING "Built-in GPUs whose Strata picks the lowered check also covers")

# The schedule variants every app is built and checked with: its manual
# schedule, Halide's three GPU autoschedulers, and Strata.
set(STRATA_BASELINE_AUTOSCHEDULERS li2018 anderson2021 mullapudi2016)

# Anderson2021 searches for minutes on the larger apps (local_laplacian
# about 13 minutes here, unet over 20), so a quick build can check it on a
# slice of the apps: scripts/test does, scripts/demo checks every app.
set(STRATA_ANDERSON2021_APPS "all" CACHE STRING
    "Apps whose anderson2021 variant is built and checked: 'all' or a list of app names")

function(_strata_app_variants app out)
    set(variants manual li2018)
    if (STRATA_ANDERSON2021_APPS STREQUAL "all" OR app IN_LIST STRATA_ANDERSON2021_APPS)
        list(APPEND variants anderson2021)
    endif ()
    list(APPEND variants mullapudi2016)
    if (TARGET Strata::Strata)
        list(APPEND variants strata)
    endif ()
    set(${out} ${variants} PARENT_SCOPE)
endfunction()

# A variant's autoscheduler: its registered name, its plugin target and its
# autoscheduler.<key>=<value> parameters. Halide's schedulers get the GPU
# Strata targets (Anderson2021's `parallelism` is the spec's SM count, filled
# in by strata_with_gpu_spec.sh) and otherwise their defaults.
function(_strata_variant_autoscheduler variant out_name out_plugin out_keys)
    if (variant STREQUAL "li2018")
        set(name Li2018)
        set(plugin Halide::Li2018)
        set(keys "")
    elseif (variant STREQUAL "anderson2021")
        set(name Anderson2021)
        set(plugin Halide::Anderson2021)
        set(keys autoscheduler.parallelism=@SM_COUNT@)
    elseif (variant STREQUAL "mullapudi2016")
        set(name Mullapudi2016)
        set(plugin Halide::Mullapudi2016)
        set(keys autoscheduler.experimental_gpu_schedule=1)
    elseif (variant STREQUAL "strata")
        set(name Strata)
        set(plugin Strata::Strata)
        set(keys "")
    else ()
        message(FATAL_ERROR "unknown autoscheduled variant '${variant}'")
    endif ()
    set(${out_name} ${name} PARENT_SCOPE)
    set(${out_plugin} ${plugin} PARENT_SCOPE)
    set(${out_keys} ${keys} PARENT_SCOPE)
endfunction()

# The generator command-line arguments that select a variant. Strata runs
# under the Timed wrapper (tests/harness/src/ScheduleTimer.cpp); Halide's
# autoschedulers under StrataPredict, which also times them and prices
# their schedules under Strata's cost model. Both write `report`. With
# `lowered` set, Strata's lowered-code check (autoscheduler/src/LoweredCheck.h)
# compares what Halide builds with what was priced, into that file.
function(_strata_variant_arguments variant report lowered out_args out_depends)
    if (variant STREQUAL "manual")
        set(${out_args} "" PARENT_SCOPE)
        set(${out_depends} "" PARENT_SCOPE)
        return()
    endif ()
    _strata_variant_autoscheduler(${variant} name plugin keys)
    if (lowered)
        list(APPEND keys "autoscheduler.lowered_check=${lowered}")
    endif ()
    if (variant STREQUAL "strata")
        set(args -p "$<TARGET_FILE:Strata::Strata>,$<TARGET_FILE:strata_schedule_timer>" autoscheduler=Timed)
        set(depends strata_schedule_timer Strata::Strata)
    else ()
        set(args -p "$<TARGET_FILE:${plugin}>,$<TARGET_FILE:Strata::Strata>" autoscheduler=StrataPredict)
        set(depends Strata::Strata)
    endif ()
    list(APPEND args autoscheduler.inner=${name} "autoscheduler.report=${report}" ${keys})
    set(${out_args} ${args} PARENT_SCOPE)
    set(${out_depends} ${depends} PARENT_SCOPE)
endfunction()

function(strata_add_app APP)
    cmake_parse_arguments(ARG "" "GENERATOR;REFERENCE;GENERATOR_NAME" "PARAMS;KNOWN_FAILURES" ${ARGN})
    if (ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "strata_add_app(${APP}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
    endif ()
    if (NOT ARG_GENERATOR)
        set(ARG_GENERATOR ${APP}_generator.cpp)
    endif ()
    if (NOT ARG_REFERENCE)
        set(ARG_REFERENCE ${APP}_reference.cpp)
    endif ()
    if (NOT ARG_GENERATOR_NAME)
        set(ARG_GENERATOR_NAME ${APP})
    endif ()

    # KNOWN_FAILURES comes in (<variant>.<check>, reason) pairs.
    set(known ${ARG_KNOWN_FAILURES})
    while (known)
        list(POP_FRONT known key reason)
        if (NOT reason)
            message(FATAL_ERROR "strata_add_app(${APP}): KNOWN_FAILURES ${key} needs a reason")
        endif ()
        set(known_failure_${key} "${reason}")
    endwhile ()

    set(generator strata_${APP}_generator)
    add_executable(${generator} ${ARG_GENERATOR})
    target_link_libraries(${generator} PRIVATE strata_gengen strata_dsl strata_warnings)
    # Schedule helpers shared by the generators (apps/common, header-only).
    target_include_directories(${generator} PRIVATE "${PROJECT_SOURCE_DIR}/apps/common")

    set(outdir "${CMAKE_CURRENT_BINARY_DIR}/generated")
    file(MAKE_DIRECTORY "${outdir}" "${STRATA_RESULTS_DIR}")
    _strata_app_variants(${APP} variants)

    set(opencl_objects "")
    set(variant_table "")
    set(variant_declarations "")
    foreach (variant IN LISTS variants)
        foreach (gpu IN LISTS STRATA_GPU_TARGETS)
            set(name ${APP}_${variant}_${gpu})
            set(function ${APP}_${variant})
            set(schedule_report "${STRATA_RESULTS_DIR}/${name}.schedule.json")
            set(generate_report "${STRATA_RESULTS_DIR}/${name}.generate.json")
            set(lowered_report "")
            if (gpu STREQUAL "cuda")
                set(lowered_report "${STRATA_RESULTS_DIR}/${APP}.${variant}.lowered.json")
            endif ()
            _strata_variant_arguments(${variant} "${schedule_report}" "${lowered_report}" variant_args variant_depends)
            add_custom_command(
                OUTPUT "${outdir}/${name}.o" "${outdir}/${name}.h" "${outdir}/${name}.stmt"
                       "${outdir}/${name}.schedule.h"
                COMMAND "${STRATA_WITH_GPU_SPEC_SCRIPT}" "$<TARGET_FILE:strata-gpu-spec>"
                        "${STRATA_HALIDE_TARGET_${gpu}}" --
                        "${STRATA_GENERATE_SCRIPT}" --name ${name} --function ${function} --outdir "${outdir}"
                        --cc "${CMAKE_C_COMPILER}" --report "${generate_report}" --log "${outdir}/${name}.log"
                        -- "$<TARGET_FILE:${generator}>" -g ${ARG_GENERATOR_NAME} -n ${name} -f ${function}
                        -o "${outdir}" -e object,c_header,stmt,schedule
                        "target=${STRATA_HALIDE_TARGET_${gpu}}-no_runtime" ${variant_args} ${ARG_PARAMS}
                DEPENDS ${generator} ${variant_depends} strata-gpu-spec "${STRATA_GENERATE_SCRIPT}"
                        "${STRATA_WITH_GPU_SPEC_SCRIPT}"
                COMMENT "Generating ${name}"
                VERBATIM)
            add_custom_target(${name}.generate ALL DEPENDS "${outdir}/${name}.o")
        endforeach ()

        # A wider beam never predicts worse (the schedule alone, for CUDA).
        if (variant STREQUAL "strata")
            set(beam_dir "${CMAKE_CURRENT_BINARY_DIR}/beam")
            add_test(NAME app.${APP}.strata.beam
                     COMMAND "${PROJECT_SOURCE_DIR}/cmake/strata_beam_check.py" --app ${APP} --log "${beam_dir}" --
                             "$<TARGET_FILE:${generator}>" -g ${ARG_GENERATOR_NAME} -n ${APP}_beam -f ${APP}_beam
                             -o "${beam_dir}" -e schedule "target=${STRATA_HALIDE_TARGET_cuda}-no_runtime"
                             -p "$<TARGET_FILE:Strata::Strata>" autoscheduler=Strata ${ARG_PARAMS})
            set_tests_properties(app.${APP}.strata.beam PROPERTIES LABELS "app;beam;strata" TIMEOUT 600)

            # What Halide builds from the schedule Strata picks for another
            # GPU (other limits, other picks) against what it priced there.
            foreach (other_gpu IN LISTS STRATA_LOWERED_CHECK_GPUS)
                add_test(NAME app.${APP}.strata.lowered_${other_gpu}
                         COMMAND "${PROJECT_SOURCE_DIR}/cmake/strata_lowered_on_gpu.py" --app ${APP} --gpu ${other_gpu}
                                 --out "${CMAKE_CURRENT_BINARY_DIR}/lowered_${other_gpu}"
                                 --check "$<TARGET_FILE:strata-lowered-check>" --
                                 "$<TARGET_FILE:${generator}>" -g ${ARG_GENERATOR_NAME} -n ${APP}_${other_gpu}
                                 -f ${APP}_${other_gpu} -o "${CMAKE_CURRENT_BINARY_DIR}/lowered_${other_gpu}"
                                 -e schedule "target=${STRATA_HALIDE_TARGET_cuda}-no_runtime"
                                 -p "$<TARGET_FILE:Strata::Strata>" autoscheduler=Strata ${ARG_PARAMS})
                set_tests_properties(app.${APP}.strata.lowered_${other_gpu} PROPERTIES
                                     LABELS "app;lowered;strata" TIMEOUT 300)
            endforeach ()
        endif ()

        list(APPEND opencl_objects "${outdir}/${APP}_${variant}_opencl.o")
        string(APPEND variant_declarations
               "extern \"C\" int ${APP}_${variant}_argv(void **);\n"
               "extern \"C\" const halide_filter_metadata_t *${APP}_${variant}_metadata();\n")
        string(APPEND variant_table
               "        {\"${variant}\", ${APP}_${variant}_argv, ${APP}_${variant}_metadata, device},\n")

        # The ptxas check of the CUDA build.
        set(cuda_name ${APP}_${variant}_cuda)
        set(ptxas_args --app ${APP} --variant ${variant} --object "${outdir}/${cuda_name}.o"
            --stmt "${outdir}/${cuda_name}.stmt" --ptxas "${STRATA_PTXAS}"
            --json "${STRATA_RESULTS_DIR}/${APP}.${variant}.ptxas.json"
            --generate-report "${STRATA_RESULTS_DIR}/${cuda_name}.generate.json")
        if (NOT variant STREQUAL "manual")
            list(APPEND ptxas_args --lowered-report "${STRATA_RESULTS_DIR}/${APP}.${variant}.lowered.json")
        endif ()
        # Strata's model prices no local-memory traffic: its kernels must not
        # spill, nor keep a per-thread buffer in local memory.
        if (variant STREQUAL "strata")
            list(APPEND ptxas_args --no-spills --no-local-arrays)
        endif ()
        if (DEFINED known_failure_${variant}.ptxas)
            list(APPEND ptxas_args --expect-failure "${known_failure_${variant}.ptxas}")
        endif ()
        add_test(NAME app.${APP}.${variant}.ptxas COMMAND strata-ptx-check ${ptxas_args})
        set_tests_properties(app.${APP}.${variant}.ptxas PROPERTIES
                             LABELS "app;ptxas;${variant}" SKIP_RETURN_CODE 77 TIMEOUT 300)

        # What Halide built against what Strata's cost model priced.
        if (NOT variant STREQUAL "manual")
            set(lowered_args --app ${APP} --variant ${variant}
                --report "${STRATA_RESULTS_DIR}/${APP}.${variant}.lowered.json"
                --generate-report "${STRATA_RESULTS_DIR}/${cuda_name}.generate.json"
                --record "${STRATA_RESULTS_DIR}/${APP}.${variant}.lowered-check.json")
            if (DEFINED known_failure_${variant}.lowered)
                list(APPEND lowered_args --expect-failure "${known_failure_${variant}.lowered}")
            endif ()
            add_test(NAME app.${APP}.${variant}.lowered COMMAND strata-lowered-check ${lowered_args})
            set_tests_properties(app.${APP}.${variant}.lowered PROPERTIES LABELS "app;lowered;${variant}" TIMEOUT 60)
        endif ()

        # The PoCL run of the OpenCL build against the reference.
        set(opencl_name ${APP}_${variant}_opencl)
        set(check_args --variant ${variant}
            --report "${STRATA_RESULTS_DIR}/${APP}.${variant}.opencl.json"
            --generator-log "${outdir}/${opencl_name}.log"
            --require-gpu-stmt "${outdir}/${opencl_name}.stmt")
        if (DEFINED known_failure_${variant}.opencl)
            list(APPEND check_args --expect-failure "${known_failure_${variant}.opencl}")
        endif ()
        add_test(NAME app.${APP}.${variant}.opencl COMMAND strata_${APP}_check ${check_args})
        set_tests_properties(app.${APP}.${variant}.opencl PROPERTIES
                             LABELS "app;opencl;${variant}" TIMEOUT 900
                             ENVIRONMENT "POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/pocl-cache")
    endforeach ()

    if (STRATA_BUILD_GPU_BENCH)
        foreach (variant IN LISTS variants)
            set(bench_args GENERATOR ${generator} GENERATOR_NAME ${ARG_GENERATOR_NAME} FUNCTION_NAME ${APP}
                HALIDE_TARGET "${STRATA_BENCH_HALIDE_TARGET}" PARAMS ${ARG_PARAMS})
            if (NOT variant STREQUAL "manual")
                _strata_variant_autoscheduler(${variant} name plugin keys)
                list(APPEND bench_args AUTOSCHEDULER ${name} PLUGINS ${plugin} PARAMS ${keys})
            endif ()
            if (variant STREQUAL "strata")
                list(APPEND bench_args FEATURIZATION)
            endif ()
            strata_add_bench(strata_bench_${APP}_${variant} ${bench_args})
        endforeach ()
    endif ()

    set(check_main "${CMAKE_CURRENT_BINARY_DIR}/${APP}_check_main.cpp")
    file(CONFIGURE OUTPUT "${check_main}" CONTENT [=[
// Generated by strata_add_app(@APP@): the verification runner's entry point.
#include "strata/harness/AppCheck.h"

#include <HalideRuntimeOpenCL.h>

@variant_declarations@
int main(int argc, char **argv) {
    const halide_device_interface_t *device = halide_opencl_device_interface();
    const std::vector<strata::harness::CompiledVariant> variants = {
@variant_table@    };
    return strata::harness::app_check_main(argc, argv, "@APP@", variants);
}
]=] @ONLY)
    add_executable(strata_${APP}_check "${check_main}" ${ARG_REFERENCE} ${opencl_objects}
                   $<TARGET_OBJECTS:strata_opencl_launch_recorder>)
    # Every kernel launch passes through the recorder (see LaunchLog.h).
    target_link_options(strata_${APP}_check PRIVATE "LINKER:--wrap=halide_opencl_run")
    set_source_files_properties(${opencl_objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_link_libraries(strata_${APP}_check PRIVATE strata_harness strata_opencl_runtime strata_warnings
                          Threads::Threads ${CMAKE_DL_LIBS})
    # Plain C++ references of published operators that an app reference may
    # share with the dsl unit tests (never the dsl itself: it is what they check).
    target_include_directories(strata_${APP}_check PRIVATE "${PROJECT_SOURCE_DIR}/tests")  # reference/
endfunction()
