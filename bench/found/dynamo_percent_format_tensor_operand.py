# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# printf-style formatting of a tensor inside a tuple, `"loss=%.3f" % (t.sum(),)` (or of a
# SymInt, `"%d rows" % x.shape[0]` under dynamic=True): Dynamo's `nb_remainder_impl`
# (torch/_dynamo/variables/constant.py) returns NotImplemented for any operand that is not a
# constant, and the generic binary op turns that into a simulated TypeError instead of a graph
# break. A logging helper that guards its formatting with `except TypeError` takes that
# branch, silently, with any backend (even "eager"): the message differs from eager's.
import torch


def fn(x):
    loss = (x * x).sum()
    try:
        note = "loss=%.3f" % (loss,)  # noqa: UP031 (printf-style is the point)
    except TypeError:
        note = "loss=?"
    return loss, note


def get_inputs():
    return [torch.arange(4.0)]


if __name__ == "__main__":
    (x,) = get_inputs()
    print("eager:", fn(x), "compiled:", torch.compile(fn, backend="eager")(x))
