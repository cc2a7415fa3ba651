# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Config space + the on-disk FX graph cache: with freezing and max_autotune choosing the C++ GEMM
# template, the template's pre-packed weight (made during lowering by
# V.graph.add_tensor_constant, cpp_gemm_template.py) is a graph constant derived from a frozen
# parameter but not marked frozen, so the cache entry stores its VALUE (output_code.py) while
# the key hashes frozen parameters by metadata only (codecache.py). A second process compiling
# the same model with other weights hits the entry and multiplies by the first model's packed
# weight: off fp64 by 50 (eager 0.06). With TORCHINDUCTOR_FX_GRAPH_CACHE=0 it is right.
# `torchsmith check` names the stage `compile-cache` (its cache probe). A plain script: the
# state is the cache folder two processes share.
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn

CONFIG = {"max_autotune": True, "max_autotune_gemm_backends": "CPP", "freezing": True}


class M(nn.Module):
    def __init__(self, seed):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w = nn.Parameter(torch.randn(64, 48, generator=g).to(torch.bfloat16))

    def forward(self, x):
        return x @ self.w


def one(seed):
    for k, v in CONFIG.items():
        setattr(torch._inductor.config, k, v)
    m = M(seed).eval()
    x = torch.randn(17, 64, generator=torch.Generator().manual_seed(99)).to(torch.bfloat16)
    ref = x.double() @ m.w.double()
    with torch.no_grad():
        eager, out = m(x), torch.compile(m)(x)
    e = (eager.double() - ref).abs().max().item()
    c = (out.double() - ref).abs().max().item()
    print(f"seed {seed}: eager off fp64 by {e:.3g}, compiled by {c:.3g}")
    return c > 100 * max(e, 1e-3)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(1 if one(int(sys.argv[1])) else 0)
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": tempfile.mkdtemp(prefix="stale-")}
    rcs = [subprocess.run([sys.executable, __file__, str(s)], env=env).returncode for s in (0, 1)]
    print("BUG: the second model ran with the first one's packed weight" if rcs[1] else "ok")
