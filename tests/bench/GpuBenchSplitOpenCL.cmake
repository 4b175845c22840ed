# scripts/gpu-bench split across two machines, under PoCL on one app: the
# benchmarks generated and packed on one (--generate-only: the compiler,
# Halide and the searches are there), then timed from the archive alone on
# another (--generated), as on a GPU machine where building and searching
# would spend its time. The archive must be self-contained (its tools, its
# spec and its target travel with it), the timed records must say the spec
# the schedules were searched for, and the retrain must run without asking
# for a search it cannot do. Last, scripts/gpu-kernel-times report joins the
# archive's per-kernel predictions (strata-explain) with launches named as
# Halide names its kernels. And scripts/gpu-session, the one call for a lent
# GPU, on the same archive; and scripts/gpu-ab, interleaved A/B timing of
# variants, with its report.
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

# scripts/gpu-kernel-times report on the archive's featurizations: one launch
# per kernel, named as Halide names it, taking twice its predicted time — each
# kernel must be matched and its ratio read 2.00.
file(ARCHIVE_EXTRACT INPUT "${archive}" DESTINATION "${WORKDIR}/unpacked")
execute_process(COMMAND "${BUILD_DIR}/costmodel/strata-explain"
                        "${WORKDIR}/unpacked/gen/unsharp/strata/unsharp.featurization" --json
                RESULT_VARIABLE status OUTPUT_VARIABLE explained ERROR_VARIABLE err)
if (NOT status EQUAL 0)
    message(FATAL_ERROR "strata-explain failed: ${err}")
endif ()
string(STRIP "${explained}" explained)
string(REPLACE "\n" ";" kernel_lines "${explained}")
set(launches "")
set(kernel_count 0)
foreach (line IN LISTS kernel_lines)
    string(JSON root GET "${line}" root)
    string(JSON predicted GET "${line}" predicted_s)
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" halide_name "${root}")
    math(EXPR kernel_count "${kernel_count} + 1")
    # Twice the prediction (CMake's arithmetic is integer only).
    execute_process(COMMAND python3 -c "print(2 * ${predicted})" OUTPUT_VARIABLE twice OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(APPEND launches "{\"app\": \"unsharp\", \"variant\": \"strata\", \"kernel\": \"_kernel_${halide_name}_x_b_block_id_x\", \"seconds\": ${twice}}\n")
endforeach ()
file(WRITE "${WORKDIR}/kernels.jsonl" "${launches}")
execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-kernel-times" report --kernels "${WORKDIR}/kernels.jsonl"
                        --gen "${WORKDIR}/unpacked/gen" --explain "${BUILD_DIR}/costmodel/strata-explain"
                RESULT_VARIABLE status OUTPUT_VARIABLE kernel_report ERROR_VARIABLE err)
message(STATUS "scripts/gpu-kernel-times report:\n${kernel_report}${err}")
string(REGEX MATCHALL "\nunsharp +strata +[^\n]+ 2\\.00 " matched "${kernel_report}")
list(LENGTH matched matched_count)
if (NOT status EQUAL 0 OR kernel_count EQUAL 0 OR NOT matched_count EQUAL kernel_count)
    message(FATAL_ERROR "gpu-kernel-times matched ${matched_count} of ${kernel_count} kernels")
endif ()

# scripts/gpu-session, the one call for a lent GPU, on the same archive: the
# table, the table with Halide's allocation cache on, per-kernel times where
# ncu exists (skipped here, and said so), at most 8 files to bring back.
execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-session" "${archive}" "${WORKDIR}/session" --samples 2
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if (NOT status EQUAL 0)
    message(FATAL_ERROR "scripts/gpu-session failed (${status}):\n${out}${err}")
endif ()
file(GLOB session_files "${WORKDIR}/session/*")
list(LENGTH session_files session_count)
file(READ "${WORKDIR}/session/summary.txt" summary)
if (session_count GREATER 8 OR NOT EXISTS "${WORKDIR}/session/table-reused-allocations.txt" OR
    NOT EXISTS "${WORKDIR}/session/session.tar.gz" OR NOT summary MATCHES "3/3 (skipped: no ncu here|per-kernel)")
    message(FATAL_ERROR "scripts/gpu-session left ${session_count} files; summary:\n${summary}")
endif ()
file(STRINGS "${WORKDIR}/session/table-reused-allocations.txt" reused_table)
if (NOT reused_table MATCHES "unsharp +[0-9.]+ +[0-9.]+")
    message(FATAL_ERROR "no timed row with the allocation cache on:\n${reused_table}")
endif ()

# scripts/gpu-ab, interleaved A/B timing of variants, on the same archive:
# every repeat times each variant of the app, a missing variant is a null
# run, and scripts/gpu-ab-report divides by the base variant.
execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-ab" "${archive}" "${WORKDIR}/ab.jsonl" manual strata absent
                        --reps 2 --samples 2
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(STRINGS "${WORKDIR}/ab.jsonl" ab_runs)
list(LENGTH ab_runs ab_count)
string(REGEX MATCHALL "\"variant\": \"absent\", \"bench\": null" absent_runs "${ab_runs}")
list(LENGTH absent_runs absent_count)
if (NOT status EQUAL 0 OR NOT ab_count EQUAL 6 OR NOT absent_count EQUAL 2)
    message(FATAL_ERROR "scripts/gpu-ab wrote ${ab_count} runs (${absent_count} of the absent variant):\n${out}${err}")
endif ()
execute_process(COMMAND "${SOURCE_DIR}/scripts/gpu-ab-report" "${WORKDIR}/ab.jsonl" --base strata
                RESULT_VARIABLE status OUTPUT_VARIABLE ab_report ERROR_VARIABLE err)
if (NOT status EQUAL 0 OR NOT ab_report MATCHES "\nunsharp +[0-9.]+ +[0-9.]+ +failed +[0-9.]+ +-" OR
    NOT ab_report MATCHES "\ngeomean +[0-9.]+ \\(1\\)")
    message(FATAL_ERROR "scripts/gpu-ab-report:\n${ab_report}${err}")
endif ()
