"""Issue 27: a model returns what HuggingFace models return: a dataclass holding a cache
object whose layers keep key/value tensors as attributes, plus a named tuple and a dict.

Two eager runs build two distinct cache objects holding equal tensors: the judge walks them and
compares the tensors inside (``out.cache.layers[0].keys``), never the objects' identity.
"""

import dataclasses
from typing import NamedTuple

import torch
import torch.nn as nn


class Layer:
    def __init__(self):
        self.keys = None
        self.values = None
        self.is_initialized = False


class Cache:
    def __init__(self, n):
        self.layers = [Layer() for _ in range(n)]
        self.owner = self  # a cycle, as caches sometimes hold


class Stats(NamedTuple):
    mean: torch.Tensor
    count: int


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    cache: Cache
    stats: Stats
    extra: dict


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = nn.Linear(8, 8)
        self.v = nn.Linear(8, 8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        cache = Cache(2)
        h = x
        for layer in cache.layers:
            layer.keys = torch.relu(self.k(h))
            layer.values = torch.relu(self.v(h))
            layer.is_initialized = True
            h = h + layer.keys * layer.values
        logits = self.head(h)
        stats = Stats(logits.mean(0), logits.shape[0])
        return Output(logits, cache, stats, {"dtype": logits.dtype, "last": h})


def get_inputs():
    return [torch.randn(5, 8)]
