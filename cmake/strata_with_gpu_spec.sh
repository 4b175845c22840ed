#!/usr/bin/env bash
# Runs a command with @SM_COUNT@ in its arguments replaced by the SM count of
# the GPU Strata schedules TARGET for (strata-gpu-spec, the plugin's own
# choice). Build rules use it to give Halide's autoschedulers the same GPU as
# Strata (Anderson2021's autoscheduler.parallelism), from one source of truth.
#
# usage: strata_with_gpu_spec.sh GPU_SPEC_TOOL TARGET -- COMMAND ARGS...
set -euo pipefail
[ $# -ge 4 ] && [ "$3" = "--" ] || { echo "usage: $0 GPU_SPEC_TOOL TARGET -- COMMAND ARGS..." >&2; exit 2; }
tool=$1 target=$2
shift 3
sm_count=$("$tool" --target "$target" --field sm_count) || {
  echo "strata_with_gpu_spec.sh: $tool could not give the SM count for $target" >&2; exit 1; }
args=()
for a in "$@"; do args+=("${a//@SM_COUNT@/$sm_count}"); done
exec "${args[@]}"
