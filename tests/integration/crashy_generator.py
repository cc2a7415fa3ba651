"""A test generator: fixed programs per seed, some of which segfault, hang or eat memory.

Usable by name in a campaign (``--generator tests.integration.crashy_generator:CrashyGenerator``)
or as an object passed to :class:`torchsmith.campaign.loop.Campaign`.
"""

from __future__ import annotations

from pathlib import Path

from torchsmith.generate.protocol import GenContext
from torchsmith.program.format import Program
from torchsmith.program.load import load_program, program_from_source

CRASHY = Path(__file__).parent.parent / "data" / "crashy"

CLEAN = """import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.{op}(x) * {k}


def get_inputs():
    return [torch.randn(8, {k})]
"""

#: seed -> what that seed yields; seeds past the end repeat the clean ones.
PLAN = ["clean", "segfault", "clean", "hang", "runaway_alloc", "clean", "none", "clean"]


class CrashyGenerator:
    name = "crashy"

    def __init__(self, plan: list[str] | None = None) -> None:
        self.plan = list(plan or PLAN)

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        kind = self.plan[seed % len(self.plan)]
        if kind == "none":
            return None
        if kind == "clean":
            op = ("sin", "cos", "tanh")[seed % 3]
            return program_from_source(CLEAN.format(op=op, k=seed + 1), name=f"clean_{seed}")
        return load_program(CRASHY / f"{kind}.py")
