"""``--generator opinfo``: one op call from PyTorch's OpInfo database per program (argument
coverage).

Real ``torch.compile`` bugs live in the arguments: dtype keywords, int/bool/uint8 inputs and
type promotion, Python scalars and dtypes passed as arguments, 0-dim, empty and size-1 tensors,
non-contiguous, transposed and expanded inputs, fp16/bf16, dynamic shapes and backward graphs.
PyTorch's OpInfo database (``op_db``) lists valid sample calls of some 600 ops with exactly these
variations. For seed ``s`` this generator picks a usable op, a dtype it supports on CPU, a mode

* ``args``: one call of one sample;
* ``dynamic``: ``get_calls()`` with 2-3 samples of the same op and argument structure whose
  tensors differ in shape (``compile_kwargs = {"dynamic": True}`` sometimes, else automatic
  dynamic shapes);
* ``grad``: one call of a float sample of a differentiable op, ``check_options = {"grad": True}``;

and writes it as a function program (:mod:`torchsmith.generate.opinfo.render`), with zero to two
follow-up ops so Inductor fuses something. Every candidate is eager-checked in a worker
(``GenContext.eager_check``, else its own); an invalid or nondeterministic one is replaced by the
next sample or op, at most ``max_tries`` times. Same seed, same options: same program.

In its own process the generator only builds OpInfo samples (PyTorch's test code, on CPU) and
runs the chosen op on *meta* copies of them to learn the output's dtype and shape; the program
itself runs only in workers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import random
import re
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

import torch

from torchsmith.generate.edges import check_values, edge_sample, special_ok, uses_edge
from torchsmith.generate.family import FamilyStats, ValidatedFamily, note_values
from torchsmith.generate.opinfo.render import (
    CallForm,
    OutInfo,
    ProgramSpec,
    render_program,
    sample_numel,
    signature,
)
from torchsmith.generate.opinfo.values import (
    FLOAT_DTYPES,
    MAX_SAMPLE_NUMEL,
    REAL_DTYPES,
    Unrenderable,
)
from torchsmith.generate.protocol import GenContext
from torchsmith.generate.shapes import SHAPES, opinfo_sizes, uses_boundary
from torchsmith.program.format import Program

MODES = ("args", "dynamic", "grad")
MODE_WEIGHTS = {"args": 0.55, "dynamic": 0.25, "grad": 0.2}
#: How often each dtype is drawn (renormalized over what the op supports on CPU).
DTYPE_WEIGHTS = {
    torch.float32: 6.0,
    torch.float64: 1.5,
    torch.float16: 1.5,
    torch.bfloat16: 1.5,
    torch.int64: 1.5,
    torch.int32: 1.0,
    torch.uint8: 1.0,
    torch.bool: 1.0,
    torch.int8: 0.5,
    torch.int16: 0.5,
}
_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft")

#: Ops never drawn: random (RNG use), uninitialized memory, in-place or sparse, with results
#: that are only defined up to sign or order (eigen/singular vectors), or that PyTorch's
#: maintainers say pt2 does not support: ``native_batch_norm``'s schema does not declare its
#: writes to running_mean/var (#73050); "use torch.batch_norm" (bdhirsh on #147287).
DENY = frozenset(
    """bernoulli cauchy exponential geometric log_normal normal uniform multinomial rand_like
    randn randn_like randint randint_like nn.functional.dropout nn.functional.dropout2d
    nn.functional.dropout3d nn.functional.alpha_dropout nn.functional.feature_alpha_dropout
    nn.functional.rrelu nn.functional.fractional_max_pool2d nn.functional.fractional_max_pool3d
    svd_lowrank pca_lowrank empty empty_like empty_permuted empty_strided new_empty
    new_empty_strided resize_ resize_as_ zero_ to_sparse item hash_tensor nonzero_static
    linalg.eig linalg.eigh linalg.eigvals linalg.svd svd cdouble cfloat chalf complex polar
    view_as_complex nn.functional.scaled_dot_product_attention
    nn.functional.multi_head_attention_forward native_batch_norm""".split()
)
_DENY_PREFIXES = ("_", "torch.", "sparse.", "masked.", "signal.", "jiterator")
#: Wrappers in op_db whose callable is a lambda: how to write them.
SPECIAL_FORMS = {
    "einsum": CallForm("func", "torch.einsum", (1, 0)),
    "nn.functional.embedding": CallForm("func", "torch.nn.functional.embedding", (1, 0)),
    "nn.functional.embedding_bag": CallForm("func", "torch.nn.functional.embedding_bag", (1, 0)),
    "special.polygamma": CallForm("func", "torch.special.polygamma", (1, 0)),
    "T": CallForm("attr", "T"),
    "mT": CallForm("attr", "mT"),
    "H": CallForm("attr", "H"),
    "mH": CallForm("attr", "mH"),
    "__getitem__": CallForm("getitem", ""),
    **{
        f"__r{name}__": CallForm("binop", sym)
        for name, sym in [
            ("add", "+"),
            ("sub", "-"),
            ("mul", "*"),
            ("div", "/"),
            ("pow", "**"),
            ("mod", "%"),
            ("and", "&"),
            ("or", "|"),
            ("xor", "^"),
            ("matmul", "@"),
        ]
    },
}
#: Value-sensitive ops: their tensors are written exactly up to a larger size.
_EXACT = re.compile(
    r"linalg\..*|cholesky.*|lu.*|triangular_solve|ormqr|geqrf|logdet|det|matrix_exp|pinverse|qr"
    r"|searchsorted|bucketize|nn\.functional\.max_unpool.*|index_put|scatter.*|put|take.*"
    r"|cov|corrcoef|histc|histogram.*|bincount|unique.*|nn\.functional\.(ctc|nll|cross_entropy|"
    r"multi_margin|multilabel_margin)_loss|nn\.functional\.grid_sample|grid_sampler_.*"
)


@dataclasses.dataclass
class OpInfoOptions:
    ops: str | None = None  # comma-separated regexes on the op name (``add,nn\.functional\..*``)
    dtypes: str | None = None  # comma-separated dtype names (``float32,int64,bool``)
    mode: str | None = None  # args, dynamic or grad (default: a seeded mix)
    max_tries: int = 8  # candidates eager-checked per seed before giving up
    reference: float = 0.25  # how often samples come from ``reference_inputs`` (extremal values)
    max_samples: int = 48  # samples drawn per op and dtype
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker
    shapes: str = "mixed"  # OpInfo's size constants at boundary values: some seeds, all, none
    values: str = "mixed"  # edge values in float samples (generate/edges.py): some seeds, all, none

    def __post_init__(self) -> None:
        check_values(self.values)
        if self.shapes not in SHAPES:
            raise ValueError(f"shapes must be one of {', '.join(SHAPES)}, not {self.shapes!r}")


@dataclasses.dataclass
class OpInfoStats(FamilyStats):
    """What the generator did: seeds asked, candidates checked, valid ones and what they hold."""

    seeds: int = 0
    programs: int = 0  # seeds that gave a valid program
    unrenderable: int = 0  # samples skipped before any check
    dtypes: Counter[str] = dataclasses.field(default_factory=Counter)  # of valid programs
    modes: Counter[str] = dataclasses.field(default_factory=Counter)
    ops: Counter[str] = dataclasses.field(default_factory=Counter)
    invalid_ops: Counter[str] = dataclasses.field(default_factory=Counter)


@dataclasses.dataclass(frozen=True)
class OpEntry:
    """A usable op_db entry: how to write it and the real dtypes it supports on CPU."""

    info: Any  # the OpInfo
    label: str  # name, or name.variant
    form: CallForm
    dtypes: tuple[torch.dtype, ...]
    grad_dtypes: tuple[torch.dtype, ...]
    exact: bool


# -- the catalog --------------------------------------------------------------------------------
def _resolve(dotted: str) -> Any:
    obj: Any = torch
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def call_form(info: Any) -> CallForm | None:
    """How to write ``info``'s callable with a public name, or None."""
    if info.name in SPECIAL_FORMS:
        return SPECIAL_FORMS[info.name]
    fn = info.op
    leaf = getattr(fn, "__name__", "") or ""
    for dotted in (f"torch.{info.name}", *(f"{ns}.{leaf}" for ns in _NAMESPACES)):
        if dotted.rsplit(".", 1)[0] in _NAMESPACES and _resolve(dotted) is fn:
            return CallForm("func", dotted)
    method = info.method_variant
    name = getattr(method, "__name__", None)
    if name and not name.startswith("_") and getattr(torch.Tensor, name, None) is method:
        return CallForm("method", name)
    return None


