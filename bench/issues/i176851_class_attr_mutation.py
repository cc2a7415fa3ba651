# Written from the facts of https://github.com/pytorch/pytorch/issues/176851 (not copied).
# ruff: noqa
# A compiled function reads a class attribute (a Python float). The attribute is changed
# between two calls; eager sees the new value, the compiled function kept the value
# captured at the first trace (no guard, no recompile).
import torch


class GlobalState:
    factor = 1.0


def fn(x):
    return x * GlobalState.factor


compiled_fn = torch.compile(fn)
x = torch.tensor([4.0])

GlobalState.factor = 1.0
print("first :", compiled_fn(x))

GlobalState.factor = 10.0
eager = fn(x)
compiled = compiled_fn(x)
print("second: eager", eager, "compiled", compiled)
assert torch.allclose(eager, compiled), f"eager={eager}, compiled={compiled}"
