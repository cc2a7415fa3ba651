"""oracle/outputs.py: leaves of structured outputs (dataclasses, named tuples, dicts, HF-style
outputs, cache objects, cycles) and where two runs differ."""

import collections
import dataclasses
from typing import NamedTuple

import torch

from torchsmith.oracle.compare import compare, identical
from torchsmith.oracle.outputs import MAX_DEPTH, Opaque, Seen, difference, flatten, structure
from torchsmith.verdict import Verdict


@dataclasses.dataclass
class Out:
    logits: torch.Tensor
    loss: float | None = None


class Pair(NamedTuple):
    a: torch.Tensor
    n: int


class Layer:
    def __init__(self, k, v):
        self.keys, self.values, self.device = k, v, torch.device("cpu")


class Cache:
    def __init__(self, kvs):
        self.layers = [Layer(k, v) for k, v in kvs]
        self.kind = type(self)


class SlotCache:
    __slots__ = ("key_cache", "seen")

    def __init__(self, t):
        self.key_cache, self.seen = [t], 3


@dataclasses.dataclass
class HFOutput(collections.OrderedDict):  # ModelOutput is both a dataclass and an OrderedDict
    logits: torch.Tensor | None = None

    def __post_init__(self):
        self["logits"] = self.logits


def paths(obj, prefix="out"):
    return [p for p, _ in flatten(obj, prefix)]


def test_dataclass_namedtuple_and_dict_leaves():
    t = torch.ones(2)
    assert paths(Out(t, 0.5)) == ["out.logits", "out.loss"]
    assert paths(Pair(t, 3)) == ["out[0]", "out[1]"]
    assert structure(Pair(t, 3)) == "Pair(Tensor, number)"
    assert paths({"b": t, "a": [t, None]}) == ["out['a'][0]", "out['a'][1]", "out['b']"]
    assert paths(HFOutput(logits=t)) == ["out['logits']"]
    assert paths(torch.Size([2, 3])) == ["out[0]", "out[1]"]


def test_cache_object_is_walked_to_its_tensors():
    k, v = torch.randn(2, 3), torch.randn(2, 3)
    leaves = dict(flatten({"cache": Cache([(k, v)])}))
    assert leaves["out['cache'].layers[0].keys"] is k
    assert leaves["out['cache'].layers[0].values"] is v
    assert leaves["out['cache'].layers[0].device"] == torch.device("cpu")
    assert isinstance(leaves["out['cache'].kind"], Opaque)  # a class: by name, not walked
    assert paths(SlotCache(k)) == ["out.key_cache[0]", "out.seen"]


def test_two_runs_with_distinct_equal_cache_objects_are_identical():
    k = torch.randn(2, 3)
    a = Out(k, None), Cache([(k, k * 2)]), lambda x: x
    b = Out(k.clone(), None), Cache([(k.clone(), k * 2)]), lambda x: x
    assert identical(a, b)
    assert compare(a, b, None, 1e-4).verdict is Verdict.PASS


def test_difference_names_the_path_and_the_size():
    k = torch.ones(4)
    a, b = Cache([(k, k)]), Cache([(k, k + torch.tensor([0, 0, 0.5, 0]))])
    d = difference(a, b)
    assert d["output"] == "out.layers[0].values"
    assert d["differ"] == 1 and d["max_abs"] == 0.5 and abs(d["max_rel"] - 0.5 / 1.5) < 1e-12
    longer = difference(Cache([(k, k)]), Cache([(k, k), (k, k)]))
    assert longer["output"] == "out.layers[1].device"  # attributes in name order
    assert difference(Pair(k, 1), Pair(k, 2)) == {"output": "out[1]", "first": "1", "second": "2"}


def test_compare_finds_a_wrong_tensor_inside_a_cache():
    k = torch.randn(8, 8)
    j = compare(Cache([(k, k)]), Cache([(k, k + 1)]), None, 1e-4)
    assert j.verdict is Verdict.MISMATCH and j.evidence["output"] == "out.layers[0].values"


def test_a_cycle_ends_in_a_seen_leaf():
    c = Cache([(torch.ones(1), torch.ones(1))])
    c.layers[0].parent = c
    c.me = c
    leaves = dict(flatten(c))
    assert leaves["out.me"] == Seen("out")
    assert leaves["out.layers[0].parent"] == Seen("out")
    twin = Cache([(torch.ones(1), torch.ones(1))])
    twin.layers[0].parent = twin
    twin.me = twin
    assert identical(c, twin)


def test_a_shared_object_is_walked_at_each_path_and_depth_is_bounded():
    t = torch.ones(1)
    shared = [t]
    assert paths((shared, shared)) == ["out[0][0]", "out[1][0]"]
    assert identical((shared, shared), ([t], [t]))
    deep: list = [t]
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    (leaf,) = flatten(deep)
    assert isinstance(leaf[1], Opaque)
