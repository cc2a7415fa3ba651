"""The Python constructs a program uses (torchsmith.program.constructs): what signs a wrong
output at the Dynamo stage."""

from hypothesis import given
from hypothesis import strategies as st

from torchsmith.program.constructs import python_constructs

SOURCE = """
import itertools
from collections import OrderedDict as OD
import enum
import torch


class Mode(str, enum.Enum):
    A = "a"


class Box:
    def __contains__(self, v):
        return 1


def fn(x, w):
    try:
        s = "%d" % x.shape[0]
    except TypeError:
        s = f"{w:.3f}"
    fn.calls = 1
    d = OD(a=1)
    d.move_to_end("a")
    return sum(a * b for a, b in zip(itertools.repeat(x, times=2), w)), format(3, "b"), (1).__eq__(1.0)


def get_inputs():
    return [torch.ones(2), [1.0, 2.0]]


if __name__ == "__main__":
    print(vars(fn))
"""


def test_each_kind_of_construct_is_named_once():
    assert python_constructs(SOURCE) == [
        ".__eq__",
        "base:enum.Enum",
        "base:str",
        "collections.OrderedDict",
        "def:__contains__",
        "enum.Enum",
        "except:TypeError",
        "format",
        "format-spec",
        "itertools.repeat(times=)",
        "move_to_end",
        "set:function-attribute",
        "str%",
        "sum",
        "zip",
    ]  # ``vars`` is only in the __main__ block; ``itertools`` alone is covered


def test_a_rebound_builtin_is_not_the_builtin():
    src = "def len(x):\n    return 1\n\ndef fn(x):\n    return len(x) + abs(x)\n"
    assert python_constructs(src) == ["abs"]


@given(st.text(max_size=60))
def test_any_text_gives_a_sorted_list_without_duplicates(text):
    out = python_constructs(text)
    assert out == sorted(set(out))


def test_generators_and_with_blocks_are_constructs():
    src = (
        "import torch\n\n\ndef gen(x):\n    with torch.no_grad():\n        yield x\n\n\n"
        "def fn(x, ctx):\n    with ctx:\n        return next(gen(x))\n"
    )
    assert python_constructs(src) == ["next", "with", "with:torch.no_grad", "yield"]


def test_a_call_keeps_only_keywords_that_are_its_own_parameters():
    """``maxlen`` is deque's, ``times`` repeat's; a partial's ``c=`` belongs to the wrapped
    function and an OrderedDict's ``a=`` is data: both left out. A partial's ``keywords`` read
    is a construct."""
    src = (
        "import collections\nimport functools\nimport itertools\n\n\n"
        "def fn(x):\n    d = collections.deque(maxlen=2)\n"
        "    p = functools.partial(max, c=3)\n    o = collections.OrderedDict(a=1)\n"
        "    return x, d, p.keywords, o, itertools.repeat(x, times=2)\n"
    )
    assert python_constructs(src) == [
        ".keywords",
        "collections.OrderedDict",
        "collections.deque(maxlen=)",
        "functools.partial",
        "itertools.repeat(times=)",
    ]


def test_a_module_outside_the_resolvable_set_is_never_imported():
    """Keywords of callables in unknown modules are kept as they are; naming a module never
    imports it in the tool's process (``antigravity`` would open a browser)."""
    import sys

    src = "import antigravity\n\n\ndef fn(x):\n    return antigravity.fly(x, height=2)\n"
    had = "antigravity" in sys.modules
    assert python_constructs(src) == ["antigravity.fly(height=)"]
    assert ("antigravity" in sys.modules) == had
