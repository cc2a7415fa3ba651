# pytorch/pytorch#198095 (synthetic base of aliased inputs, a view output regenerated from
# it): one tensor passed twice, one use mutated in place, a transposed view of the other
# returned. AOTAutograd regenerates the output from the synthetic base and fails:
# "IndexError: Dimension out of range" in gen_alias_from_base. torchsmith's reduced form of a
# default-mix finding; the issue's own form returns a wrongly offset view.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y3):
        out1 = x.transpose(0, 1)
        y3.zero_()
        return out1


def get_inputs():
    x = torch.randn(1, 1)
    return [x, x]
