"""Known, new or lesser: each cause of a campaign labelled against a table of known bugs.

The table ships with torchsmith (``data/known_bugs.json``): public torch.compile issues from the
repro corpus in ``bench/issues`` and this project's own reported finds in ``bench/found``, each
signed by the same checker and reducer a campaign uses (``bench/known_table.py`` writes it, per
torch version). ``--known FILE`` adds entries: a JSON list in the same format, or a text file of
signatures, one a line (``sig-...`` or the readable form).

A cause (its readable signature, after reduction) is

* ``lesser`` when its symptom is a lesser one (``precision``: ``imprecise``; ``wrong-stride``:
  only strides differ), whatever the table says (a matching entry is still named);
* ``known`` when an entry is the same cause (:func:`same_cause`): same symptom and stage, and
  for a crash, death or hang the same exception type and normalized message (the innermost
  frame moves between releases and is ignored, except for Python's stock messages, which say
  nothing of the place: "list index out of range" is one cause only at one frame); or, at any stage, the same exception,
  message *and* innermost frame once a wrapper such as ``BackendCompilerFailed`` is looked
  through (one failure met through ``torch.export`` and through ``torch.compile``); for a
  wrong output the same stage and reduced op set, or sets that differ only by generic glue
  ops (``add``, ...); at the Dynamo stage, where a signature lists Python constructs, the same
  constructs instead (glue such as ``range`` and ``len`` aside, unless there is nothing else),
  whatever the ops: an entry without constructs never matches a finding with them; and a
  finding whose constructs all occur in an entry's is labelled by it (:func:`covered_by`);
* ``new`` otherwise.

An entry whose bug needs opt-in graph passes (switched on by name: ``pre_grad_fusion_options``
and the like) records them in ``needs``; it matches only a finding whose settings switch every
one of them on (:func:`passes_named` of its options), since a generic message (an invalid
``view``) is met through many passes, each its own bug.

Matching is deliberately strict: a new bug labelled known is lost, so two wrong outputs in the
same stage with different ops are different causes.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from torchsmith.dedup import PY_FIELD, is_stock_message, unwrap_failure
from torchsmith.jsonable import Jsonable
from torchsmith.program.constructs import GENERIC_CONSTRUCTS
from torchsmith.verdict import Symptom

#: Ops that glue a program together without being its cause.
GENERIC_OPS = frozenset(
    {"add", "sub", "mul", "div", "neg", "getitem", "setitem", "clone", "contiguous", "float"}
)
#: Symptoms whose signature names a failure (exception, signal, a guard's site), not ops.
BEHAVIOUR = frozenset(
    s.value
    for s in (
        Symptom.EXCEPTION,
        Symptom.SEGFAULT,
        Symptom.EXIT,
        Symptom.OOM,
        Symptom.HANG,
        Symptom.DATA_DEPENDENT,
    )
)


class Label(str, enum.Enum):
    NEW = "new"
    KNOWN = "known"
    LESSER = "lesser"
    PATH_WIDE = "path-wide"  # a trivial program on its path fails the same way (the canary)


@dataclasses.dataclass(frozen=True)
class KnownBug(Jsonable):
    """One known cause: its readable signature and where it is reported."""

    readable: str
    issue: int | None = None
    url: str = ""
    title: str = ""
    torch: str = ""  # the torch version it was signed on
    source: str = ""  # bench/issues/<file>, bench/found/<file>, or the user's file
    needs: tuple[str, ...] = ()  # opt-in passes its program switches on (passes_named)

    def __post_init__(self) -> None:
        object.__setattr__(self, "needs", tuple(self.needs))  # JSON gives a list

    def describe(self) -> str:
        """``#123456`` for a public issue, else where the entry comes from."""
        return f"#{self.issue}" if self.issue else (self.source or self.readable[:60])


