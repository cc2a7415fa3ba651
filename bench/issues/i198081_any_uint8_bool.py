# pytorch/pytorch#198081 (open): torch.any on a uint8 tensor returns uint8 in eager (the
# legacy result type; torch.all keeps it under every backend) but bool under Inductor, whose
# own reduce_any lowering casts to bool. Silent: arithmetic on the result then differs.
import torch


def fn(x):
    return torch.any(x, dim=1), torch.all(x, dim=1)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 3, (4, 5), dtype=torch.uint8, generator=g)]
