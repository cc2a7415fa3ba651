# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A custom op mutating a list of optional tensors (`Tensor(a!)?[]`), called with a None in the
# list: auto_functionalized_v2 starts the argument's base indices as a dict
# (`arg_to_base_index[arg_name] = {}`) and then appends to it: "AttributeError: 'dict' object
# has no attribute 'append'" at compile time (`aot_eager` already). With v2 off the v1 path
# fails too (`'NoneType' object has no attribute 'size'`; open PR #186766 guards that one).
import torch


@torch.library.custom_op("torchsmith_found::add_one_list_", mutates_args=("xs",))
def add_one_list_(xs: list[torch.Tensor | None]) -> None:
    for x in xs:
        if x is not None:
            x.add_(1)


def fn(a, b):
    a, b = a * 1, b * 1
    add_one_list_([a, None, b])
    return a + b


def get_inputs():
    return [torch.zeros(3), torch.ones(3)]
