"""Data-dependent guard errors: the program's own (a program fault) or torch's (a lesser bug),
and the site that keys them. Messages as torch 2.13 writes them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from torchsmith import ddguard
from torchsmith.dedup import unwrap_message
from torchsmith.verdict import Category, CheckResult, Phase, Symptom, Verdict

TAIL = '\nFor more information, run with TORCH_LOGS="dynamic"\n'
REF = (
    "Could not guard on data-dependent expression Eq(u0, 0) (unhinted: Eq(u0, 0)).  "
    "(Size-like symbols: u0)\n\nconsider using data-dependent friendly APIs such as "
    "guard_or_false, guard_or_true and statically_known_true.\n\n"
    "Caused by: t = t.logsumexp(0, keepdim=True)  # <torchsmith:export_35>:24 in fn "
    "(_refs/__init__.py:911 in logsumexp)" + TAIL
)
LOWERING = (
    "LoweringException: GuardOnDataDependentSymNode: Could not guard on data-dependent "
    "expression Min(0, u0 - Min(1, u0)) < 0 (unhinted: Min(0, u0 - Min(1, u0)) < 0).  "
    "(Size-like symbols: u0)\n\nCaused by: (_inductor/ir.py:3639 in handle_negative_index)" + TAIL
)
HINT = (
    "LoweringException: GuardOnDataDependentSymNode: Could not extract specialized integer from "
    "data-dependent expression 3*Max(1, u0) (unhinted: 3*Max(1, u0)).  (Size-like symbols: u0)"
    "\n\n\nCaused by: (fx/experimental/_size_hinting.py:166 in _guarding_hint_or_throw_base)" + TAIL
)
USER = (
    "Could not guard on data-dependent expression u0 > 2 (unhinted: u0 > 2).  (Size-like "
    "symbols: u0)\n\nCaused by: if n > 2:  # <torchsmith:prog>:7 in fn" + TAIL
)


def test_a_guard_in_torchs_code_is_the_frameworks_and_keyed_by_its_site():
    ref = ddguard.parse(REF)
    assert ref == ddguard.DDE("framework", "_refs/__init__.py in logsumexp", "Eq(u0, 0)")
    low = ddguard.parse(LOWERING)
    assert low.owner == "framework" and low.site == "_inductor/ir.py in handle_negative_index"
    assert low.expression == "Min(0, u0 - Min(1, u0)) < 0"
    hint = ddguard.parse(HINT)
    assert hint.site == "fx/experimental/_size_hinting.py in _guarding_hint_or_throw_base"
    assert unwrap_message(REF) == "data-dependent guard in _refs/__init__.py in logsumexp"
    # one site, any expression and line number: one key
    other = REF.replace("Eq(u0, 0)", "Eq(u3, 0)").replace(":911 in", ":915 in")
    assert unwrap_message(other) == unwrap_message(REF)


def test_a_guard_in_the_programs_own_code_or_at_no_site_is_the_users():
    user = ddguard.parse(USER)
    assert user.is_users and user.site == "if n > 2:" and ddguard.site(USER) is None
    # Dynamo evaluating the program's `if`, non-strict export's tensor bool and its own frame
    dynamo = USER.replace("in fn\n", "in fn (_dynamo/variables/tensor.py:2606 in evaluate_expr)\n")
    assert ddguard.parse(dynamo).is_users and ddguard.parse(dynamo).site == "if n > 2:"
    bool_ = USER.replace(
        "if n > 2:  # <torchsmith:prog>:7 in fn",
        "(_export/non_strict_utils.py:1205 in __torch_function__)",
    )
    assert ddguard.parse(bool_).is_users
    own = USER.replace("if n > 2:  # <torchsmith:prog>:7 in fn", "(user_aoti.py:6 in fn)")
    assert ddguard.parse(own) == ddguard.DDE("user", "user_aoti.py:6 in fn", "u0 > 2")
    bare = "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1))."
    assert ddguard.parse(bare).is_users  # no site: conservative, no false alarm
    assert unwrap_message(USER) == USER  # not keyed as the compiler's


def test_the_chain_is_searched_and_a_bare_guard_type_is_the_users():
    class GuardOnDataDependentSymNode(RuntimeError):
        pass

    try:
        try:
            raise RuntimeError(LOWERING)
        except RuntimeError as inner:
            raise ValueError("backend raised") from inner
    except ValueError as outer:
        assert ddguard.classify(outer).owner == "framework"
    assert ddguard.classify(GuardOnDataDependentSymNode("no text")).is_users
    assert ddguard.classify(RuntimeError("boom")) is None


@given(st.text(max_size=300))
def test_a_message_without_the_guard_text_is_never_a_dde(text):
    if not any(t in text for t in ddguard.TEXT):
        assert ddguard.parse(text) is None and ddguard.site(text) is None


def test_a_framework_guard_is_a_lesser_crash():
    r = CheckResult(Verdict.CRASH, Phase.COMPILED, "x", {"kind": "data-dependent"})
    assert r.symptom is Symptom.DATA_DEPENDENT and r.category is Category.LESSER and r.is_bug
    plain = CheckResult(Verdict.CRASH, Phase.COMPILED, "x", {})
    assert plain.symptom is Symptom.EXCEPTION and plain.category is Category.BUG


def _raised_in_backend(inner: BaseException) -> BaseException:
    class InductorError(RuntimeError):
        pass

    try:
        try:
            raise inner
        except type(inner) as e:
            raise InductorError(str(e)) from e
    except InductorError as outer:
        return outer


def test_inside_the_backend_a_value_read_is_a_crash_and_a_bare_guard_is_torchs():
    class DataDependentOutputException(RuntimeError):
        pass

    class GuardOnDataDependentSymNode(RuntimeError):
        pass

    # Inductor's own pass called .item() (scan's while_loop, pytorch#153437): not the user's
    read = _raised_in_backend(DataDependentOutputException("aten._local_scalar_dense.default"))
    assert ddguard.classify(read) is None
    # while tracing the program (no backend in the chain) the same read is the user's
    assert ddguard.classify(DataDependentOutputException("aten.item")).is_users
    bare = _raised_in_backend(
        GuardOnDataDependentSymNode("Could not guard on data-dependent expression Eq(u0, 1)")
    )
    found = ddguard.classify(bare)
    assert found.owner == "framework" and found.expression == "Eq(u0, 1)"
