# A global changed between calls (before_call), with the planted relu accuracy fault
# (inductor.cpp.inject_relu_bug_TESTING_ONLY="accuracy", set by the test): three calls, a
# helper, a global the failure does not need; reduces to one call.
import torch

SCALE = 1.0
OFFSET = 0.5


def helper(v):
    w = v * SCALE
    return w - OFFSET


def fn(x, y, n):
    a = helper(x)
    b = torch.relu(a)
    c = y.sum() * n
    return b, c


def get_calls():
    torch.manual_seed(0)
    x = torch.randn(16, 32, dtype=torch.float64)
    y = torch.randn(12)
    call0 = [x, y, 1]
    call1 = [x, y, 2]
    call2 = [x, y, 3]
    return [call0, call1, call2]


def before_call(i, target):
    global SCALE
    if i == 0:
        SCALE = 1.0
    if i == 1:
        SCALE = 2.0
    if i == 2:
        SCALE = -1.0


compile_kwargs = {"fullgraph": True, "dynamic": False}
