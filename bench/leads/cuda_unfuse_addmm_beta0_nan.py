"""Lead (ninth pass, read, not run: no GPU lent): the default-on post-grad rewrite
`unfuse_bias_add_to_pointwise` (GPU only: `should_prefer_unfused_addmm` checks `is_gpu`) turns
`addmm(inp, a, b, beta=beta, alpha=alpha)` whose users are all pointwise into
`beta * inp + alpha * (a @ b)`. With `beta=0`, `addmm` ignores `inp` ("nan and inf in it will
not be propagated", its documentation), but `0 * inp` is NaN where `inp` is NaN or inf: the
compiled result should have NaNs where eager has none. On CPU the rewrite does not run and
`addmm(..., beta=0)` is exact (checked: addmm, baddbmm, addmv, addr, small and large).
Open: run on a GPU (`bash bench/cuda_run.sh` or `torchsmith check --device cuda`).
"""

import torch


def fn(inp, a, b):
    return torch.relu(torch.addmm(inp, a, b, beta=0, alpha=2))  # a pointwise user


def get_inputs():
    g = torch.Generator().manual_seed(0)
    inp = torch.full((16, 32), float("nan"))
    return [inp, torch.randn(16, 64, generator=g), torch.randn(64, 32, generator=g)]
