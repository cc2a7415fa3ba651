# pytorch/pytorch#141017 (open; also #185464, closed; PRs #186074 and #189552 fix the
# decomposition after 2.13.0): the Python decomposition of multilabel_margin_loss_forward, which
# AOTAutograd uses (aot_eager already shows it), lets the target slots after the first -1 still
# add margin terms (gathering class 0); eager stops at the first -1. A row that starts with -1
# (no labels) gives 0 in eager and a positive loss compiled. Met by torchsmith's cpp-tuning
# campaign (tenth pass), default settings.
import torch
import torch.nn.functional as F


def fn(x, target):
    return F.multilabel_margin_loss(x, target, reduction="none")


def get_inputs():
    x = torch.tensor([[0.5, 0.2, 0.1, -0.3, 0.9], [1.0, -1.0, 0.5, 0.3, -0.2]])
    target = torch.tensor([[-1, 3, -1, 1, 0], [0, 1, -1, -1, -1]])
    return [x, target]
