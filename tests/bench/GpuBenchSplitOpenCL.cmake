# scripts/gpu-bench split across two machines, under PoCL on one app: the
# benchmarks generated and packed on one (--generate-only: the compiler,
# Halide and the searches are there), then timed from the archive alone on
# another (--generated), as on a GPU machine where building and searching
# would spend its time. The archive must be self-contained (its tools, its
# spec and its target travel with it), the timed records must say the spec
# the schedules were searched for, and the retrain must run without asking
# for a search it cannot do.
#
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DWORKDIR=... -P GpuBenchSplitOpenCL.cmake
foreach (var SOURCE_DIR BUILD_DIR WORKDIR)
    if (NOT DEFINED ${var})
        message(FATAL_ERROR "GpuBenchSplitOpenCL.cmake: -D${var}=... is required")
    endif ()
endforeach ()
file(REMOVE_RECURSE "${WORKDIR}")
set(archive "${WORKDIR}/benchmarks.tar.xz")

function(run_gpu_bench what)
    execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-bench" ${ARGN}
                    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "scripts/gpu-bench ${what}:\n${out}${err}")
    if (NOT status EQUAL 0)
        message(FATAL_ERROR "scripts/gpu-bench ${what} failed with status ${status}")
    endif ()
    set(out "${out}${err}" PARENT_SCOPE)
endfunction()

run_gpu_bench("--generate-only" --target opencl --gpu h100 --build-dir "${BUILD_DIR}" --no-build
              --out "${WORKDIR}/generate" --variants "manual li2018 strata" --sampled 2 --jobs 2
              --generate-only "${archive}" unsharp)
if (NOT EXISTS "${archive}")
    message(FATAL_ERROR "--generate-only wrote no archive")
endif ()
if (EXISTS "${WORKDIR}/generate/results.jsonl")
    message(FATAL_ERROR "--generate-only timed something")
endif ()
# Nothing of the generating side may be needed to time: remove its outputs.
file(REMOVE_RECURSE "${WORKDIR}/generate")

# No --target and no --gpu: both come from the archive.
run_gpu_bench("--generated" --generated "${archive}" --out "${WORKDIR}/time" --samples 2 --force-weights)
if (NOT out MATCHES "benchmarks of [^\n]* for h100, target [^\n]*opencl")
    message(FATAL_ERROR "the timing run did not name what the archive holds")
endif ()
if (NOT out MATCHES "left to the machine with the generators")
    message(FATAL_ERROR "the timing run did not say where the search with the new weights must run")
endif ()
file(STRINGS "${WORKDIR}/time/results.jsonl" results)
foreach (row "\"manual\", \"sample\": 0" "\"li2018\", \"sample\": 0" "\"strata\", \"sample\": 0"
             "\"strata\", \"sample\": 1")
    if (NOT results MATCHES "\"variant\": ${row}, \"status\": \"ok\"")
        message(FATAL_ERROR "no successful timing of ${row} in results.jsonl:\n${results}")
    endif ()
endforeach ()
if (results MATCHES "strata-retrained")
    message(FATAL_ERROR "a retrained variant was timed without a search with the new weights:\n${results}")
endif ()
file(STRINGS "${WORKDIR}/time/profile.jsonl" records)
list(LENGTH records count)
if (NOT count EQUAL 3)
    message(FATAL_ERROR "expected Li2018's and the two Strata schedules logged, got ${count} records")
endif ()
# One pipeline: Li2018's schedule (featurized through StrataPredict) ranks against Strata's.
set(variants "")
foreach (record IN LISTS records)
    string(JSON featurized_for GET "${record}" featurized_for name)
    string(JSON pipeline GET "${record}" pipeline hash)
    string(JSON variant GET "${record}" schedule variant)
    list(APPEND variants ${variant})
    if (NOT featurized_for STREQUAL "h100")
        message(FATAL_ERROR "a record says its features were for ${featurized_for}, not the archive's h100")
    endif ()
    if (DEFINED first_pipeline AND NOT pipeline STREQUAL first_pipeline)
        message(FATAL_ERROR "the ${variant} record names another pipeline (${pipeline}, not ${first_pipeline})")
    endif ()
    set(first_pipeline "${pipeline}")
endforeach ()
list(SORT variants)
if (NOT variants STREQUAL "li2018;strata;strata")
    message(FATAL_ERROR "logged variants: ${variants}")
endif ()
foreach (file table.txt variants.png weights.json)
    if (NOT EXISTS "${WORKDIR}/time/${file}")
        message(FATAL_ERROR "the timing run wrote no ${file}")
    endif ()
endforeach ()
