"""Run NNSmith's fuzzer unchanged and count what it tested (run under NNSmith's own venv).

``bench/peer.py`` starts this file with NNSmith's Python and NNSmith's own command-line
arguments (hydra overrides). It wraps three NNSmith functions to count, without changing what
they do: the compute operators of each generated graph (``GraphIR.n_compute_inst``), the test
cases evaluated, and the bugs NNSmith reported. The counts go to ``$PEER_STATS`` (JSON) when the
fuzzing loop ends.
"""

from __future__ import annotations

import json
import os
import time

from nnsmith.cli import fuzz
from nnsmith.materialize.torch import TorchModel

STATS = {"tests": 0, "ops": 0, "bugs": 0, "failed_to_make": 0, "wall_s": 0.0}
_last_ops = [0]

_from_gir = TorchModel.from_gir.__func__


def _counting_from_gir(cls, ir, **kwargs):
    _last_ops[0] = ir.n_compute_inst()
    return _from_gir(cls, ir, **kwargs)


TorchModel.from_gir = classmethod(_counting_from_gir)

_validate = fuzz.FuzzingLoop.validate_and_report


def _counting_validate(self, testcase):
    ok = _validate(self, testcase)
    STATS["tests"] += 1
    STATS["ops"] += _last_ops[0]
    return ok


fuzz.FuzzingLoop.validate_and_report = _counting_validate

_run = fuzz.FuzzingLoop.run


def _counting_run(self):
    t0 = time.monotonic()
    try:
        _run(self)
    finally:
        STATS["wall_s"] = time.monotonic() - t0
        STATS["bugs"] = self.status.n_bugs
        STATS["failed_to_make"] = self.status.n_fail_make_test
        with open(os.environ["PEER_STATS"], "w") as f:
            json.dump(STATS, f)


fuzz.FuzzingLoop.run = _counting_run

if __name__ == "__main__":
    fuzz.main()