def _inductor_xfail(info: Any, dtype: torch.dtype) -> bool:
    """PyTorch's own Inductor OpInfo test expects this op/dtype to fail or skips it on CPU."""
    for d in (*info.skips, *info.decorators):
        if getattr(d, "cls_name", None) != "TestInductorOpInfo":
            continue
        if d.device_type not in (None, "cpu") or (d.dtypes is not None and dtype not in d.dtypes):
            continue
        names = {getattr(x, "__name__", "") for x in getattr(d, "decorators", ())}
        if names & {"expectedFailure", "skip", "skipIf"}:
            return True
    return False


def load_catalog(ops: str | None = None, dtypes: str | None = None) -> list[OpEntry]:
    """The usable op_db entries (imports op_db: about 3 s), optionally filtered by op-name
    regexes and dtype names (comma-separated)."""
    from torch.testing._internal.common_methods_invocations import op_db

    patterns = [re.compile(p.strip()) for p in (ops or "").split(",") if p.strip()]
    wanted = None
    if dtypes:
        wanted = {getattr(torch, n.strip().removeprefix("torch.")) for n in dtypes.split(",")}
        if not wanted <= set(REAL_DTYPES):
            raise ValueError(f"opinfo generator: dtypes must be among {REAL_DTYPES}")
    out: list[OpEntry] = []
    for info in op_db:
        name = info.name
        label = f"{name}.{info.variant_test_name}" if info.variant_test_name else name
        if patterns and not any(p.fullmatch(name) or p.fullmatch(label) for p in patterns):
            continue
        if name in DENY or name.startswith(_DENY_PREFIXES) or name.endswith("_"):
            continue
        if getattr(info, "has_nondeterministic_output", False) or getattr(
            info, "skip_correctness_check_compile_vs_eager", False
        ):  # (attributes of recent PyTorch releases)
            continue
        form = call_form(info)
        if form is None:
            continue
        supported = info.supported_dtypes("cpu")
        real = tuple(
            d
            for d in REAL_DTYPES
            if d in supported and not _inductor_xfail(info, d) and (wanted is None or d in wanted)
        )
        if not real:
            continue
        grad: tuple[torch.dtype, ...] = ()
        if info.supports_autograd:
            backward = info.supported_backward_dtypes("cpu")
            grad = tuple(d for d in real if d in FLOAT_DTYPES and d in backward)
        out.append(OpEntry(info, label, form, real, grad, bool(_EXACT.fullmatch(name))))
    return out


