"""The ``export`` family and the export path's pure parts, without workers or compiles: same
seed same bytes, canonical programs marked for the export path, unbacked programs that run in
eager in-process with their capture flags declared, options refused, the export ladder and
stages, and which export errors are the program's fault. tests/integration/test_export_path.py
runs the path itself (torch.export, AOTInductor) and the planted fault."""

from __future__ import annotations

import ast
import random
from collections import Counter

import pytest
import torch

from torchsmith.generate.export import chains, unbacked
from torchsmith.generate.export import generator as export_generator
from torchsmith.generate.export.generator import ExportGenerator, mark_for_export
from torchsmith.generate.hop import generator as hop_generator
from torchsmith.generate.protocol import GenContext, get_generator, validate_options
from torchsmith.localize import EXPORT_LADDER, ladder_for, stage_of
from torchsmith.options import CheckOptions
from torchsmith.oracle import export_path, runtime
from torchsmith.oracle.compare import identical
from torchsmith.program.format import Program, declared_settings, entry_of, is_canonical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Stage, Verdict

#: No opinfo base here: its op database is the opinfo family's tests' business.
QUICK = {"bases": "graph,unbacked,chain"}


def first(gen: ExportGenerator, seed: int):
    return next(iter(gen.candidates(seed)))


@pytest.fixture(scope="module")
def many():
    gen = ExportGenerator(**QUICK)
    return [first(gen, s) for s in range(40)]


def test_same_seed_same_bytes_and_both_bases_occur(many):
    again = ExportGenerator(**QUICK)
    assert [first(again, s).source for s in range(10)] == [p.source for p in many[:10]]
    assert len({p.source for p in many}) == len(many)
    bases = Counter(n for p in many for n in p.notes if n.startswith("base="))
    assert bases["base=graph"] >= 8 and bases["base=unbacked"] >= 6, bases
    assert bases["base=chain"] >= 8, bases
    templates = {n for p in many for n in p.notes if n.startswith("unbacked:")}
    assert len(templates) >= 5, templates


def test_programs_are_canonical_and_declare_their_path(many):
    for p in many:
        tree = ast.parse(p.source)
        assert is_canonical(tree) and entry_of(tree, p.name) == p.model, p.source
        assert program_from_source(p.source, name=p.name, scripts=False).model == p.model
        assert p.notes[0] == "family=export"
        kwargs, config, _ = declared_settings(p.source)
        path = dict(n.split("=", 1) for n in p.notes if "=" in n)["path"]
        assert (kwargs.get("backend") == "aoti") == (path == "aoti"), p.source
        if "base=unbacked" in p.notes:
            assert config == unbacked.CAPTURE_CONFIG  # the compile path's capture flags
        if "base=chain" in p.notes:
            assert unbacked.CAPTURE_CONFIG.items() <= config.items()
            assert config.get("inductor.cpp_wrapper", False) == (path == "compile+cpp_wrapper")
            assert (kwargs.get("backend") == "aoti") == (path == "aoti"), p.source


def test_unbacked_programs_run_in_eager_alike_twice():
    gen = ExportGenerator(bases="graph,unbacked")  # first candidates known valid for these seeds
    for p in [p for p in (first(gen, s) for s in range(40)) if "base=unbacked" in p.notes][:12]:
        loaded = runtime.load(p, 0)
        opts = CheckOptions()
        a = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        b = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        assert identical(a.out, b.out), p.source
        leaves = runtime.tensor_leaves(a.out)
        assert leaves and all(t.numel() > 0 for t in leaves), p.source  # never empty


def test_chain_programs_run_in_eager_alike_twice_with_finite_outputs():
    """Every chain the table can draw is valid in eager (200 seeds: all producers, most steps):
    the table's ``lo`` bookkeeping keeps empty-tensor reductions out."""
    steps: Counter[str] = Counter()
    producers: set[str] = set()
    for seed in range(200):
        rng = random.Random(f"t{seed}")
        source, notes = chains.render(rng, ["t"], {"backend": "aoti"})
        p = Program(source, "fn", f"c{seed}", "generated")
        loaded = runtime.load(p, 0)
        opts = CheckOptions()
        a = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        b = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        assert identical(a.out, b.out), source
        assert all(torch.isfinite(t).all() for t in runtime.tensor_leaves(a.out)), source
        producers.add(notes[0])
        steps.update(dict(n.split("=", 1) for n in notes[1:])["steps"].split("+"))
    assert len(producers) == len(chains.PRODUCERS)
    assert len(steps) >= 0.85 * len(chains.STEPS), set(chains.STEPS) - set(steps)


