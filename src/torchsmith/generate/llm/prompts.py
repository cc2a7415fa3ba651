"""Prompts for the LLM generator: targets (op families, Inductor optimizations), few-shot examples
from a corpus, the generation request and the repair request.

A :class:`Target` names what a program should exercise: the ops (as the prompt shows them:
``torch.cumsum``, ``F.pad``, ``Tensor.scatter_``, ``nn.Conv2d``; coverage keys them by canonical
name, ``op:cumsum``) and the coverage features (:mod:`torchsmith.generate.coverage`) that show the
target was reached, such as ``inductor:fuse_attention`` or ``metric:num_comprehensive_padding``.
The corpus is also what the mutation generator mutates. Nothing here executes program code.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import random
from pathlib import Path

from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import load_program


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    title: str
    description: str
    ops: tuple[str, ...] = ()
    features: tuple[str, ...] = ()  # coverage keys that mean "reached"
    family: str | None = None  # graph-generator family, for generated examples

    @property
    def all_features(self) -> tuple[str, ...]:
        from torchsmith.generate.coverage import op_key

        return self.features + tuple(dict.fromkeys(op_key(o) for o in self.ops))


OPTIMIZATION_TARGETS: tuple[Target, ...] = (
    Target(
        "attention",
        "the attention pattern matcher (fuse_attention)",
        "Write scaled dot-product attention by hand, the way models do: q @ k.transpose(-2, -1),"
        " scaled by a constant (multiply or divide), optionally an additive mask, softmax over the"
        " last dim, then @ v. Vary head counts, the scale form and the mask.",
        (
            "torch.matmul",
            "Tensor.transpose",
            "torch.softmax",
            "Tensor.softmax",
            "torch.bmm",
            "F.scaled_dot_product_attention",
            "Tensor.masked_fill",
        ),
        ("inductor:fuse_attention",),
    ),
    Target(
        "conv_bn",
        "conv/batch-norm folding and binary folding",
        "Convolutions followed by batch norm (eval mode) and by elementwise add/mul with constants"
        " or parameters, the patterns Inductor folds into the convolution weights.",
        (
            "nn.Conv2d",
            "nn.BatchNorm2d",
            "nn.Conv1d",
            "nn.BatchNorm1d",
            "F.conv2d",
            "nn.ConvTranspose2d",
            "nn.Conv3d",
        ),
        ("inductor:efficient_conv_bn_eval", "inductor:binary_folding"),
    ),
    Target(
        "mm_epilogue",
        "matrix multiplies with fused epilogues and small-dimension decompositions",
        "mm, addmm, bmm, baddbmm, linear and einsum with bias, activation and residual epilogues;"
        " include tiny inner or outer dimensions (1, 2, 3) and batched broadcasting.",
        (
            "torch.mm",
            "torch.addmm",
            "torch.bmm",
            "torch.baddbmm",
            "F.linear",
            "torch.einsum",
            "nn.Linear",
            "torch.matmul",
        ),
        ("inductor:decompose_addmm", "inductor:decompose_mm", "inductor:decompose_bmm"),
    ),
    Target(
        "pointwise_fusion",
        "long pointwise chains fused into one loop",
        "Chains of 8+ elementwise ops with broadcasting between inputs of different ranks,"
        " where/clamp/lerp/addcmul, scalars and mixed float dtypes, with several outputs that"
        " share intermediates.",
        (
            "torch.where",
            "torch.clamp",
            "torch.lerp",
            "torch.addcmul",
            "torch.sigmoid",
            "torch.exp",
            "torch.maximum",
            "Tensor.expand",
        ),
        ("metric:fused_nodes", "metric:vec_kernels"),
    ),
    Target(
        "reductions",
        "reductions with prologues and epilogues",
        "Several reductions over the same tensor (var_mean, logsumexp, amax, argmax, norm)"
        " along different dims, with keepdim, reductions over a non-innermost dim, and"
        " elementwise work before and after (softmax and layer norm written out by hand).",
        (
            "torch.var_mean",
            "torch.logsumexp",
            "torch.amax",
            "torch.argmax",
            "torch.norm",
            "torch.prod",
            "Tensor.std",
            "torch.mean",
            "torch.sum",
        ),
        (
            "metric:parallel_reduction_count",
            "metric:codegen_nested_reduction",
            "metric:codegen_mix_order_reduction",
        ),
    ),
    Target(
        "layout",
        "layouts: permutes, transposes, strides and channels-last",
        "Non-contiguous tensors: permute, transpose, movedim, slicing with steps, as_strided,"
        " unfold, channels_last inputs (x.contiguous(memory_format=torch.channels_last)), then"
        " pointwise and reduction work on them, so Inductor must pick loop orders.",
        (
            "Tensor.permute",
            "Tensor.transpose",
            "torch.movedim",
            "Tensor.as_strided",
            "Tensor.unfold",
            "Tensor.contiguous",
            "torch.flip",
        ),
        ("metric:num_loop_reordering", "inductor:removed_pointless_view_pair"),
    ),
    Target(
        "padding",
        "padding: F.pad modes and odd sizes",
        "Constant, reflect, replicate and circular padding (F.pad and the nn.*Pad* layers),"
        " negative padding (cropping), odd and prime sizes around convolutions and matmuls.",
        (
            "F.pad",
            "nn.ReflectionPad2d",
            "nn.ReplicationPad1d",
            "nn.ConstantPad3d",
            "nn.ZeroPad2d",
            "nn.CircularPad2d",
        ),
        (
            "metric:num_comprehensive_padding",
            "inductor:pad_rewritten_as_cat",
            "lowering:aten.constant_pad_nd.default",
        ),
    ),
    Target(
        "indexing",
        "indexing: gather, scatter, index_put and advanced indexing",
        "gather/scatter/scatter_add/scatter_reduce/index_select/index_add/index_put and"
        " advanced indexing with index tensors built from arange or argsort (always in range),"
        " boolean masks with masked_fill and where, negative indices.",
        (
            "torch.gather",
            "Tensor.scatter_add",
            "torch.index_select",
            "Tensor.index_put_",
            "torch.take_along_dim",
            "Tensor.masked_fill",
            "torch.index_add",
            "torch.scatter_reduce",
        ),
        (
            "lowering:aten.index.Tensor",
            "lowering:aten.scatter_add.default",
            "metric:num_matches_for_scatter_upon_const_tensor",
        ),
    ),
    Target(
        "views_cat",
        "views, concatenation and splitting",
        "view/reshape/expand/unsqueeze/squeeze chains, cat and stack of pointwise results,"
        " split/chunk/narrow, and views followed by in-place updates.",
        (
            "torch.cat",
            "torch.stack",
            "torch.split",
            "torch.chunk",
            "Tensor.view",
            "Tensor.reshape",
            "Tensor.expand",
            "torch.narrow",
        ),
        ("lowering:aten.cat.default", "inductor:removed_pointless_view_pair"),
    ),
    Target(
        "scans_sorts",
        "scans and sorts",
        "cumsum, cumprod, cummax, logcumsumexp, sort, topk, argsort and searchsorted along"
        " different dims, combined with pointwise ops (use distinct values to avoid ties).",
        (
            "torch.cumsum",
            "torch.cumprod",
            "torch.cummax",
            "torch.logcumsumexp",
            "torch.sort",
            "torch.topk",
            "torch.argsort",
            "torch.searchsorted",
        ),
        ("fallback:aten.cumsum.default", "lowering:aten.sort.stable"),
    ),
    Target(
        "dtypes",
        "dtype casts and type promotion",
        "Mixed-precision code: float16/bfloat16/float64 casts, integer and bool tensors, type"
        " promotion between them, bitwise and comparison ops, casts inside fused chains.",
        (
            "Tensor.to",
            "Tensor.half",
            "Tensor.bfloat16",
            "Tensor.double",
            "torch.bitwise_and",
            "Tensor.int",
            "torch.where",
        ),
        ("metric:cpp_to_dtype_count",),
    ),
    Target(
        "inplace",
        "in-place mutation and functionalization",
        "In-place ops on intermediates, on views of intermediates and on inputs: add_, mul_,"
        " copy_, clamp_, masked_fill_, index_put_, slice assignment x[..., :2] = y.",
        (
            "Tensor.add_",
            "Tensor.mul_",
            "Tensor.copy_",
            "Tensor.clamp_",
            "Tensor.masked_fill_",
            "Tensor.index_put_",
            "Tensor.relu_",
        ),
    ),
    Target(
        "dynamo",
        "Python constructs Dynamo must trace",
        "A loop over an nn.ModuleList, lists and dicts of tensors, tuple unpacking, module"
        " attributes updated in forward, shape-dependent Python branches, a helper function"
        " called from forward, and at most one graph break (torch._dynamo.graph_break()).",
        ("nn.ModuleList", "nn.ModuleDict", "nn.Sequential"),
        ("dynamo:graph_break", "dynamo:graphs_multi"),
    ),
    Target(
        "norms",
        "normalization layers",
        "layer_norm, group_norm, rms_norm, instance_norm, batch norm in eval and normalize,"
        " with and without affine parameters, over odd sizes, followed by activations.",
        (
            "F.layer_norm",
            "F.group_norm",
            "F.rms_norm",
            "nn.LayerNorm",
            "nn.GroupNorm",
            "F.instance_norm",
            "F.normalize",
        ),
    ),
    Target(
        "conv_pool",
        "convolutions, pooling and resampling",
        "conv1d/2d/3d with groups, dilation and stride, transposed convolutions, max/avg/"
        "adaptive pooling, interpolate/upsample in several modes, unfold/fold.",
        (
            "F.conv1d",
            "F.conv_transpose2d",
            "F.max_pool2d",
            "F.avg_pool3d",
            "F.adaptive_avg_pool2d",
            "F.interpolate",
            "F.unfold",
        ),
        ("lowering:aten.convolution.default", "lowering:aten.max_pool2d_with_indices.default"),
    ),
)


@functools.lru_cache(maxsize=1)
def family_targets() -> tuple[Target, ...]:
    """One target per op family of the graph generator, its ops spelled as torch API names."""
    import torch

    from torchsmith.generate.graph import op_families

    out = []
    for fam, names in op_families().items():
        ops: list[str] = []
        for n in names:
            base = n.rstrip("_")
            if hasattr(torch.nn.functional, n):
                ops.append(f"F.{n}")
            elif hasattr(torch, n):
                ops.append(f"torch.{n}")
            elif hasattr(torch.Tensor, n):
                ops.append(f"Tensor.{n}")
            elif hasattr(torch, base):
                ops.append(f"torch.{base}")
        if ops:
            out.append(
                Target(
                    f"family:{fam}",
                    f"the {fam} op family",
                    f"Ops of the {fam} family in unusual combinations, shapes and dtypes.",
                    tuple(ops),
                    family=fam,
                )
            )
    return tuple(out)


def all_targets() -> list[Target]:
    return list(OPTIMIZATION_TARGETS) + list(family_targets())


def select_targets(spec: str | None) -> list[Target]:
    """Targets by comma-separated names or globs (``attention,family:*``); all when empty."""
    targets = all_targets()
    if not spec:
        return targets
    pats = [p.strip() for p in spec.split(",") if p.strip()]
    chosen = [t for t in targets if any(fnmatch.fnmatchcase(t.name, p) for p in pats)]
    if not chosen:
        names = ", ".join(t.name for t in targets)
        raise ValueError(f"no target matches {spec!r}; known targets: {names}")
    return chosen


# -- corpus -------------------------------------------------------------------------------------
def _is_invalid_example(path: Path) -> bool:
    head = path.read_text(errors="replace").splitlines()[:5]
    return any(line.startswith("# expect:") and "invalid" in line for line in head)


def load_corpus(spec: str | Path) -> tuple[list[Program], list[str]]:
    """Programs from files and folders (comma-separated; folders searched recursively, sorted),
    read from their AST only. Returns the programs and one message per file that was skipped.

    ``repro.py`` files of finding folders are skipped: their ``program.py`` is the program.
    """
    programs: list[Program] = []
    skipped: list[str] = []
    paths: list[Path] = []
    for part in str(spec).split(","):
        p = Path(part.strip()).expanduser()
        if not part.strip():
            continue
        if p.is_dir():
            paths += sorted(
                q
                for q in p.rglob("*.py")
                if q.name not in {"__init__.py", "repro.py"} and not q.name.startswith("_")
            )
        elif p.exists():
            paths.append(p)
        else:
            skipped.append(f"{p}: no such file or folder")
    seen: set[str] = set()
    for path in paths:
        try:
            prog = load_program(path, scripts=False)
        except (ProgramFormatError, OSError, ValueError) as e:
            skipped.append(str(e).splitlines()[0])
            continue
        if prog.digest not in seen:
            seen.add(prog.digest)
            name = path.parent.name if path.name == "program.py" else path.stem
            programs.append(dataclasses.replace(prog, name=name))
    return programs, skipped


def default_corpus(generated: int = 16, max_nodes: int = 6) -> list[Program]:
    """The built-in examples that are valid, plus ``generated`` graph-generator programs."""
    from torchsmith.examples import EXAMPLES_DIR
    from torchsmith.generate.graph import GenOptions, generate

    programs: list[Program] = []
    for path in sorted(EXAMPLES_DIR.glob("*.py")):
        if path.name.startswith("_") or _is_invalid_example(path):
            continue
        prog = load_program(path, scripts=False)
        programs.append(dataclasses.replace(prog, name=path.stem))
    opts = GenOptions(max_nodes=max_nodes, min_nodes=min(3, max_nodes))
    programs += [generate(seed, opts) for seed in range(generated)]
    return programs


def family_example(target: Target, seed: int) -> Program | None:
    """A small graph-generator program restricted to the target's family (None if it has none)."""
    if target.family is None:
        return None
    from torchsmith.generate.graph import GenOptions, generate, op_families

    names = op_families().get(target.family)
    if not names:
        return None
    try:
        return generate(seed, GenOptions(ops=",".join(names), max_nodes=5, min_nodes=2))
    except Exception:  # a spec that cannot be satisfied: no example, not a failure
        return None


