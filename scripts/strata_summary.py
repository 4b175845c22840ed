"""Reads Strata's one-line summary (STRATA_VERBOSE=1 on a generator's stderr,
the header comment of an emitted schedule):

  Strata: scheduled 7 Funcs as 4 kernels for a100: predicted 3.17684 ms,
  95310 candidates in 0.24 s (beam search 0.15 s, 3 lowering probes 0.09 s)

One parser for the scripts that tabulate it (bench-compile, bench-scaling).

Example:
  summary = parse(done.stderr)
  summary.get("predicted_ms"), summary.get("beam_s"), summary.get("probes")
"""
import re

_PREDICTED = re.compile(r"predicted ([0-9.eE+-]+) ms")
_SPLIT = re.compile(r"beam search ([0-9.eE+-]+) s, (\d+) lowering probes ([0-9.eE+-]+) s")


def parse(text):
    """The fields the text's last summary states: predicted_ms, beam_s,
    probes, probe_s; a field the text does not state is absent."""
    fields = {}
    predicted = _PREDICTED.findall(text)
    if predicted:
        fields["predicted_ms"] = float(predicted[-1])
    split = _SPLIT.findall(text)
    if split:
        beam, probes, probe = split[-1]
        fields.update(beam_s=float(beam), probes=int(probes), probe_s=float(probe))
    return fields
