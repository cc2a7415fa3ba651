# forward builds a set literal: with dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY Dynamo
# cannot trace the BUILD_SET bytecode.
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        dims = {0, 1}
        return x.sum(dim=tuple(sorted(dims))) + x.mean()


def get_inputs():
    return [torch.randn(4, 5)]