def _tails(names: list[str] | tuple[str, ...]) -> set[str]:
    return {n.rsplit(".", 1)[-1].rstrip("_").lower() for n in names}


def pick_examples(
    corpus: list[Program], target: Target, rng: random.Random, k: int
) -> list[Program]:
    """``k`` examples, those that share most ops with the target first (ties broken by ``rng``)."""
    from torchsmith.program.ops import source_ops

    want = _tails(target.ops)
    scored = []
    for prog in corpus:
        lines = prog.source.count("\n")
        if lines > 90:
            continue
        overlap = len(want & _tails(source_ops(prog.source)))
        scored.append((-overlap, rng.random(), prog))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [p for _, _, p in scored[:k]]


def example_text(program: Program, max_lines: int = 70) -> str:
    """The program as an example: without leading header comments, at most ``max_lines``."""
    lines = program.source.strip("\n").splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    if len(lines) > max_lines:
        lines = lines[:max_lines] + ["# ..."]
    return "\n".join(lines)


# -- messages -----------------------------------------------------------------------------------
SYSTEM_PROMPT = """\
You write test programs for PyTorch's compiler (torch.compile with the Inductor backend). \
A test program is one Python file in exactly this format:

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):            # layers and parameters (constructor arguments optional)
        super().__init__()
        ...

    def forward(self, x, y):       # the computation under test
        ...
        return out                 # a tensor or a tuple of tensors


def get_inputs():                  # the forward arguments, as a list
    return [torch.randn(4, 8), torch.randn(8)]


def get_init_inputs():             # optional: the constructor arguments, as a list
    return []

Rules:
- It must run without error in eager PyTorch on the CPU: every shape, dim and dtype must agree.
- Deterministic: no randomness inside forward, no dropout with p > 0, no Python random, no time.
- Small tensors (under 100,000 elements each) and float32 unless asked otherwise.
- Module level holds only imports and definitions: no torch.compile, no prints, no asserts, \
no `if __name__ == "__main__":` block, no file or network access.
- Answer with the complete program in one ```python code block."""


