# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, the export path.
# A custom op with a float argument of -inf (a mask fill value), through torch.export and
# AOTInductor: the proxy executor's call description is JSON written by export's serializer,
# which turns inf / -inf / NaN into the strings "Infinity" / "-Infinity" / "NaN"
# (torch/_export/serde/serialize.py, `_dataclass_to_dict`), while the C++ proxy executor reads
# `as_float` as a number: the package builds, and every call raises
# "[json.exception.type_error.302] type must be number, but is string". Eager, `ep.module()`,
# torch.compile and its C++ wrapper pass; a finite value passes. Any op run through the proxy
# executor with such a float alike (`c.sub(x, alpha=inf)` on complex tensors).
import torch


@torch.library.custom_op("torchsmith_found::fill_negative", mutates_args=())
def fill_negative(x: torch.Tensor, v: float) -> torch.Tensor:
    return x.masked_fill(x < 0, v)


@fill_negative.register_fake
def _(x, v):
    return torch.empty_like(x)


def fn(x):
    return fill_negative(x, float("-inf")).softmax(-1)


def get_inputs():
    return [torch.tensor([[-1.0, 2.0, 0.5, 3.0], [1.0, -2.0, 0.0, 1.5]])]


compile_kwargs = {"backend": "aoti"}
