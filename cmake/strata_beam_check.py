#!/usr/bin/env python3
"""The monotone-beam check of one app (ctest app.<app>.strata.beam).

Strata schedules the app's generator at each beam width (the schedule only;
nothing is compiled), and the predicted time must never grow with the width.
The search hands over the cheapest priced schedule of every width it ran and
the autoscheduler keeps the cheapest one Halide accepts, so a wider beam can
only answer the same or better, after Halide's repairs too. Prints one line
per width; each generator's log stays in --log.

usage: strata_beam_check.py --app APP --log DIR [--widths "8 32 128"] -- GENERATOR ARGS...
"""
import argparse
import os
import sys
from pathlib import Path

from strata_generator_run import generator_command, log_tail, run_logged

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import strata_summary  # noqa: E402  (the one parser of Strata's summary line)


def main():
    parser = argparse.ArgumentParser(usage=__doc__.strip().splitlines()[-1])
    parser.add_argument("--app", required=True)
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--widths", default="8 32 128")
    parser.add_argument("generator", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = generator_command(parser, args.generator)
    args.log.mkdir(parents=True, exist_ok=True)

    environment = dict(os.environ, STRATA_VERBOSE="1")
    previous = None  # (width, predicted ms)
    for width in args.widths.split():
        log = args.log / f"{args.app}.beam{width}.log"
        status = run_logged(command + [f"autoscheduler.beam_size={width}"], log, env=environment)
        if status != 0:
            sys.exit(f"{args.app}: the generator failed at beam {width} (exit {status}, log: {log}):\n{log_tail(log)}")
        predicted = strata_summary.parse(log.read_text(errors="replace")).get("predicted_ms")
        if predicted is None:
            sys.exit(f"{args.app}: no predicted time in Strata's summary at beam {width} (log: {log})")
        print(f"{args.app}: beam {width} predicts {predicted:g} ms")
        if previous and predicted > previous[1]:
            sys.exit(f"{args.app}: beam {width} predicts worse than beam {previous[0]} "
                     f"({predicted:g} ms > {previous[1]:g} ms)")
        previous = (width, predicted)


if __name__ == "__main__":
    main()
