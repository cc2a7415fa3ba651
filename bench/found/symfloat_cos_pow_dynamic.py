# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Under dynamic shapes, Python's ** on a float computed by math.cos (or math.sin) of a size
# fails in Dynamo's fake-tensor run: "call_function <built-in function pow>
# (OpaqueUnaryFn_cos(ToFloat(s..)), 2): got RuntimeError('Expected cond to be True, but got
# False.')". Any exponent fails (0, 2, 0.0); (n * 0.5) ** 2 and float(n) ** 2 compile. The
# symbolic float pow seems to require a base it can prove non-negative, which a cosine is not
# (Python's float ** int has no such restriction). Even backend="eager" fails.
# torchsmith checks it as a program (`torchsmith check` this file: crash at dynamo).
import math

import torch


def fn(x):
    return x * math.cos(x.shape[0]) ** 2


def get_inputs():
    return [torch.ones(3)]


compile_kwargs = {"dynamic": True}


if __name__ == "__main__":
    (x,) = get_inputs()
    print("eager   ", fn(x))
    print("compiled", torch.compile(fn, dynamic=True, backend="eager")(x))  # raises
