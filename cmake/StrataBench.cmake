# strata_add_bench(): a benchmark executable for one pipeline — the
# generator run ahead of time for a target, its object and `-e registration`
# file linked with strata-bench's main (runtime/tools/bench_main.cpp).
#
#   strata_add_bench(<executable>
#       GENERATOR <target>          the generator executable (built with Halide's GenGen)
#       [GENERATOR_NAME <name>]     name given to HALIDE_REGISTER_GENERATOR (default <executable>)
#       [FUNCTION_NAME <name>]      the pipeline's C name (default GENERATOR_NAME)
#       [HALIDE_TARGET <target>]    default host-cuda-cuda_capability_80
#       [AUTOSCHEDULER <name>]      e.g. Strata or Anderson2021 (adds autoscheduler=<name>)
#       [PLUGINS <file-or-target>...]  autoscheduler plugins to load (-p)
#       [PARAMS <key=value>...]     more generator params; @SM_COUNT@ becomes the SM count of
#                                   the GPU Strata targets (cmake/strata_with_gpu_spec.sh)
#       [FEATURIZATION])            also emit <FUNCTION_NAME>.featurization (for --log)
#
# Outputs land in ${CMAKE_CURRENT_BINARY_DIR}/<executable>.generated/; the path of the
# featurization is the executable's STRATA_FEATURIZATION property.
#
# Example:
#   include(StrataBench)
#   strata_add_bench(bench_unsharp GENERATOR unsharp_generator GENERATOR_NAME unsharp
#                    AUTOSCHEDULER Strata PLUGINS Strata::Strata FEATURIZATION)
#   # then: bench_unsharp --featurization $<TARGET_PROPERTY:bench_unsharp,STRATA_FEATURIZATION> --log runs.jsonl
include_guard(GLOBAL)

function(strata_add_bench EXECUTABLE)
    cmake_parse_arguments(ARG "FEATURIZATION" "GENERATOR;GENERATOR_NAME;FUNCTION_NAME;HALIDE_TARGET;AUTOSCHEDULER"
                          "PLUGINS;PARAMS" ${ARGN})
    if (ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "strata_add_bench(${EXECUTABLE}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
    endif ()
    if (NOT ARG_GENERATOR)
        message(FATAL_ERROR "strata_add_bench(${EXECUTABLE}): GENERATOR <target> is required")
    endif ()
    if (NOT ARG_GENERATOR_NAME)
        set(ARG_GENERATOR_NAME ${EXECUTABLE})
    endif ()
    if (NOT ARG_FUNCTION_NAME)
        set(ARG_FUNCTION_NAME ${ARG_GENERATOR_NAME})
    endif ()
    if (NOT ARG_HALIDE_TARGET)
        set(ARG_HALIDE_TARGET host-cuda-cuda_capability_80)
    endif ()

    set(outdir "${CMAKE_CURRENT_BINARY_DIR}/${EXECUTABLE}.generated")
    set(name ${ARG_FUNCTION_NAME})
    set(emit object registration)
    set(outputs "${outdir}/${name}.o" "${outdir}/${name}.registration.cpp")
    if (ARG_FEATURIZATION)
        list(APPEND emit featurization)
        list(APPEND outputs "${outdir}/${name}.featurization")
    endif ()
    list(JOIN emit "," emit)

    set(schedule_args "")
    set(depends ${ARG_GENERATOR})
    if (ARG_PLUGINS)
        set(plugin_files "")
        foreach (plugin IN LISTS ARG_PLUGINS)
            if (TARGET ${plugin})
                list(APPEND plugin_files "$<TARGET_FILE:${plugin}>")
                list(APPEND depends ${plugin})
            else ()
                list(APPEND plugin_files "${plugin}")
            endif ()
        endforeach ()
        list(JOIN plugin_files "," plugin_files)
        list(APPEND schedule_args -p "${plugin_files}")
    endif ()
    if (ARG_AUTOSCHEDULER)
        list(APPEND schedule_args autoscheduler=${ARG_AUTOSCHEDULER})
    endif ()

    file(MAKE_DIRECTORY "${outdir}")
    add_custom_command(
        OUTPUT ${outputs}
        COMMAND "${PROJECT_SOURCE_DIR}/cmake/strata_with_gpu_spec.sh" "$<TARGET_FILE:strata-gpu-spec>"
                "${ARG_HALIDE_TARGET}" -- "$<TARGET_FILE:${ARG_GENERATOR}>" -g ${ARG_GENERATOR_NAME} -f ${name} -n ${name} -o "${outdir}" -e ${emit}
                "target=${ARG_HALIDE_TARGET}" ${schedule_args} ${ARG_PARAMS}
        DEPENDS ${depends} strata-gpu-spec
        COMMENT "Generating ${name} for ${ARG_HALIDE_TARGET} (benchmark ${EXECUTABLE})"
        VERBATIM)

    add_executable(${EXECUTABLE} "${outdir}/${name}.registration.cpp" "${outdir}/${name}.o")
    set_source_files_properties("${outdir}/${name}.o" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_link_libraries(${EXECUTABLE} PRIVATE strata_bench_main Threads::Threads ${CMAKE_DL_LIBS})
    if (ARG_FEATURIZATION)
        set_target_properties(${EXECUTABLE} PROPERTIES STRATA_FEATURIZATION "${outdir}/${name}.featurization")
    endif ()
endfunction()
