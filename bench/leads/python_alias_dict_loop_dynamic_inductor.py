# A lead, not a claimed bug (twelfth pass, default-mix check run `torchsmith fuzz --time 5m --seed 53000
# --no-reduce --out /tmp/mix12`, seed 53017, reduced with `torchsmith reduce FINDING --time-budget 90`):
# Inductor with dynamic=True is off fp64 by 0.8 where eager and aot_eager agree; the standalone
# repro reproduces. Not yet judged or searched: dropping the dict loop makes it pass, so the
# input mutation after the read (x.add_ after h = x * 0.5) alone is not it; #198270's family?
# `torchsmith check` here: off fp64 by 5.3e35 at inductor (garbage values: an unwritten buffer?).
import torch


def fn(x, y1, d2):
    h = x
    if all(s > 1 for s in h.shape):
        h = h * 0.5
    x.add_(0.5)
    h = h + y1.mean() * 0.5
    for k, v in d2.items():
        h = h + v if k == "a" else h - 0.5 * v
    vals3 = [h.mean(-1)]
    for item in vals3:
        if len(vals3) < 3:
            vals3.append(item * 0.5 + 1.0)
    h = h + torch.stack(vals3).sum(0).unsqueeze(-1) * 0.25
    return h


def get_inputs():
    g = torch.Generator().manual_seed(5010)
    x = torch.randn(2, 3, generator=g)
    return [
        x,
        torch.randn(4, 3, generator=g),
        {"c": torch.randn(3, generator=g), "a": torch.randn(3, generator=g)},
    ]


compile_kwargs = {"dynamic": True}
