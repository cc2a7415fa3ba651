# JUDGED (thirteenth pass): not a bug of this program's own. The failure needs an on-disk
# compile cache holding the artifact of the same graph compiled for ALIASED inputs (the campaign
# draws x and y1 as views of one base in other programs): torch 2.13's AOTAutograd cache key omits
# input aliasing (known: PR #184694, #139789's family), so the synthetic-base artifact runs on
# plain inputs and reads garbage. With TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 or a fresh
# TORCHINDUCTOR_CACHE_DIR it passes; `torchsmith check` now names such a stage `compile-cache`
# (the cache probe, check.cache_probe; tests/integration/test_cache_probe.py).
#
# Originally: a lead, not a claimed bug (twelfth pass, default-mix check run `torchsmith fuzz --time 5m --seed 53000
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
