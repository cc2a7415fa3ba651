# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `except MyError:` where `MyError` is an ABC with `MyError.register(OtherError)`: CPython
# matches an exception by its real type (`PyType_IsSubtype`, not `issubclass`), so an
# `OtherError` is not caught there; Dynamo's `check_if_exc_matches`
# (torch/_dynamo/symbolic_convert.py) calls `issubclass`, which honours virtual subclasses:
# the wrong handler runs (x + 1 for x + 2), with any backend (even "eager"), fullgraph too.
import abc

import torch


class MyError(Exception, abc.ABC):
    pass


class OtherError(Exception):
    pass


MyError.register(OtherError)


def fn(x):
    try:
        raise OtherError("o")
    except MyError:
        return x + 1
    except OtherError:
        return x + 2


def get_inputs():
    return [torch.ones(1)]
