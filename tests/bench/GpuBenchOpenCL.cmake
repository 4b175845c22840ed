# scripts/gpu-bench end to end under PoCL on one app (the times mean
# nothing; the plumbing is the test): the five variants generated, linked and
# timed, Strata's and the baselines' schedules logged with the GPU spec they
# were featurized for,
# sampling used or its absence reported, strata-retrain run on the log (its
# weights forced, so that the rerun of the search with them is exercised),
# the table, the predicted-vs-measured plot and the bar chart written.
#
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DWORKDIR=... -P GpuBenchOpenCL.cmake
foreach (var SOURCE_DIR BUILD_DIR WORKDIR)
    if (NOT DEFINED ${var})
        message(FATAL_ERROR "GpuBenchOpenCL.cmake: -D${var}=... is required")
    endif ()
endforeach ()
file(REMOVE_RECURSE "${WORKDIR}")
execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-bench" --target opencl --build-dir "${BUILD_DIR}" --no-build
                        --out "${WORKDIR}" --sampled 2 --samples 2 --jobs 2 --force-weights unsharp
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "scripts/gpu-bench:\n${out}${err}")
if (NOT status EQUAL 0)
    message(FATAL_ERROR "scripts/gpu-bench failed with status ${status}")
endif ()

file(STRINGS "${WORKDIR}/results.jsonl" results)
foreach (variant manual li2018 anderson2021 mullapudi2016 strata strata-retrained)
    if (NOT results MATCHES "\"variant\": \"${variant}\", \"sample\": 0, \"status\": \"ok\"")
        message(FATAL_ERROR "no successful timing of the ${variant} variant in results.jsonl:\n${results}")
    endif ()
endforeach ()
# Sampling: timed if Strata has autoscheduler.sample_index, else reported as absent.
if (out MATCHES "sampling: no")
    if (NOT out MATCHES "no sample_index parameter")
        message(FATAL_ERROR "sampling was skipped without saying why")
    endif ()
elseif (NOT results MATCHES "\"variant\": \"strata\", \"sample\": 1, \"status\": \"ok\"")
    message(FATAL_ERROR "sampling is available but sample 1 was not timed")
endif ()

# Strata's schedules and the baselines' (featurized through StrataPredict) are logged.
file(STRINGS "${WORKDIR}/profile.jsonl" records)
set(logged "")
foreach (record IN LISTS records)
    string(JSON featurized_for GET "${record}" featurized_for name)
    string(JSON api GET "${record}" device api)
    string(JSON variant GET "${record}" schedule variant)
    list(APPEND logged ${variant})
    if (NOT featurized_for STREQUAL "a100" OR NOT api STREQUAL "opencl")
        message(FATAL_ERROR "unexpected profile record: ${record}")
    endif ()
endforeach ()
foreach (variant strata li2018)
    list(FIND logged ${variant} found)
    if (found EQUAL -1)
        message(FATAL_ERROR "no ${variant} record in the profile log (logged: ${logged})")
    endif ()
endforeach ()
foreach (file table.txt variants.png weights.json weights.a100.png weights.predictions.jsonl)
    if (NOT EXISTS "${WORKDIR}/${file}")
        message(FATAL_ERROR "scripts/gpu-bench wrote no ${file}")
    endif ()
endforeach ()
file(READ "${WORKDIR}/table.txt" table)
if (NOT table MATCHES "\nunsharp +[0-9.e+-]+ +[0-9.e+-]+")
    message(FATAL_ERROR "the table has no row of times for unsharp:\n${table}")
endif ()
