# A CUDA benchmark either runs (on a machine with a CUDA GPU) or stops with
# a clear "no CUDA device" message and status 1 — never a crash or a hang.
#
#   cmake -DBENCH=... -P BenchCudaOrNoDevice.cmake
if (NOT DEFINED BENCH)
    message(FATAL_ERROR "BenchCudaOrNoDevice.cmake: -DBENCH=... is required")
endif ()
execute_process(COMMAND "${BENCH}" --size output=256x160x3 --input-size input=256x160x3 --warmups 1 --samples 3
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if (status EQUAL 0)
    if (NOT out MATCHES "min [0-9.]+ ms, median [0-9.]+ ms over 3 samples")
        message(FATAL_ERROR "the CUDA benchmark ran but printed no times")
    endif ()
elseif (NOT status EQUAL 1 OR NOT err MATCHES "is compiled for CUDA \\([^)]*cuda[^)]*\\) but there is no CUDA device: ")
    message(FATAL_ERROR "the CUDA benchmark failed (status ${status}) without saying that there is no CUDA device")
endif ()