# -- samples ------------------------------------------------------------------------------------
@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed torch, Python's ``random`` and numpy's global RNG for PyTorch's sample builders;
    restore all three after."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy comes with the test dependencies
        np = None
    state = random.getstate()
    np_state = np.random.get_state() if np is not None else None
    with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(seed)
        random.seed(seed)
        if np is not None:
            np.random.seed(seed)
        try:
            yield
        finally:
            random.setstate(state)
            if np is not None:
                np.random.set_state(np_state)


_SIZES_LOCK = threading.Lock()  # samples are built under one set of OpInfo's size constants


@contextlib.contextmanager
def _sizes(sizes: dict[str, int] | None) -> Iterator[None]:
    """OpInfo's size constants (``S``, ``M``, ...) replaced by ``sizes`` in every test module
    that defines them, for this thread's sample building only (the lock keeps other threads'
    builders from seeing them)."""
    with _SIZES_LOCK:
        saved = []
        for mod in list(sys.modules.values()) if sizes else []:
            if not getattr(mod, "__name__", "").startswith("torch.testing._internal"):
                continue
            for name, value in sizes.items():
                if isinstance(getattr(mod, name, None), int):
                    saved.append((mod, name, getattr(mod, name)))
                    setattr(mod, name, value)
        try:
            yield
        finally:
            for mod, name, value in reversed(saved):
                setattr(mod, name, value)


def _edge_ok(entry: OpEntry, dtype: torch.dtype, mode: str, outs: list[Any]) -> bool:
    """Whether a sample of ``entry`` may get edge values (policy rows 10, 11, 17): float32/64
    samples of an op whose results are all float32/64 (no float -> int of NaN/inf, no fp16/bf16
    intermediates), not for value-sensitive ops (structure such as sortedness is kept only by
    exact literals) nor backward graphs."""
    wide = (torch.float32, torch.float64)
    return (
        dtype in wide
        and mode != "grad"
        and not entry.exact
        and bool(outs)
        and all(o is not None and o.kind != "other" and o.dtype in wide for o in outs)
    )


