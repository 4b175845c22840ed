"""Running an app's generator from a ctest script (strata_beam_check.py,
strata_lowered_on_gpu.py): the generator's command line after `--`, and one
run of it with its output in a log that a failure quotes.

Example:
    command = generator_command(parser, args.generator)
    status = run_logged(command + ["autoscheduler.beam_size=8"], log)
    if status != 0:
        sys.exit(f"the generator failed (exit {status}, log: {log}):\n{log_tail(log)}")
"""
import subprocess
from pathlib import Path


def generator_command(parser, remainder):
    """The generator's command: argparse's REMAINDER without its leading `--`."""
    command = remainder[1:] if remainder[:1] == ["--"] else remainder
    if not command:
        parser.error("no generator command after --")
    return command


def run_logged(command, log: Path, env=None):
    """Runs `command` with stdout and stderr in `log`; its exit status."""
    with open(log, "w") as out:
        return subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env).returncode


def log_tail(log: Path, lines=5):
    """The last lines of `log`, for a failure's message."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
