# A failure that shows on every other load only: a counter kept on the `sys` module (it lives
# as long as the worker process) decides whether fn builds a set literal, which Dynamo's
# planted BUILD_SET fault turns into a crash under fullgraph. A reducer must call it flaky.
import sys

import torch

sys.torchsmith_test_loads = getattr(sys, "torchsmith_test_loads", 0) + 1
ODD = sys.torchsmith_test_loads % 2 == 1


def fn(x):
    y = x * 2
    if ODD:
        return y + len({1, 2})
    return y


def get_inputs():
    return [torch.ones(3)]
