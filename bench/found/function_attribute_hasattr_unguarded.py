# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# A compiled function that reads an attribute of its own function object
# (hasattr(fn, "shift"), getattr(fn, "gain", 1.0)) gets no guard on it: setting the attribute
# after the first call does not recompile, and the compiled function keeps returning the old
# result, silently (here 1.0 instead of 0.5). Any backend (even "eager"): Dynamo's guards.
# torchsmith checks it as a program (`torchsmith check` this file: mismatch at dynamo; the
# second call's before_call sets the attribute).
import torch


def fn(x):
    h = x * 1.0
    if hasattr(fn, "shift"):
        h = h - fn.shift
    return h


def get_calls():
    x = torch.ones(2)
    return [[x], [x]]


def before_call(i, target):
    if i == 1:
        fn.shift = 0.5
    elif hasattr(fn, "shift"):  # each run starts without it
        del fn.shift


if __name__ == "__main__":
    compiled = torch.compile(fn, backend="eager")
    x = torch.ones(2)
    print("first ", compiled(x), fn(x))
    fn.shift = 0.5
    print("second", compiled(x), "eager:", fn(x))  # compiled still subtracts nothing
