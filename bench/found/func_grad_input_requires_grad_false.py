"""Inside `torch.func.grad` (and `vjp`, `jacrev`) the differentiated argument requires grad, and
eager code may branch on it. Under torch.compile Dynamo keeps the argument's variable with
`requires_grad=False` (functorch's `_set_tensor_requires_grad` runs in the graph, not through
Dynamo's `requires_grad_`), so the branch flips: gradient 3 for 2 (from `backend="eager"` on,
`fullgraph=True` alike)."""

import torch


def loss(r):
    return (r * (2.0 if r.requires_grad else 3.0)).sum()


def fn(x):
    return torch.func.grad(loss)(x)


def get_inputs():
    return [torch.ones(3)]