def test_hop_base_sends_forward_programs_to_export_and_cpp_wrapper_to_compile():
    """The ``hop`` base: the hop family's program for the seed (same ops and inputs), through
    the export path with no gradients declared, or through ``torch.compile`` with the C++
    wrapper (and the hop program's own settings and gradients kept); valid in eager."""
    gen = ExportGenerator(bases="hop")
    programs = [first(gen, s) for s in range(30)]
    assert [first(ExportGenerator(bases="hop"), s).source for s in range(5)] == [
        p.source for p in programs[:5]
    ]
    paths: Counter[str] = Counter()
    for seed, p in enumerate(programs):
        notes = dict(n.split("=", 1) for n in p.notes if "=" in n)
        paths[notes["path"]] += 1
        assert notes["base"] == "hop" and notes["hop"] in export_generator.HOP_KINDS
        kwargs, config, check = declared_settings(p.source)
        hop = hop_generator.render_program(
            seed, 0, hop_generator.HopOptions(), export_generator.HOP_KINDS
        )
        assert (
            p.source.split("def fn(", 1)[1].split("def get_inputs")[0]
            == (hop.source.split("def fn(", 1)[1].split("def get_inputs")[0])
        )
        if notes["path"] == "aoti":
            assert kwargs == {"backend": "aoti"} and not check.get("grad"), p.source
        else:
            assert notes["path"] == "compile+cpp_wrapper"
            assert config.get("inductor.cpp_wrapper") is True, p.source
            assert "backend" not in kwargs
            _, hop_config, hop_check = declared_settings(hop.source)
            assert hop_config.items() <= config.items() and hop_check == check
    assert paths["aoti"] >= 10 and paths["compile+cpp_wrapper"] >= 6, paths
    for p in programs[:8]:  # valid in eager, alike twice (the hop family's bodies are)
        loaded = runtime.load(p, 0)
        a = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
        b = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
        assert identical(a.out, b.out), p.source


def test_mark_for_export_replaces_or_appends_compile_kwargs():
    src = "import torch\n\n\ndef fn(x):\n    return x\n\n\ncompile_kwargs = {\n    'dynamic': True,\n}\nX = 1\n"
    out = mark_for_export(src)
    assert declared_settings(out)[0] == {"backend": "aoti"} and "X = 1" in out
    assert "dynamic" not in out
    plain = mark_for_export("def fn(x):\n    return x\n")
    assert declared_settings(plain)[0] == {"backend": "aoti"}


def test_options_are_refused_when_unknown():
    with pytest.raises(ValueError, match="export generator: unknown option.*bogus"):
        validate_options("export", {"bogus": 1})
    with pytest.raises(ValueError, match="unknown base"):
        ExportGenerator(bases="graph,nope")
    with pytest.raises(ValueError, match="unbacked_aoti"):
        ExportGenerator(unbacked_aoti=2.0)
    validate_options("mix", {"families": "graph=1,export=1", "export": {"bases": "graph"}})
    assert get_generator("export", bases="unbacked", unbacked_aoti="0").name == "export"


def test_unbacked_aoti_share_is_honoured_and_retries_are_counted():
    gen = ExportGenerator(bases="unbacked", unbacked_aoti=0.0, max_tries=3)
    assert all("path=compile" in first(gen, s).notes for s in range(10))
    seen: list[str] = []

    def fails_once(p) -> CheckResult:
        seen.append(p.source)
        return CheckResult(Verdict.PASS if len(seen) > 1 else Verdict.INVALID, reason="stub")

    p = gen.generate(4, GenContext(eager_check=fails_once))
    assert p is not None and p.source == seen[-1] and len(set(seen)) == 2
    assert (gen.stats.tries, gen.stats.valid, gen.stats.produced) == (2, 1, 1)