def generation_messages(
    target: Target,
    examples: list[Program],
    rare_ops: list[str],
    common_ops: list[str],
    nonce: int,
) -> list[dict[str, str]]:
    """The chat messages that ask for one new program aimed at ``target``."""
    parts = [
        f"Write a new test program that exercises {target.title}.",
        target.description,
    ]
    if rare_ops:
        parts.append(
            "Use at least two of these ops, which earlier programs rarely exercised: "
            + ", ".join(rare_ops)
            + "."
        )
    if common_ops:
        parts.append(
            "These are already well covered; do not build the program around them: "
            + ", ".join(common_ops)
            + "."
        )
    for i, ex in enumerate(examples, 1):
        parts.append(f"Example {i} of the format:\n```python\n{example_text(ex)}\n```")
    parts.append(
        "Make it different from the examples: realistic model code, 3 to 15 operations, shapes"
        f" chosen with care. (Variation #{nonce}.)"
    )
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


REPAIR_CLOSING = (
    "Fix it and answer with the complete corrected program in one ```python code block."
)


def repair_message(problem: str, detail: str = "") -> str:
    """The user turn that sends an error back to the model (``problem`` verbatim)."""
    lines = [f"That program is not usable: {problem}"]
    if detail:
        lines.append(detail)
    lines.append(REPAIR_CLOSING)
    return "\n".join(lines)
