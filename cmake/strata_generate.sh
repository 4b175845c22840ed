#!/usr/bin/env bash
# Runs one Halide generator invocation for the verification build and never
# fails the build: when the generator fails (as Halide's own autoschedulers
# do on some apps), it leaves a stub object whose metadata function returns
# null, placeholder text outputs, the generator's log, and a report saying so.
# The tests then report the failure as that variant's result.
#
# usage: strata_generate.sh --name NAME --function FN --outdir DIR --cc CC
#            --report FILE.json --log FILE [--timeout SECONDS] -- GENERATOR ARGS...
set -u
name="" function="" outdir="" cc="" report="" log="" limit=1200
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --function) function=$2; shift 2 ;;
    --outdir) outdir=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "strata_generate.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$name" ] && [ -n "$function" ] && [ -n "$outdir" ] && [ -n "$report" ] && [ -n "$log" ] || {
  echo "strata_generate.sh: --name, --function, --outdir, --report and --log are required" >&2; exit 2; }

mkdir -p "$outdir"
start=$(date +%s.%N)
timeout "$limit" "$@" >"$log" 2>&1
status=$?
end=$(date +%s.%N)
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')

if [ $status -eq 0 ] && [ -s "$outdir/$name.o" ]; then
  printf '{"status": "ok", "generator_seconds": %s}\n' "$seconds" >"$report"
  exit 0
fi

reason="generator exited with status $status"
[ $status -eq 124 ] && reason="generator timed out after ${limit}s"
echo "strata_generate.sh: $name: $reason (log: $log)" >&2
tail -n 5 "$log" >&2
stub="$outdir/$name.stub.c"
cat >"$stub" <<STUB
/* $name: the generator failed ($reason); see $log. */
#include <stddef.h>
int ${function}_argv(void **args) { (void)args; return -1; }
const void *${function}_metadata(void) { return NULL; }
STUB
"$cc" -c "$stub" -o "$outdir/$name.o"
for ext in h stmt schedule.h; do
  echo "// generation of $name failed: $reason; see $log" >"$outdir/$name.$ext"
done
escaped=$(tail -n 3 "$log" | tr '\n"\\' "  /" | cut -c1-400)
printf '{"status": "failed", "reason": "%s", "generator_seconds": %s, "log_tail": "%s"}\n' \
  "$reason" "$seconds" "$escaped" >"$report"
exit 0
