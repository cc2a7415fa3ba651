# pytorch/pytorch#189518 (the pointless-cumsum pattern): cumsum of a constant tensor with
# dtype= returns the constant's dtype under Inductor (here int64 instead of float64), because
# the pattern that replaces a cumsum of a full() ignores the dtype argument. torchsmith's
# reduced form of a default-mix finding (the issue's own form uses ones()).
import torch


def fn():
    return torch.cumsum(torch.full((0,), 0), dim=0, dtype=torch.float64)


def get_inputs():
    return []
