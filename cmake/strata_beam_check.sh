#!/usr/bin/env bash
# The monotone-beam check of one app: Strata schedules the app's generator at
# each beam width (the schedule only; nothing is compiled), and the predicted
# time must never grow with the width. The search hands over the cheapest
# priced schedule of every width it ran and the autoscheduler keeps the
# cheapest one Halide accepts, so a wider beam can only answer the same or
# better — after Halide's repairs too. Prints one line per width.
#
# usage: strata_beam_check.sh --app APP --log DIR [--widths "8 32 128"] -- GENERATOR ARGS...
set -u
app="" logdir="" widths="8 32 128"
while [ $# -gt 0 ]; do
  case "$1" in
    --app) app=$2; shift 2 ;;
    --log) logdir=$2; shift 2 ;;
    --widths) widths=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "strata_beam_check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$app" ] && [ -n "$logdir" ] && [ $# -gt 0 ] || {
  echo "usage: $0 --app APP --log DIR [--widths \"8 32 128\"] -- GENERATOR ARGS..." >&2; exit 2; }
mkdir -p "$logdir"

previous="" previous_width=""
for width in $widths; do
  log="$logdir/$app.beam$width.log"
  if ! STRATA_VERBOSE=1 "$@" "autoscheduler.beam_size=$width" >"$log" 2>&1; then
    echo "$app: the generator failed at beam $width (log: $log):"
    tail -n 5 "$log"
    exit 1
  fi
  predicted=$(sed -n 's/.*: predicted \([0-9.eE+-]*\) ms.*/\1/p' "$log" | tail -n 1)
  if [ -z "$predicted" ]; then
    echo "$app: no predicted time in Strata's summary at beam $width (log: $log)"
    exit 1
  fi
  echo "$app: beam $width predicts $predicted ms"
  if [ -n "$previous" ] && awk -v a="$predicted" -v b="$previous" 'BEGIN { exit !(a > b) }'; then
    echo "$app: beam $width predicts worse than beam $previous_width ($predicted ms > $previous ms)"
    exit 1
  fi
  previous=$predicted previous_width=$width
done
