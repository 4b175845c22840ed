#!/usr/bin/env python3
"""The lowered-code check of one app's Strata schedule for another GPU
(ctest app.<app>.strata.lowered_<gpu>).

The build checks the schedules Strata picks for the GPU of its CUDA target
(app.<app>.strata.lowered); a schedule picked for a GPU with other limits and
rates uses other tilings, placements and chunks, and what Halide builds from
those must match what the model priced just as well. Runs the app's generator
with autoscheduler.gpu=<gpu> and the lowered check on (nothing is compiled
past lowering's report), then strata-lowered-check on the report it wrote.

usage: strata_lowered_on_gpu.py --app APP --gpu GPU --out DIR --check TOOL -- GENERATOR ARGS...
"""
import argparse
import subprocess
import sys
from pathlib import Path

from strata_generator_run import generator_command, log_tail, run_logged


def main():
    parser = argparse.ArgumentParser(usage=__doc__.strip().splitlines()[-1])
    parser.add_argument("--app", required=True)
    parser.add_argument("--gpu", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--check", required=True, help="the strata-lowered-check executable")
    parser.add_argument("generator", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = generator_command(parser, args.generator)
    args.out.mkdir(parents=True, exist_ok=True)
    report = args.out / f"{args.app}.strata.{args.gpu}.lowered.json"
    report.unlink(missing_ok=True)
    log = args.out / f"{args.app}.strata.{args.gpu}.log"
    status = run_logged(command + [f"autoscheduler.gpu={args.gpu}", f"autoscheduler.lowered_check={report}"], log)
    if status != 0 or not report.exists():
        sys.exit(f"{args.app}: the generator for {args.gpu} failed (exit {status}, log: {log}):\n{log_tail(log)}")
    sys.exit(subprocess.run([args.check, "--app", args.app, "--variant", f"strata-{args.gpu}",
                             "--report", str(report)]).returncode)


if __name__ == "__main__":
    main()
