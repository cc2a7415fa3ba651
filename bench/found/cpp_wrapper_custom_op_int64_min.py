# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, with
# `cpp_wrapper=True`. A custom op with an `int` argument of -2**63 (INT64_MIN, a common
# sentinel): the C++ wrapper prints it as the literal `-9223372036854775808L`
# (`val_to_arg_str_for_prim_type`), which C++ parses as the negation of 9223372036854775808L,
# a literal too large for `long` that g++ types `__int128`; on the StableIValue path
# (`torch::stable::detail::from(...)`) that fails to compile: "static assertion failed:
# StableLibrary stack does not support parameter types larger than 64 bits". The Python
# wrapper and AOTInductor pass.
import torch

MIN = -(2**63)


@torch.library.custom_op("torchsmith_found::add_flag", mutates_args=())
def add_flag(x: torch.Tensor, n: int) -> torch.Tensor:
    return x + (n == MIN)


@add_flag.register_fake
def _(x, n):
    return torch.empty_like(x)


def fn(x):
    return add_flag(x.sin(), MIN)


def get_inputs():
    return [torch.zeros(3)]


compile_config = {"inductor.cpp_wrapper": True}
