# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.distributed.is_initialized()` read in a function compiled before
# `init_process_group`: Dynamo constant-folds it (and `get_rank()`, `get_world_size()`) with no
# guard (torch/_dynamo/variables/torch.py puts them in `constant_fold_functions`, not in
# `constant_fold_functions_need_guards` beside `torch.cuda.is_initialized`): after the process
# group is initialized the compiled function keeps the non-distributed branch ([-1, -1] for
# [1, 1]), silently; a re-initialized rank is stale alike. A plain script: the state is a
# process group.
import tempfile

import torch
import torch.distributed as dist


def f(x):
    if dist.is_initialized():
        return x + 1
    return x - 1


if __name__ == "__main__":
    x = torch.zeros(2)
    cf = torch.compile(f)
    print("before init: eager", f(x).tolist(), "compiled", cf(x).tolist())
    dist.init_process_group(
        "gloo", store=dist.FileStore(tempfile.mktemp(), 1), rank=0, world_size=1
    )
    eager, compiled = f(x).tolist(), cf(x).tolist()
    print("after init:  eager", eager, "compiled", compiled)
    dist.destroy_process_group()
    print("BUG: the compiled function did not see the process group" if eager != compiled else "ok")
