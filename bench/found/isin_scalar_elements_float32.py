# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: the decomposition of `torch.isin(elements: Scalar, test_elements: Tensor)`
# (torch/_decomp/decompositions.py, `elements = torch.scalar_tensor(elements, device=...)`)
# makes the scalar a float32 tensor whatever its type: against float64 test values, 0.1 (a
# double) becomes 0.100000001 and is not found (eager True, compiled False; `invert=True` the
# reverse); an int 2**53 + 1 becomes 2**53 and is found where eager finds nothing; 1e300 fails
# to compile ("value cannot be converted to type float without overflow"). Same class as
# searchsorted_scalar_float64_boundaries.py, another decomposition.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, vocab, ids):
        return torch.isin(0.1, vocab), torch.isin(2**53 + 1, ids)


def get_inputs():
    return [
        torch.tensor([0.1, 0.5], dtype=torch.float64),
        torch.tensor([2**53, 5], dtype=torch.int64),
    ]