def draw_samples(
    entry: OpEntry,
    dtype: torch.dtype,
    seed: int,
    reference: bool,
    limit: int,
    sizes: dict[str, int] | None = None,
) -> list[Any]:
    """Up to ``limit`` renderable samples of ``entry`` at ``dtype`` (deterministic in ``seed``):
    ``reference_inputs`` (with extremal values) when ``reference``, else ``sample_inputs``;
    with ``sizes`` (``shapes=boundary``) built under those size constants."""
    info = entry.info
    with _sizes(sizes), _seeded(seed):
        try:
            # The builders themselves, not ``sample_inputs()``: its iterator re-seeds with a
            # fixed seed before each sample (the same values in every program) and walks the
            # call stack with ``inspect`` (slow, under pytest most of all).
            func = info.sample_inputs_func
            if reference and info.reference_inputs_func is not None:
                func = info.reference_inputs_func
            source = func(info, "cpu", dtype, False)
            raw = list(itertools.islice(source, limit))
        except Exception:  # PyTorch's own sample builder failed for this dtype
            return []
    out = []
    for s in raw:
        try:
            signature(s)
        except Unrenderable:
            continue
        if sample_numel(s) <= MAX_SAMPLE_NUMEL:
            out.append(s)
    return out


def _meta(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.detach().to("meta")
    if isinstance(v, list | tuple) and not hasattr(v, "_fields"):
        return type(v)(_meta(x) for x in v)
    if isinstance(v, dict):
        return {k: _meta(x) for k, x in v.items()}
    return v


def out_info(entry: OpEntry, sample: Any) -> OutInfo | None:
    """The output's kind, dtype and shape from a run on meta tensors (no data, no kernels);
    None when the op has no meta implementation or depends on values."""
    fn = entry.info.op
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(_meta(sample.input), *_meta(list(sample.args)), **_meta(dict(sample.kwargs)))
    except Exception:
        return None
    if isinstance(out, torch.Tensor):
        return OutInfo("tensor", out.dtype, tuple(out.shape))
    if isinstance(out, list | tuple) and out and isinstance(out[0], torch.Tensor):
        return OutInfo("seq", out[0].dtype, tuple(out[0].shape))
    return OutInfo("other")


def _shapes(sample: Any) -> tuple[Any, ...]:
    found: list[tuple[int, ...]] = []

    def walk(v: Any) -> None:
        if isinstance(v, torch.Tensor):
            found.append(tuple(v.shape))
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k in sorted(v):
                walk(v[k])

    walk([sample.input, list(sample.args), dict(sample.kwargs)])
    return tuple(found)


def pick_sequence(samples: list[Any], rng: random.Random) -> list[Any] | None:
    """2-3 samples with the same argument structure whose tensors differ in shape, or None."""
    groups: dict[Any, list[Any]] = {}
    for s in samples:
        groups.setdefault(signature(s), []).append(s)
    usable = []
    for members in groups.values():
        by_shape: dict[tuple[Any, ...], Any] = {}
        for s in members:
            shapes = _shapes(s)
            if shapes:
                by_shape.setdefault(shapes, s)
        if len(by_shape) >= 2:
            usable.append(list(by_shape.values()))
    if not usable:
        return None
    members = rng.choice(usable)
    return rng.sample(members, min(len(members), rng.choice([2, 2, 3])))


# -- the generator ------------------------------------------------------------------------------
class OpInfoGenerator(ValidatedFamily):
    """The ``opinfo`` generator (see the module docstring). Options as keywords or CLI strings."""

    Options = OpInfoOptions  # its options, parsed by ``typed_options``

    name = "opinfo"
    #: imported where programs are generated (generate.availability): op_db needs expecttest
    requires = ("numpy", "expecttest", "torch.testing._internal.common_methods_invocations")

    def setup(self) -> None:
        if self.opts.mode is not None and self.opts.mode not in MODES:
            raise ValueError(f"opinfo generator: mode must be one of {', '.join(MODES)}")
        self._catalog: list[OpEntry] | None = None
        self.stats = OpInfoStats()

    @property
    def catalog(self) -> list[OpEntry]:
        """The usable ops (op_db is imported on first use, once per generator)."""
        if self._catalog is None:
            self._catalog = load_catalog(self.opts.ops, self.opts.dtypes)
            if not self._catalog:
                raise ValueError(
                    f"opinfo generator: no usable op for ops={self.opts.ops!r}"
                    f" dtypes={self.opts.dtypes!r}"
                )
        return self._catalog

    def _mode(self, entry: OpEntry, rng: random.Random) -> str:
        mode = self.opts.mode or rng.choices(MODES, weights=[MODE_WEIGHTS[m] for m in MODES])[0]
        if mode == "grad" and not entry.grad_dtypes:
            return "args" if self.opts.mode is None else ""
        return mode

    @staticmethod
    def _dtype(entry: OpEntry, mode: str, rng: random.Random) -> torch.dtype:
        pool = entry.grad_dtypes if mode == "grad" else entry.dtypes
        return rng.choices(pool, weights=[DTYPE_WEIGHTS[d] for d in pool])[0]

    def candidates(self, seed: int) -> Iterator[Program]:
        """The programs tried for ``seed``, in order: two samples of an op, then another op.
        Pure apart from building samples (PyTorch's test code) and meta-device runs."""
        rng = random.Random(seed)
        catalog = self.catalog
        sizes = opinfo_sizes(seed) if uses_boundary(self.opts.shapes, seed) else None
        shape_note = ("shapes=boundary",) if sizes else ()
        edge = uses_edge(self.opts.values, seed)
        erng = random.Random(f"opinfo-values-{seed}")
        attempt = misses = 0
        while misses < 40:
            entry = catalog[rng.randrange(len(catalog))]
            mode = self._mode(entry, rng)
            if not mode:
                misses += 1
                continue
            dtype = self._dtype(entry, mode, rng)
            reference = rng.random() < self.opts.reference
            samples = draw_samples(
                entry, dtype, rng.randrange(1 << 31), reference, self.opts.max_samples, sizes
            )
            if entry.exact:  # exact literals only fit small tensors
                samples = [s for s in samples if sample_numel(s) <= 512] or samples
            if not samples:
                misses += 1
                continue
            for _ in range(2):
                if mode == "dynamic":
                    chosen = pick_sequence(samples, rng)
                    if chosen is None:
                        break
                else:
                    chosen = [samples[rng.randrange(len(samples))]]
                outs = [out_info(entry, s) for s in chosen]
                edged = edge and _edge_ok(entry, dtype, mode, outs)
                if edged:
                    special = special_ok(entry.label)
                    chosen = [edge_sample(s, erng, special) for s in chosen]
                spec = ProgramSpec(
                    form=entry.form,
                    samples=chosen,
                    seed=seed,
                    label=entry.label,
                    dtype=dtype,
                    mode=mode,
                    attempt=attempt + 1,
                    grad=mode == "grad",
                    dynamic=mode == "dynamic" and rng.random() < 0.4,
                    exact=entry.exact,
                    outs=outs,
                    lift=0.6 if entry.info.is_factory_function else 0.35,
                    edge=edged,
                )
                try:
                    source = render_program(spec, rng)
                except Unrenderable:
                    self.stats.unrenderable += 1
                    continue
                attempt += 1
                yield Program(
                    source=source,
                    model="fn",
                    name=f"opinfo_{seed}",
                    origin="generated",
                    notes=(
                        f"op={entry.label}",
                        f"dtype={dtype}",
                        f"mode={mode}",
                        *shape_note,
                        *(("values=edge",) if edged else ()),
                    ),
                )
            misses += 1

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """The first eager-valid candidate for ``seed`` (None after ``max_tries`` that are not)."""
        self.stats.seeds += 1
        return self.first_valid(seed, ctx)

    def on_valid(self, program: Program) -> None:
        note = note_values(program)
        self.stats.programs += 1
        self.stats.dtypes[note["dtype"].removeprefix("torch.")] += 1
        self.stats.modes[note["mode"]] += 1
        self.stats.ops[note["op"]] += 1

    def on_invalid(self, program: Program) -> None:
        self.stats.invalid_ops[note_values(program)["op"]] += 1


__all__ = [
    "DENY",
    "OpEntry",
    "OpInfoGenerator",
    "OpInfoOptions",
    "OpInfoStats",
    "call_form",
    "draw_samples",
    "load_catalog",
    "out_info",
    "pick_sequence",
]