def test_the_export_ladder_names_its_stages():
    assert ladder_for("aoti") == EXPORT_LADDER
    assert ladder_for("export_decomp") == ("export", "export_decomp")
    assert ladder_for("inductor")[-1] == "inductor" and "export" not in ladder_for("inductor")
    assert [stage_of(r) for r in EXPORT_LADDER] == [
        Stage.EXPORT,
        Stage.EXPORT_DECOMP,
        Stage.AOTI_COMPILE,
        Stage.AOTI_RUN,
    ]
    assert all(export_path.is_export_backend(b) for b in EXPORT_LADDER)
    assert not export_path.is_export_backend("inductor")


def test_export_user_errors_are_the_programs_fault_and_nothing_else_is():
    from torch._dynamo.exc import UserError, UserErrorType
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    user = UserError(UserErrorType.CONSTRAINT_VIOLATION, "Constraints violated (s0)!")
    assert "rejects this program (UserError" in (export_path.program_fault(user) or "")
    guard = GuardOnDataDependentSymNode(None, "Could not guard on data-dependent expression u0 > 2")
    wrapped = RuntimeError("while exporting")
    wrapped.__cause__ = guard
    assert "data-dependent guard in its own code" in (export_path.program_fault(wrapped) or "")
    in_torch = GuardOnDataDependentSymNode(
        None,
        "Could not guard on data-dependent expression Eq(u0, 0)\n"
        "Caused by: t = t.logsumexp(0)  # prog.py:3 in fn (_refs/__init__.py:911 in logsumexp)",
    )
    assert export_path.program_fault(in_torch) is None  # torch's op code: a (lesser) crash
    spec = ValueError(
        "Found the following conflicts between user-specified ranges and inferred ranges from"
    )
    assert "ValueError" in (export_path.program_fault(spec) or "")  # a Dim.DYNAMIC specialized
    refused = export_path.ExportUnsupported("the program mutates its inputs in place")
    assert "does not take this program" in (export_path.program_fault(refused) or "")
    for exc in (RuntimeError("C++ compile error"), AssertionError("bad graph"), KeyError("u0")):
        assert export_path.program_fault(exc) is None  # may be the compiler's: judged a crash


def test_dynamic_dims_are_the_ones_that_differ_or_are_marked():
    a, b = torch.zeros(3, 4), torch.zeros(3, 2)
    c, d = torch.zeros(5, 4), torch.zeros(3, 2)
    dims = export_path.dynamic_dims([[a, b], [c, d]])
    assert dims == ({0: torch.export.Dim.DYNAMIC}, None)
    torch._dynamo.mark_dynamic(b, 1)
    assert export_path.dynamic_dims([[a, b]]) == (None, {1: torch.export.Dim.DYNAMIC})
    with pytest.raises(export_path.ExportUnsupported, match="rank"):
        export_path.dynamic_dims([[a], [torch.zeros(3)]])


def test_package_folders_of_dead_workers_are_pruned(tmp_path):
    dead = tmp_path / "pkg-999999999-x"
    mine = tmp_path / f"pkg-{__import__('os').getpid()}-y"
    dead.mkdir()
    mine.mkdir()
    assert export_path.prune(tmp_path) == 1
    assert not dead.exists() and mine.exists()


def test_the_repro_script_of_an_export_finding_runs_the_export_path():
    from torchsmith.program.format import Program
    from torchsmith.program.render import render_script

    src = "import torch\n\n\ndef fn(x):\n    return x + 1\n\n\ndef get_inputs():\n    return [torch.ones(2)]\n"
    p = Program(src, "fn", "t", "generated")
    aoti = render_script(p, CheckOptions(backend="aoti"))
    plain = render_script(p, CheckOptions())
    compile(aoti, "repro.py", "exec")
    assert (
        "def _exported(" in aoti
        and 'fn = _exported(target, calls, kwargs, COMPILE_KWARGS["backend"])' in aoti
    )
    assert "aoti_compile_and_package" in aoti and "torch.compile(target" not in aoti
    assert "_exported" not in plain and "fn = torch.compile(target, **COMPILE_KWARGS)" in plain
