"""``TORCHSMITH_FIRST_JOB_GRACE``: seconds >= 0 are taken; anything else is reported and the
default kept, so a bad value never stops a command at import."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from torchsmith.execute.worker import _grace


def test_unset_and_valid_values():
    assert _grace(None) == 60.0
    assert _grace("5") == 5.0 and _grace("0") == 0.0 and _grace("2.5") == 2.5


@given(st.text().filter(lambda t: t.strip() not in {"inf", "+inf", "infinity", "+infinity"}))
def test_anything_else_keeps_the_default_or_a_nonnegative_number(text):
    value = _grace(text)
    try:
        parsed = float(text)
    except ValueError:
        parsed = None
    if parsed is not None and parsed >= 0:
        assert value == parsed
    else:
        assert value == 60.0


def test_bad_values_are_reported(capsys):
    for text in ("abc", "-1", "nan"):
        assert _grace(text) == 60.0
        assert "TORCHSMITH_FIRST_JOB_GRACE" in capsys.readouterr().err
