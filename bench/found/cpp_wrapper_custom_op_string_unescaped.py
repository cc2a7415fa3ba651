# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, with
# `cpp_wrapper=True`. A custom op with a `str` argument: the C++ wrapper pastes the Python
# string into C++ source as it is (`val_to_arg_str_for_prim_type`: `f'"{val}"'`; the boxed
# call's `c10::IValue(std::string(...))`; the Python-callback path's `PyUnicode_FromString`),
# with no escaping: a backslash sequence is read by the C++ compiler (`"a\\nb"`, 4 characters,
# arrives as "a<newline>b", 3: wrong values, silently), and a quote (`'say "hi"'`) is a C++
# compile error. The Python wrapper and AOTInductor (whose proxy executor serializes the
# arguments) pass the string intact.
import torch


@torch.library.custom_op("torchsmith_found::strlen_add", mutates_args=())
def strlen_add(x: torch.Tensor, s: str) -> torch.Tensor:
    return x + len(s)


@strlen_add.register_fake
def _(x, s):
    return torch.empty_like(x)


def fn(x):
    return strlen_add(x.sin(), "a\\nb")  # a, backslash, n, b: four characters


def get_inputs():
    return [torch.zeros(3)]


compile_config = {"inductor.cpp_wrapper": True}