#: An opt-in pass, as its switch names it: a quoted ``..._pass`` (``"select_cat_aten_pass"``),
#: a batch fusion (``"batch_aten_tanh"``, ``"group_linear"``), a flag ending in ``_passes``
#: or ``_enabled`` (``"inductor.efficient_conv_bn_eval_fx_passes"``,
#: ``"inductor.partitioned_scatter_enabled"``: its last dotted part) or a pass's own ``enable``
#: (``"inductor.auto_chunker.enable"``: ``auto_chunker``); and the settings that switch a code
#: path on (``freezing``, ``max_autotune``, ``cpp_wrapper``, the capture flags, a C++ template,
#: K-slicing, concat-linear, the Triton switches a CUDA campaign draws): an entry signed from a program with ``"inductor.freezing": True``
#: (readable ``wrong-value|inductor|linear``) must not label a default-settings finding.
_PASS_NAME = re.compile(
    r"""["'](?:\w+\.)*?(\w+_pass(?:es)?|batch_\w+|group_linear|\w+_enabled"""
    r"""|freezing|max_autotune|cpp_wrapper|capture_\w+|\w+_template|gemm_max_k_slices"""
    r"""|enable_concat_linear|cooperative_reductions|multi_kernel|use_block_ptr"""
    r"""|use_tensor_descriptor|combo_kernels|prefer_nd_tiling|tile_reductions|max_tiles"""
    r"""|coordinate_descent_tuning|decompose_sort_ops|\w+(?=\.enable["']))(?:\.enable)?["']"""
)


def passes_named(text: str) -> frozenset[str]:
    """The opt-in passes a program's source names (a script's, signed into the table)."""
    return frozenset(_PASS_NAME.findall(text))


def passes_on(config: Any) -> frozenset[str]:
    """The opt-in passes settings switch on: the keys of ``passes_named``'s form whose value
    is not false, at any depth (``{"inductor.pre_grad_fusion_options": {"x_pass": {}}}``)."""
    out: set[str] = set()
    if isinstance(config, dict):
        for key, value in config.items():
            if value is False or value is None:
                continue
            out |= passes_named(json.dumps(str(key)))
            out |= passes_on(value)
    return frozenset(out)


def _fields(readable: str) -> list[str]:
    return readable.split("|")


def _ops(field: str) -> frozenset[str]:
    return frozenset(o for o in field.split(",") if o)


def _bare(message: str) -> str:
    """A message without the exception type a wrapper left in front of it (``InductorError``'s
    ``AssertionError:`` with nothing after it is an empty message)."""
    m = re.fullmatch(r"\w+(?:Error|Exception):\s*(.*)", message.strip(), re.S)
    return (m.group(1) if m else message).strip()


#: AOTInductor's kernels are Inductor's codegen: a failure the package shows (``aoti-run``) or
#: its build raises (``aoti-compile``) is compared with Inductor's known bugs as ``inductor``
#: (an empty ``std_mean``'s NaN, #197108, through the AOTI path). Exceptions still need the same
#: type and message, so a wrapper-only AOTI bug does not match an Inductor entry.
_SAME_CODEGEN = {"aoti-run": "inductor", "aoti-compile": "inductor"}


def _head(fields: list[str]) -> list[str]:
    return [fields[0], _SAME_CODEGEN.get(fields[1], fields[1])]


def _failure(fields: list[str]) -> tuple[str, str, str]:
    """A behaviour signature's exception type, message and innermost frame, wrappers' inner
    exception unwrapped (``InductorError|LoweringException: KeyError: m`` is ``KeyError|m``)."""
    kind, message = unwrap_failure(fields[2], fields[3])
    return kind, message, fields[4] if len(fields) > 4 else ""


def same_cause(a: str, b: str) -> bool:
    """Whether readable signatures ``a`` and ``b`` name the same cause (see the module
    docstring). Symmetric; equal signatures always match."""
    if a == b:
        return True
    fa, fb = _fields(a), _fields(b)
    if len(fa) < 3 or len(fb) < 3 or fa[0] != fb[0]:
        return False
    if fa[0] in BEHAVIOUR:
        if len(fa) < 4 or len(fb) < 4:
            return False
        if _head(fa) == _head(fb) and fa[2:4] == fb[2:4]:
            # Python's stock messages say nothing of where they come from: the frame must
            # match too
            ea, eb = _failure(fa), _failure(fb)
            stock = is_stock_message(_bare(ea[1]))
            return not stock or not (ea[2] and eb[2]) or ea[2] == eb[2]
        # a wrapper looked through, or another stage, often another ladder (export's against
        # the compile path's): the same exception raised at the same place
        ea = _failure(fa)
        return ea == _failure(fb) and bool(ea[2])
    if _head(fa) != _head(fb):
        return False
    pa, pb = _constructs(fa), _constructs(fb)
    if pa or pb:  # Dynamo's: the Python constructs are the cause, the ops incidental
        ca, cb = pa - GENERIC_CONSTRUCTS, pb - GENERIC_CONSTRUCTS
        return ca == cb if ca or cb else pa == pb
    core = _ops(fa[2]) - GENERIC_OPS
    return bool(core) and core == _ops(fb[2]) - GENERIC_OPS


