# Written from the facts of https://github.com/pytorch/pytorch/issues/175855 (not copied).
# ruff: noqa
# A generator iterates over a list while appending to it; Python's list iterator sees
# the appended items (sum 1 + 2 + 3 = 6) but Dynamo's iteration did not (result 1).
import torch
import torch.nn as nn


class Grow(nn.Module):
    def forward(self, x):
        vals = [x.sum()]

        def walk():
            for item in vals:
                if len(vals) < 3:
                    vals.append(item + 1)
                yield item

        return torch.stack(list(walk())).sum()


m = Grow()
x = torch.ones(1)
out_eager = m(x)
out_comp = torch.compile(m)(x)
print("eager:", out_eager)
print("compiled:", out_comp)
torch.testing.assert_close(out_comp, out_eager)
