# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Known in passing: PR #144956's review notes `format()` does not support dynamic shapes and
# turns its test's dynamic run off; no issue. Not counted as new.
# Found by a campaign of the python family (seed 52000, reduced there to `format(x.shape)` under
# dynamic=True): the builtin `format(n)` of a size, no spec, on the second call with another size
# (automatic dynamic shapes make it a SymInt): Dynamo's handler of the builtin folds it as a
# constant and calls `as_python_constant()` on the symbolic size: "SymNodeVariable() is not a
# constant" (InternalTorchDynamoError, a crash, no graph break, with any backend) where eager
# gives "5"; `format(x.shape)` alike. `"{}".format(n)`, `str(n)` and f-strings without a spec
# pass. The same handler as the eleventh pass's `format(n, "b")` find (a spec dropped), another
# defect: no symbolic argument is handled at all.
import torch


def fn(x):
    return x + 1, format(x.shape[0])


def get_calls():
    return [[torch.ones(4)], [torch.ones(5)]]
