# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (gloo, one process).
# Default settings (optimize_ddp on): torch.compile of a DistributedDataParallel module built
# with bucket_cap_mb below 1 (0.5; 0.999; bucket_cap_mb_list=[0.25, 0.5]) fails at compile time:
# "AssertionError: First bucket should be smaller/equal to other buckets to get comms warmed up
# ASAP". convert_frame builds the DDPOptimizer without a first-bucket cap, so it falls back to
# dist._DEFAULT_FIRST_BUCKET_BYTES (1 MiB) > the user's cap (backends/distributed.py); eager DDP
# sets the first bucket to the user's cap. The failed compile also leaves
# DDP._active_ddp_module set, so later compiles of plain modules in the process fail alike
# until garbage collection. From backend="eager" on. A plain script: the process group is state.
import socket

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

if __name__ == "__main__":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    torch.manual_seed(0)
    m = DDP(nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4)), bucket_cap_mb=0.5)
    x = torch.randn(4, 8)
    want = m(x)
    bad = False
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        try:
            err = (torch.compile(m, backend=backend)(x) - want).abs().max().item()
            print(f"{backend:9s} off eager by {err:.3g}")
        except Exception as e:
            bad = True
            print(f"{backend:9s} raised {type(e).__name__}: {str(e).splitlines()[0][:90]}")
    dist.destroy_process_group()
    print("BUG: a DDP module eager runs does not compile" if bad else "ok")
