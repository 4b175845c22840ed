# strata_add_pipeline(): compile a Halide generator into a library with a
# GPU schedule found by the Strata autoscheduler at build time.
#
#   strata_add_pipeline(<name>
#       GENERATOR <generator executable target>
#       [GENERATOR_NAME <name given to HALIDE_REGISTER_GENERATOR>]   default <name>
#       [TARGETS <Halide target>...]        default host-cuda (your GPU target)
#       [PARAMS <key=value>...]             generator params
#       [SCHEDULE <var>] [FEATURIZATION <var>]  receive the emitted files' names)
#
# It is add_halide_library(... AUTOSCHEDULER Strata::Strata) with Strata's
# defaults; link <name> into your program and call it like any AOT pipeline.
# The Strata parameters (beam size, seed, GPU...) come from STRATA_*
# environment variables at build time (see autoscheduler/src/Params.h).
include_guard(GLOBAL)

function(strata_add_pipeline NAME)
    cmake_parse_arguments(ARG "" "GENERATOR;GENERATOR_NAME;SCHEDULE;FEATURIZATION" "TARGETS;PARAMS" ${ARGN})
    if (NOT ARG_GENERATOR)
        message(FATAL_ERROR "strata_add_pipeline(${NAME}): GENERATOR is required")
    endif ()
    if (NOT TARGET Strata::Strata)
        message(FATAL_ERROR "strata_add_pipeline(${NAME}): the Strata::Strata plugin target is missing; "
                            "use find_package(Strata) or add_subdirectory() the Strata source tree first")
    endif ()
    if (NOT ARG_GENERATOR_NAME)
        set(ARG_GENERATOR_NAME ${NAME})
    endif ()
    if (NOT ARG_TARGETS)
        set(ARG_TARGETS host-cuda)
    endif ()
    set(extra "")
    if (ARG_SCHEDULE)
        list(APPEND extra SCHEDULE schedule_file)
    endif ()
    if (ARG_FEATURIZATION)
        list(APPEND extra FEATURIZATION featurization_file)
    endif ()
    add_halide_library(${NAME} FROM ${ARG_GENERATOR}
                       GENERATOR ${ARG_GENERATOR_NAME}
                       TARGETS ${ARG_TARGETS}
                       AUTOSCHEDULER Strata::Strata
                       PARAMS ${ARG_PARAMS}
                       ${extra})
    if (ARG_SCHEDULE)
        set(${ARG_SCHEDULE} "${schedule_file}" PARENT_SCOPE)
    endif ()
    if (ARG_FEATURIZATION)
        set(${ARG_FEATURIZATION} "${featurization_file}" PARENT_SCOPE)
    endif ()
endfunction()
