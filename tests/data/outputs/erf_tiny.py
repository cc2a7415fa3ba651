"""Issue 27: ``erf`` of tiny values. erf(x) ~ 2x/sqrt(pi) near zero, and eager computes it to
an ulp. A compiled erf that is accurate only in absolute terms (error ~1e-7) is off by a
relative error up to 1 here, which ``same()`` at absolute tolerance cannot see: judged in ulps
against float64 (``oracle/ulps.py``).
"""

import torch


def fn(x):
    return torch.erf(x * 1e-20)


def get_inputs():
    return [torch.randn(64)]
