"""Generation, signing and parsing are safe under any number of threads."""

from __future__ import annotations

import ast
import threading

import torchsmith  # noqa: F401  (installs the parse lock)
from torchsmith.generate.graph import GenOptions, generate_source
from torchsmith.program.ops import source_ops


def test_parse_is_locked():
    assert getattr(ast.parse, "_torchsmith_locked", False)


def test_concurrent_generation_and_parsing_equal_serial_output_byte_for_byte():
    seeds = list(range(40))
    serial = {s: generate_source(s, GenOptions()) for s in seeds}
    got: dict[int, str] = {}
    ops: dict[int, list[str]] = {}
    errors: list[str] = []

    def work(part: list[int]) -> None:
        try:
            for s in part:
                src = generate_source(s, GenOptions())
                got[s] = src
                for _ in range(5):  # parse-heavy, as a campaign's slots are
                    ops[s] = source_ops(src)
        except Exception as e:  # every error fails the test below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(seeds[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert got == serial
    assert ops == {s: source_ops(serial[s]) for s in seeds}
