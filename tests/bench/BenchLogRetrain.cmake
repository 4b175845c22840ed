# The path from a benchmark to new weights, on a pipeline built for OpenCL
# and run under PoCL (the times mean nothing here; the plumbing is the test):
#   strata-bench run → JSON result; strata-bench --log → profiling log (twice,
#   at the featurization's sizes only); strata-retrain on that log → refused
#   (one app: nothing held out shows the weights are better), then forced →
#   weights that load, a predictions file and a plot.
#
#   cmake -DBENCH=... -DWRITER=... -DRETRAIN=... -DWORKDIR=... -P BenchLogRetrain.cmake
foreach (var BENCH WRITER RETRAIN WORKDIR)
    if (NOT DEFINED ${var})
        message(FATAL_ERROR "BenchLogRetrain.cmake: -D${var}=... is required")
    endif ()
endforeach ()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(sizes --size output=256x160x3 --input-size input=256x160x3)

function(run_step description)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                    WORKING_DIRECTORY "${WORKDIR}")
    message(STATUS "${description}:\n${out}${err}")
    if (NOT status EQUAL 0)
        message(FATAL_ERROR "${description} failed with status ${status}")
    endif ()
    set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("list" "${BENCH}" --list)
if (NOT step_output MATCHES "unsharp \\(target [^)]*opencl")
    message(FATAL_ERROR "the benchmark does not list the OpenCL unsharp pipeline")
endif ()

run_step("benchmark" "${BENCH}" ${sizes} --warmups 1 --samples 3 --json)
string(JSON median GET "${step_output}" median_ms)
string(JSON samples LENGTH "${step_output}" samples_ms)
if (NOT median GREATER 0 OR NOT samples EQUAL 3)
    message(FATAL_ERROR "unexpected benchmark result: ${step_output}")
endif ()

run_step("stand-in featurization" "${WRITER}" unsharp unsharp.featurization)
set(log_args --featurization unsharp.featurization --log runs.jsonl --gpu-name "PoCL CPU")
# A record pairs the featurization's features with a time at the same sizes.
execute_process(COMMAND "${BENCH}" ${sizes} --samples 1 ${log_args} --features-gpu-spec a100
                WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
if (status EQUAL 0 OR NOT err MATCHES "--size output differs from its estimate 1536x2560x3")
    message(FATAL_ERROR "strata-bench should refuse to log another size than the estimates (status ${status}): ${err}")
endif ()
execute_process(COMMAND "${BENCH}" --samples 1 ${log_args} WORKING_DIRECTORY "${WORKDIR}"
                RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
if (status EQUAL 0 OR NOT err MATCHES "does not say which GPU spec its features were computed for")
    message(FATAL_ERROR "strata-bench should ask which spec the features are for (status ${status}): ${err}")
endif ()
foreach (seed 1 2)
    run_step("benchmark into the log" "${BENCH}" --warmups 1 --samples 2 --seed ${seed} ${log_args}
             --features-gpu-spec a100 --variant manual)
endforeach ()
file(STRINGS "${WORKDIR}/runs.jsonl" records)
list(LENGTH records count)
if (NOT count EQUAL 2)
    message(FATAL_ERROR "expected 2 log records, found ${count}")
endif ()
# With Halide's device-allocation cache on, the run says so in its record (in another log: it is
# another measuring condition, trained as another group).
run_step("benchmark with allocations reused" "${BENCH}" --warmups 1 --samples 2 --reuse-device-allocations
         --featurization unsharp.featurization --log cached.jsonl --gpu-name "PoCL CPU" --features-gpu-spec a100)
file(STRINGS "${WORKDIR}/cached.jsonl" cached)
string(JSON reused GET "${cached}" times reused_device_allocations)
list(GET records 0 first)
string(JSON not_reused GET "${first}" times reused_device_allocations)
if (NOT reused STREQUAL "ON" OR NOT not_reused STREQUAL "OFF")
    message(FATAL_ERROR "reused_device_allocations: ${reused} with the cache, ${not_reused} without")
endif ()

# "PoCL CPU" is no GPU of the table: the records need a fallback spec.
execute_process(COMMAND "${RETRAIN}" runs.jsonl --epochs 2 -o weights.json WORKING_DIRECTORY "${WORKDIR}"
                RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
if (status EQUAL 0 OR NOT err MATCHES "not in the GPU table: 'PoCL CPU'")
    message(FATAL_ERROR "strata-retrain should refuse an unknown GPU without --gpu (status ${status}): ${err}")
endif ()
execute_process(COMMAND "${RETRAIN}" runs.jsonl --gpu a100 --epochs 2 --no-plots -o weights.json
                WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE status OUTPUT_VARIABLE out)
if (NOT status EQUAL 3 OR NOT out MATCHES "NOT WRITTEN" OR EXISTS "${WORKDIR}/weights.json")
    message(FATAL_ERROR "one app cannot show weights are better: strata-retrain must not write them (${status}): ${out}")
endif ()
run_step("retrain" "${RETRAIN}" runs.jsonl --gpu a100 --epochs 2 --force -o weights.json)
if (NOT step_output MATCHES "2 records, 0 skipped" OR NOT step_output MATCHES "1 repeated measurements merged")
    message(FATAL_ERROR "strata-retrain did not read the two records as one schedule measured twice")
endif ()
if (NOT EXISTS "${WORKDIR}/weights.predictions.jsonl")
    message(FATAL_ERROR "strata-retrain wrote no predictions beside the weights")
endif ()
file(READ "${WORKDIR}/weights.json" weights)
string(JSON schema GET "${weights}" schema)
string(JSON gpu GET "${weights}" training gpus 0)
if (NOT schema STREQUAL "strata.weights.v1" OR NOT gpu STREQUAL "a100")
    message(FATAL_ERROR "weights.json has schema '${schema}' and was fit on '${gpu}'")
endif ()
