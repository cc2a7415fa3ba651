"""Issue 27: a ``torch.empty`` output next to a real result.

The empty tensor's values are undefined (not compared); its shape, dtype and strides are. The
result ``relu(x) * 2`` is compared as usual: correct compiled code passes.
"""

import torch


def fn(x):
    return torch.relu(x) * 2, torch.empty(4, 3)


def get_inputs():
    return [torch.randn(4, 3)]
