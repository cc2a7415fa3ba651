# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings, Dynamo: two torch.compiler.nested_compile_region functions made by one
# factory (same code object, different closure cells or defaults) called in one compiled frame:
# the second call reuses the first one's traced subgraph. `times2(x) + 10 * times3(x)` is 22x
# compiled, 32x eager (gradients alike). variables/invoke_subgraph.py keys the reuse cache on
# fn.__code__, and is_reusable() compares argument sources only, never the function's closure
# or __defaults__. Wrong from backend="eager" on.
import torch


def make(scale):
    @torch.compiler.nested_compile_region
    def region(x):
        return x * scale

    return region


times2, times3 = make(2.0), make(3.0)


def fn(x):
    return times2(x) + 10 * times3(x)


def get_inputs():
    return [torch.ones(3)]