#: Wrong outputs at the Dynamo stage: one Python-level cause gives a wrong value or a wrong type
#: depending on what the program does with it (``NotImplemented`` returned, or added to a tensor).
_PY_VALUE_SYMPTOMS = frozenset({Symptom.WRONG_VALUE.value, Symptom.WRONG_META.value})


def covered_by(finding: str, entry: str) -> bool:
    """Whether a Dynamo-stage wrong output's Python constructs, glue aside, all occur in a known
    entry's (a reduced finding keeps the constructs its failure needs; the entry's program may
    hold more): ``py:isinstance`` is covered by ``py:except:TypeError,float,isinstance``. Only
    this direction: a finding with a construct the entry lacks may be another bug. A wrong
    value and a wrong type count as one symptom here."""
    ff, fe = _fields(finding), _fields(entry)
    if len(ff) < 3 or len(fe) < 3 or ff[1] != "dynamo" or fe[1] != "dynamo":
        return False
    if not {ff[0], fe[0]} <= _PY_VALUE_SYMPTOMS:
        return False
    cf, ce = _constructs(ff) - GENERIC_CONSTRUCTS, _constructs(fe) - GENERIC_CONSTRUCTS
    return bool(cf) and cf <= ce


def _constructs(fields: list[str]) -> frozenset[str]:
    """A Dynamo wrong output's Python constructs (its ``py:`` field), empty when it has none."""
    py = next((f for f in fields[3:] if f.startswith(PY_FIELD)), "")
    return _ops(py.removeprefix(PY_FIELD))


class KnownTable:
    """The known causes: the shipped table plus the user's (``--known``)."""

    def __init__(self, entries: Iterable[KnownBug] = ()) -> None:
        self.entries = list(entries)
        self._sigs: set[str] = set()  # hashed signatures given in a text file

    @classmethod
    def default(cls) -> KnownTable:
        """The table shipped with torchsmith."""
        text = resources.files("torchsmith").joinpath("data/known_bugs.json").read_text()
        return cls(KnownBug.from_dict(d) for d in json.loads(text)["entries"])

    def add_signatures(self, known: Iterable[str]) -> KnownTable:
        """Add signatures (``sig-...`` or readable forms), as ``--known``'s text file gives them.
        Returns self."""
        for sig in known:
            if sig.startswith("sig-"):
                self._sigs.add(sig)
            else:
                self.entries.append(KnownBug(readable=sig, source="--known"))
        return self

    def add_file(self, path: str | Path) -> KnownTable:
        """Add the entries of a JSON table (a list, or ``{"entries": [...]}``) or of a text file
        of signatures, one a line (``#`` starts a comment). Returns self."""
        text = Path(path).read_text()
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            data = data.get("entries", [])
        if isinstance(data, list):
            self.entries += [KnownBug.from_dict(d) for d in data]
            return self
        from torchsmith.dedup import load_known

        return self.add_signatures(load_known(path))

    def match(
        self, readable: str, signature: str = "", passes: Iterable[str] = ()
    ) -> KnownBug | None:
        """The entry for this cause: an exact signature first, then :func:`same_cause`; an
        entry that ``needs`` passes only when ``passes`` (the finding's) holds them all."""
        if signature and signature in self._sigs:
            return KnownBug(readable=readable, source="--known")
        on = frozenset(passes)
        entries = [e for e in self.entries if on.issuperset(e.needs)]
        exact = [e for e in entries if e.readable == readable]
        if exact:
            return exact[0]
        same = next((e for e in entries if same_cause(e.readable, readable)), None)
        return same or next((e for e in entries if covered_by(readable, e.readable)), None)


def label(
    readable: str, table: KnownTable, signature: str = "", passes: Iterable[str] = ()
) -> tuple[Label, KnownBug | None]:
    """The cause's label and the known entry it matches (if any); ``passes``: the opt-in
    passes the finding's settings switch on (:func:`passes_named`)."""
    entry = table.match(readable, signature, passes)
    symptom = _fields(readable)[0]
    if symptom in {s.value for s in Symptom if s.is_lesser}:
        return Label.LESSER, entry
    return (Label.KNOWN, entry) if entry is not None else (Label.NEW, None)
