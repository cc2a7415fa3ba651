"""The ``keywords`` mutation: give an op a non-default keyword argument a rewrite may drop.

Inductor's pattern matcher keeps only the keywords a pattern names (``pattern_matcher.py``,
``CallFunction._match``), so a pattern traced without ``alpha`` also matches
``add(x, y, alpha=3.0)``, and its replacement silently computes ``x + y``: #167313 (the addmm
unfuse), #195442 (``batch_aten_sub``), #196577 (``decompose_addmm``), and this project's finds
(the post-grad ``addmm`` fusion, freezing's linear-bias and concat-linear rewrites). Like the
other operators (:mod:`torchsmith.generate.mutate.operators`) it edits syntax only; whether the
mutant still runs is decided by the eager check.
"""

from __future__ import annotations

import ast
import random

from torchsmith.generate.mutate.sites import Sites, anchors, expr, op_calls

# -- keywords a rewrite may drop ---------------------------------------------------------------
#: Non-default keyword values per op name (torch.X or a method): Inductor's pattern matcher keeps
#: only the keywords a pattern names, so a pattern traced without ``alpha`` also matches
#: ``add(..., alpha=3.0)`` and its replacement silently drops it (#167313, #195442, #196577).
KEYWORD_VALUES: dict[str, dict[str, tuple[str, ...]]] = {
    **{op: {"alpha": ("2.0", "-0.5", "3")} for op in ("add", "sub", "rsub")},
    **{
        op: {"alpha": ("0.5", "2.0"), "beta": ("0.0", "0.5", "2.0")}
        for op in ("addmm", "baddbmm", "addbmm", "addmv", "addr")
    },
    **{op: {"value": ("0.5", "-2.0")} for op in ("addcmul", "addcdiv")},
    **{
        op: {"dtype": ("torch.float64",)}
        for op in ("sum", "mean", "prod", "cumsum", "cumprod", "softmax", "log_softmax", "nansum")
    },
}


def _keyword_sites(s: Sites) -> list[tuple[str, ast.AST, str]]:
    out: list[tuple[str, ast.AST, str]] = []
    for node, kind, name in op_calls(s):
        free = [
            k for k in KEYWORD_VALUES.get(name, {}) if k not in {kw.arg for kw in node.keywords}
        ]
        if kind in {"torch", "method"} and free:
            out.append(("call", node, name))
    for a in anchors(s):
        st = a.body[a.index - 1] if a.index > 0 else None
        if (
            isinstance(st, ast.Assign)
            and isinstance(st.value, ast.BinOp)
            and isinstance(st.value.op, ast.Add | ast.Sub)
        ):
            out.append(("binop", st, "add" if isinstance(st.value.op, ast.Add) else "sub"))
    return out


def keywords(s: Sites, rng: random.Random) -> str | None:
    """Give an op a non-default keyword a rewrite may ignore: ``alpha``/``beta`` of ``add``,
    ``sub`` and the ``addmm`` family (``a + b`` becomes ``torch.add(a, b, alpha=k)``),
    ``value`` of ``addcmul``/``addcdiv``, ``dtype=`` of reductions, cumulative ops and softmax."""
    sites = _keyword_sites(s)
    if not sites:
        return None
    kind, node, name = rng.choice(sites)
    if kind == "binop":  # `v = a + b` -> `v = torch.add(a, b, alpha=k)`
        assert isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp)
        value = rng.choice(KEYWORD_VALUES[name]["alpha"])
        call = expr(f"torch.{name}(a, b, alpha={value})")
        assert isinstance(call, ast.Call)
        call.args = [node.value.left, node.value.right]
        node.value = call
        return f"keywords: {'+' if name == 'add' else '-'} -> torch.{name}(..., alpha={value})"
    assert isinstance(node, ast.Call)
    taken = {k.arg for k in node.keywords}
    kw = rng.choice([k for k in KEYWORD_VALUES[name] if k not in taken])
    value = rng.choice(KEYWORD_VALUES[name][kw])
    node.keywords.append(ast.keyword(kw, expr(value)))
    return f"keywords: {name}(..., {kw}={value})"
