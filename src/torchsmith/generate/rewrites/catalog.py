"""The ``rewrites`` catalog: Inductor's rewrites as the INSTALLED torch registers them.

Read once per process (:func:`build_catalog`, cached) from torch's own files, never from a list
kept here alone: the AST of ``torch/_inductor/fx_passes/*.py`` (functions registered with
``register_graph_pattern`` / ``register_lowering_pattern`` / ``register_replacement`` and their
``pass_dict``, every ``def``, the ``counters[...]["key"]`` keys each file bumps, the
``register_fusion("name")`` batch fusions), the ``_sfdp_pattern_N`` attention patterns of
``fuse_attention.py``, the decomposition table Inductor uses
(``torch._inductor.decomposition.select_decomp_table()``) and the ``torch._inductor.config``
flags that switch passes on.

:data:`KNOWN` says, for the rewrites this family has templates for, where each lives (file and
kind: a registered pattern, a function, a counter, a batch fusion, a decomposed op), which
template matches it, which config flags it needs and which coverage features show it fired. An
entry is in the catalog only when the installed torch has it (and its flags); everything else
the AST finds is listed as ``uncovered`` (GPU-only passes, quantization, ...).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
from typing import Any

#: Files read first (relative to ``torch/_inductor``); the other ``fx_passes`` files follow.
FILES = (
    "fx_passes/joint_graph.py",
    "fx_passes/post_grad.py",
    "fx_passes/pre_grad.py",
    "fx_passes/fuse_attention.py",
    "fx_passes/binary_folding.py",
    "fx_passes/efficient_conv_bn_eval.py",
    "fx_passes/split_cat.py",
    "fx_passes/group_batch_fusion.py",
    "fx_passes/freezing_patterns.py",
    "fx_passes/mkldnn_fusion.py",
    "fx_passes/pad_mm.py",
    "fx_passes/misc_patterns.py",
    "fx_passes/decompose_mem_bound_mm.py",
    "fx_passes/quantization.py",
    "decomposition.py",
)

FREEZE = {"inductor.freezing": True}


@dataclasses.dataclass(frozen=True)
class Known:
    """What this family knows of one rewrite (see the module docstring)."""

    name: str
    file: str  # under torch/_inductor
    kind: str  # pattern | function | counter | fusion | decomp | file
    template: str
    pass_name: str
    config: tuple[tuple[str, Any], ...] = ()
    fired_if: tuple[str, ...] = ()  # any of these coverage features present
    fired_unless: tuple[str, ...] = ()  # (else) none of these present


def _k(
    name: str,
    file: str,
    kind: str,
    template: str,
    pass_name: str,
    config: Any = None,
    fired_if: tuple[str, ...] = (),
    fired_unless: tuple[str, ...] = (),
) -> Known:
    cfg = tuple(sorted((config or {}).items()))
    return Known(name, file, kind, template, pass_name, cfg, fired_if, fired_unless)


JG, PG, FA = "fx_passes/joint_graph.py", "fx_passes/post_grad.py", "fx_passes/fuse_attention.py"
SC, GB = "fx_passes/split_cat.py", "fx_passes/group_batch_fusion.py"
MK, FZ = "fx_passes/mkldnn_fusion.py", "fx_passes/freezing_patterns.py"
DEC = "decomposition.py"
QZ = "fx_passes/quantization.py"
P = "pattern:"  # per-pattern hits (TORCHINDUCTOR_PATTERN_MATCH_DEBUG), see bench/rewrites_fired.py
PRE = "inductor.pre_grad_fusion_options"
POST = "inductor.post_grad_fusion_options"


def _sc(name: str, counter: str, template: str, passes: dict[str, Any], where: str = PRE) -> Known:
    return _k(
        name,
        SC,
        "pattern",
        template,
        f"split_cat.{counter}",
        {where: passes},
        (f"inductor:{counter}",),
    )


_SPLIT_NORM = {"normalization_pass": {}}
_SDPA = ("inductor:fuse_attention",)

KNOWN: tuple[Known, ...] = (
    # -- joint graph (joint_graph.py): early_patterns, patterns, constant folding ----------------
    _k("pointless_view", JG, "pattern", "views", "joint_graph.early_patterns", None,
       (P + "CallFunction_aten.view.default", "inductor:removed_pointless_view_pair")),
    _k("pointless_view_pair", JG, "pattern", "views", "joint_graph.early_patterns", None,
       ("inductor:removed_pointless_view_pair",)),
    _k("pointless_permute_pair", JG, "pattern", "permutes", "joint_graph.early_patterns", None,
       (P + "CallFunction_aten.permute.default",)),
    _k("pointless_convert", JG, "pattern", "convert_chain", "joint_graph.patterns", None,
       (P + "CallFunction_prims.convert_element_type.default",)),
    _k("mul_softmax_pattern", JG, "function", "scaled_softmax", "joint_graph.patterns", None,
       (P + "CallFunction_aten.sub.Tensor",)),
    _k("div_softmax_pattern", JG, "function", "scaled_softmax", "joint_graph.patterns", None,
       (P + "CallFunction_aten.sub.Tensor",)),
    _k("scatter_upon_const_tensor", JG, "pattern", "one_hot", "joint_graph.patterns", None,
       (P + "CallFunction_aten.scatter.value",
        "metric:num_matches_for_scatter_upon_const_tensor")),
    _k("constant_fold_uniform_value", JG, "function", "uniform_fold",
       "joint_graph.constant_fold_uniform_value + remove_no_ops", None, (),
       ("lowering:aten.mul.Tensor", "lowering:aten.div.Tensor", "lowering:aten.add.Tensor",
        "lowering:aten.sub.Tensor")),
    # -- post grad (post_grad.py) ----------------------------------------------------------------
    _k("remove_noop_ops", PG, "function", "noop_ops", "post_grad.remove_noop_ops"),
    _k("pointless_cumsum_replacement", PG, "pattern", "full_cumsum", "post_grad.pass_patterns[1]",
       None, (P + "CallFunction_aten.cumsum.default",)),
    _k("cat_slice_cat", PG, "pattern", "cat_slice_cat", "post_grad.pass_patterns[2] (lowering)",
       None, (P + "CallFunction_aten.cat.default",)),
    _k("splitwithsizes_cat_replace", PG, "pattern", "split_cat_identity",
       "post_grad.pass_patterns[2] (lowering)", None, (P + "CallFunction_aten.cat.default",)),
    _k("cat_splitwithsizes_replace", PG, "pattern", "cat_split_identity",
       "post_grad.pass_patterns[2] (lowering)", None,
       (P + "CallFunction_aten.split_with_sizes.default",)),
    _k("addmm", PG, "pattern", "mm_bias", "post_grad.pass_patterns[2]", None,
       ("mm:addmm", P + "CallFunction_aten.add.Tensor")),
    # -- decompositions (decomposition.py): small matmuls, and the decomposition table --------------
    _k("decompose_mm", DEC, "counter", "small_mm", "decomposition.mm", None,
       ("inductor:decompose_mm",)),
    _k("decompose_addmm", DEC, "counter", "small_addmm", "decomposition.addmm", None,
       ("inductor:decompose_addmm",)),
    _k("decompose_bmm", DEC, "counter", "small_bmm", "decomposition.bmm", None,
       ("inductor:decompose_bmm",)),
    # -- scaled dot-product attention (fuse_attention.py, joint_graph.patterns) -------------------
    *(_k(f"_sfdp_pattern_{n}", FA, "function", tpl, "joint_graph.patterns (fuse_attention)",
         None, _SDPA)
      for tpl, ns in (("sfdp_basic", (1, 2, 3, 4, 13)), ("sfdp_mask", (5, 6)),
                      ("sfdp_permute", (7, 8, 9, 10, 11, 12, 14)),
                      ("sfdp_masked_fill", (15, 16, 17, 20)), ("sfdp_causal", (18, 19)),
                      ("sfdp_float_softmax", (21, 22, 23, 25, 26, 27)), ("sfdp_bmm_view", (24,)))
      for n in ns),
    # -- freezing: binary folding, conv-bn, mkldnn fusions, concat linear -------------------------
    _k("folded_op", "fx_passes/binary_folding.py", "pattern", "conv_binary_folding",
       "freezing_patterns.binary_folding_pass", FREEZE,
       ("inductor:binary_folding_conv", "inductor:binary_folding")),
    _k("fuse_conv_bn", "fx_passes/pre_grad.py", "function", "conv_bn_freezing",
       "pre_grad.fuse_fx (freezing)", FREEZE,
       ("inductor:binary_folding_conv", "inductor:mkldnn_conv_weight_pack_matcher_count")),
    _k("_register_unary_fusion", MK, "function", "mkldnn_conv_unary", "mkldnn_fusion (post grad)",
       FREEZE, ("inductor:mkldnn_unary_fusion_matcher_count",)),
    _k("_register_binary_unary_fusion", MK, "function", "mkldnn_conv_binary",
       "mkldnn_fusion (post grad)", FREEZE,
       ("inductor:mkldnn_conv_binary_unary_fusion_matcher_count",)),
    _k("_register_weight_pack_pass", MK, "function", "mkldnn_linear",
       "freezing_patterns.pass_patterns (mkldnn weight pack)", FREEZE,
       ("inductor:mkldnn_linear_weight_pack_matcher_count",)),
    _k("matmul_fuse_pattern", FZ, "function", "concat_linear", "freezing_patterns.pass_patterns[0]",
       {**FREEZE, "inductor.cpp.enable_concat_linear": True}, (P + "MultiOutputPattern_",)),
    _k("efficient_conv_bn_eval_graph_transform_decomposed", "fx_passes/efficient_conv_bn_eval.py",
       "pattern", "efficient_conv_bn_eval", "pre_grad.efficient_conv_bn_eval_pass",
       {"inductor.efficient_conv_bn_eval_fx_passes": True}, ("inductor:efficient_conv_bn_eval",)),
    _k("apply_gumbel_max_trick", "fx_passes/apply_gumbel_max_trick.py", "pattern",
       "gumbel_sampling", "pre_grad.apply_gumbel_max_trick_pass", None,
       ("inductor:apply_gumbel_max_trick",)),
    # -- split / cat (split_cat.py), switched on by the fusion options ----------------------------
    _sc("merge_splits", "merge_splits_pass", "split_cat", {**_SPLIT_NORM, "merge_splits_pass": {}}),
    _k("simplify_split_cat", SC, "pattern", "split_cat", "split_cat.split_cat_pass",
       {PRE: {**_SPLIT_NORM, "split_cat_pass": {}}},
       ("inductor:split_cat_pass", "inductor:scmerge_")),
    _k("merge_split_squeeze", SC, "pattern", "split_cat", "split_cat.split_cat_pass",
       {PRE: {**_SPLIT_NORM, "split_cat_pass": {}}},
       ("inductor:split_cat_pass", P + "RepeatedExpr_")),
    _sc("merge_getitem_cat", "merge_getitem_cat_pass", "split_cat",
        {**_SPLIT_NORM, "merge_getitem_cat_pass": {}}),
    _sc("split_cat_to_slices", "split_cat_to_slices_pass", "split_cat",
        {**_SPLIT_NORM, "split_cat_to_slices_pass": {}}),
    _sc("split_stack_to_cats", "split_stack_to_cats_pass", "split_cat",
        {**_SPLIT_NORM, "split_stack_to_cats_pass": {}}),
    _sc("replace_einsum_to_pointwise", "einsum_to_pointwise_pass", "einsum_pointwise",
        {"einsum_to_pointwise_pass": {}}),
    _sc("mutate_cat_node", "mutate_cat_pass", "split_cat", {**_SPLIT_NORM, "mutate_cat_pass": {}}),
    _sc("move_reshape_out_of_split_stack", "move_reshape_out_of_split_stack_pass", "split_cat",
        {**_SPLIT_NORM, "move_reshape_out_of_split_stack_pass": {}}),
    _sc("merge_unbind_stack", "unbind_stack_pass", "unbind_stack",
        {**_SPLIT_NORM, "unbind_stack_pass": {}}),
    _sc("unbind_cat_to_view", "unbind_cat_to_view_pass", "unbind_stack",
        {**_SPLIT_NORM, "unbind_cat_to_view_pass": {}}),
    _sc("unbind_stack_to_slices", "unbind_stack_to_slices_pass", "unbind_stack",
        {**_SPLIT_NORM, "unbind_stack_to_slices_pass": {}}),
    _sc("merge_split_cat_aten", "split_cat_aten_pass", "split_cat_aten",
        {"normalization_aten_pass": {}, "split_cat_aten_pass": {}}, POST),
    _sc("merge_select_cat_aten", "select_cat_aten_pass", "split_cat_aten",
        {"normalization_aten_pass": {}, "select_cat_aten_pass": {}}, POST),
    _sc("merge_unbind_stack_aten", "unbind_stack_aten_pass", "split_cat_aten",
        {"normalization_aten_pass": {}, "unbind_stack_aten_pass": {}}, POST),
    # -- batch fusions (group_batch_fusion.py) ----------------------------------------------------
    *(_k(n, GB, "fusion", tpl, f"group_batch_fusion.{n} (pre grad)", None, (f"inductor:{n}",))
      for tpl, names in (("batch_linear", ("batch_linear", "batch_linear_lhs")),
                         ("batch_pointwise", ("batch_tanh", "batch_sigmoid", "batch_relu",
                                              "batch_clamp", "batch_nan_to_num",
                                              "batch_layernorm")))
      for n in names),
    *(_k(n, GB, "fusion", "batch_aten", f"group_batch_fusion.{n} (post grad)", None,
         (f"inductor:{n}",))
      for n in ("batch_aten_tanh", "batch_aten_sigmoid", "batch_aten_relu", "batch_aten_add",
                "batch_aten_sub", "batch_aten_mul", "batch_aten_div", "batch_linear_post_grad")),
    # -- weight-only int8 linear (quantization.py, post-grad lowering, registered by default) ---
    _k("woq_int8", "fx_passes/quantization.py", "pattern", "woq_int8",
       "post_grad.woq_int8 (mkldnn lowering)", None, ("inductor:woq_matcher_count",)),
    _k("_int_mm_weight_prepack", "fx_passes/quantization.py", "pattern", "int_mm_smooth_quant",
       "freezing_patterns (SmoothQuant int8 linear)", FREEZE,
       ("inductor:qlinear_weight_prepack_matcher_count",)),
    # -- PT2E quantization (quantization.py): weight prepack and post-op fusions under freezing,
    # the int8 max-pool / cat / reshape lowerings by default (templates_quant.py) ---------------
    *(_k(n, QZ, "function", "qconv_qlinear", f"quantization.{n} (freezing)", FREEZE, feats)
      for n, feats in (
          ("_register_qconv_weight_prepack", ("inductor:qconv_weight_prepack_matcher_count",)),
          ("_register_qlinear_weight_prepack", ("inductor:qlinear_weight_prepack_matcher_count",)),
          ("_register_qconv_binary_fusion", ("inductor:qconv_weight_prepack_matcher_count",)),
          ("_register_qlinear_binary_fusion", ("inductor:qlinear_binary_lower_count",)),
          ("_register_qconv_unary_fusion", ("inductor:qconv_unary_lower_count",)),
          ("_register_qlinear_unary_fusion", ("inductor:qlinear_unary_lower_count",)),
          ("_register_dequant_promotion", ("inductor:dequant_promotion_matcher_count",)))),
    *(_k(n, QZ, "function", "qpool_cat_reshape", f"quantization.{n} (post grad)", None, feats)
      for n, feats in (
          ("_register_quantization_maxpool2d", ("inductor:qmaxpool2d_matcher_count",)),
          ("_register_quantization_cat", ("inductor:qcat_matcher_count",)),
          ("_register_quantization_reshape", ("inductor:qreshape_matcher_count",)))),
    # -- memory passes: the auto-chunker (a graph pass in a package), the partitioned scatter --------
    _k("auto_chunker", "fx_passes/auto_chunker/__init__.py", "file", "auto_chunk",
       "joint_graph.auto_chunker", {"inductor.auto_chunker.enable": True},
       ("metric:num_auto_chunking",)),
    _k("create_replacement", "fx_passes/reduced_atomic_contention.py", "pattern",
       "partitioned_scatter", "post_grad.partitioned_scatter_optimization",
       {"inductor.partitioned_scatter_enabled": True},
       ("inductor:partitioned_scatter_applied",)),
    # -- misc (misc_patterns.py) ------------------------------------------------------------------
    _k("NumpyCompatNormalization", "fx_passes/misc_patterns.py", "function", "numpy_compat",
       "pre_grad.numpy_compat_normalization", None, ("inductor:numpy_compat_normalization",)),
)  # fmt: skip

#: Ops the ``decomp_op`` template calls: (catalog name, aten packet decomposed by Inductor).
DECOMP_OPS = (
    "lerp", "hardswish", "hardsigmoid", "silu", "mish", "elu", "celu", "selu", "softplus",
    "leaky_relu", "hardtanh", "logit", "softshrink", "hardshrink", "threshold", "mse_loss",
    "l1_loss", "smooth_l1_loss", "huber_loss", "addmv", "addr", "native_layer_norm",
    "native_group_norm", "nan_to_num", "roll", "tril", "triu", "var_mean", "std_mean",
    "logsumexp", "rsub", "upsample_bilinear2d", "im2col", "pixel_shuffle", "pixel_unshuffle",
    "binary_cross_entropy", "cosine_similarity", "linalg_vector_norm", "xlogy", "logaddexp",
    "renorm", "sinc", "heaviside", "float_power", "kl_div", "prelu", "diag_embed", "trace",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Entry:
    """One rewrite of the installed torch that a template matches."""

    name: str
    source: str  # "fx_passes/joint_graph.py:pointless_view"
    pass_name: str
    template: str
    config: dict[str, Any]
    fired_if: tuple[str, ...]
    fired_unless: tuple[str, ...]


@dataclasses.dataclass
class Catalog:
    torch_version: str
    entries: dict[str, Entry]  # by name
    #: registered rewrites the AST found that no template covers: "file:name (pass)"
    uncovered: list[str]
    #: per file: how many registered patterns / functions / counters were read
    read: dict[str, dict[str, int]]

    def __len__(self) -> int:
        return len(self.entries)

    def by_template(self) -> dict[str, list[Entry]]:
        out: dict[str, list[Entry]] = {}
        for e in self.entries.values():
            out.setdefault(e.template, []).append(e)
        return out


@dataclasses.dataclass
class FileFacts:
    handlers: dict[str, str]  # registered function -> its pass_dict (or registering call)
    defs: set[str]
    counters: set[str]
    fusions: set[str]


def _call_name(node: ast.AST) -> str:
    return ast.unparse(node.func).rsplit(".", 1)[-1] if isinstance(node, ast.Call) else ""


def read_file(path: str) -> FileFacts:
    """What one of torch's pass files registers (AST only; nothing is imported)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    facts = FileFacts({}, set(), set(), set())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            facts.defs.add(node.name)
            for dec in node.decorator_list:
                name = _call_name(dec)
                if name == "register_fusion" and isinstance(dec, ast.Call) and dec.args:
                    arg = dec.args[0]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        facts.fusions.add(arg.value)
                elif name.startswith("register") and ("pattern" in name or "replacement" in name):
                    assert isinstance(dec, ast.Call)
                    pd = [ast.unparse(k.value) for k in dec.keywords if k.arg == "pass_dict"]
                    facts.handlers[node.name] = pd[0] if pd else name
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript):
            inner = node.value.value
            key = node.slice
            if (
                isinstance(inner, ast.Name)
                and inner.id == "counters"
                and isinstance(key, ast.Constant)
                and isinstance(key.value, str)
            ):
                facts.counters.add(key.value)
    return facts


def _has_config(key: str) -> bool:
    import torch._inductor.config as inductor_config

    obj: Any = inductor_config
    for part in key.split(".")[1:]:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def _present(k: Known, facts: FileFacts) -> bool:
    if k.kind == "pattern":
        return k.name in facts.handlers or k.name in facts.defs
    if k.kind == "function":
        return k.name in facts.defs
    if k.kind == "counter":
        return k.name in facts.counters
    if k.kind == "fusion":
        return k.name in facts.fusions
    return k.kind == "file"  # a graph pass that registers nothing: its file is there


def decomposed_ops() -> set[str]:
    """The aten packets (``aten.lerp``) Inductor decomposes: its decomposition table's keys."""
    from torch._inductor.decomposition import select_decomp_table

    return {str(op.overloadpacket) for op in select_decomp_table() if hasattr(op, "overloadpacket")}


@functools.cache
def build_catalog() -> Catalog:
    """The catalog of the installed torch (read once per process)."""
    import torch

    root = os.path.join(os.path.dirname(torch.__file__), "_inductor")
    facts: dict[str, FileFacts] = {}
    # every other pass file too: a pass a new torch adds (apply_gumbel_max_trick.py, on by
    # default since 2.10, was missed that way) is then listed uncovered instead of unseen
    # and the modules of pass packages (fx_passes/auto_chunker/, since 2.10)
    passes = os.path.join(root, "fx_passes")
    more = sorted(f"fx_passes/{n}" for n in os.listdir(passes))
    more += sorted(
        f"fx_passes/{d}/{n}"
        for d in os.listdir(passes)
        if os.path.isfile(os.path.join(passes, d, "__init__.py"))
        for n in os.listdir(os.path.join(passes, d))
    )
    for rel in (*FILES, *(r for r in more if r.endswith(".py") and r not in FILES)):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            facts[rel] = read_file(path)
    entries: dict[str, Entry] = {}
    covered: set[tuple[str, str]] = set()
    for k in KNOWN:
        f = facts.get(k.file)
        if f is None or not _present(k, f) or not all(_has_config(c) for c, _ in k.config):
            continue
        covered.add((k.file, k.name))
        entries[k.name] = Entry(
            k.name,
            f"{k.file}:{k.name}",
            k.pass_name,
            k.template,
            dict(k.config),
            k.fired_if,
            k.fired_unless,
        )
    decomposed = decomposed_ops()
    for op in DECOMP_OPS:
        if f"aten.{op}" in decomposed:
            name = f"decomp.{op}"
            entries[name] = Entry(
                name,
                f"{DEC}:select_decomp_table[aten.{op}]",
                "decomposition table",
                "decomp_op",
                {},
                (),
                (f"lowering:aten.{op}.", f"fallback:aten.{op}."),
            )
    uncovered = []
    for rel, f in facts.items():
        for name, pd in sorted(f.handlers.items()):
            if (rel, name) not in covered:
                uncovered.append(f"{rel}:{name} ({pd})")
        if rel.endswith("fuse_attention.py"):
            uncovered += [
                f"{rel}:{n}"
                for n in sorted(f.defs)
                if n.startswith("_sfdp_pattern_") and (rel, n) not in covered
            ]
    read = {
        rel: {
            "patterns": len(f.handlers),
            "defs": len(f.defs),
            "counters": len(f.counters),
            "fusions": len(f.fusions),
        }
        for rel, f in facts.items()
    }
    read["decomposition table"] = {"ops": len(decomposed)}
    return Catalog(torch.__version__, entries, uncovered, read)


def features_fired(entry_or_expect: tuple[tuple[str, ...], tuple[str, ...]], feats: Any) -> bool:
    """Whether coverage features ``feats`` show a rewrite fired: any ``fired_if`` feature
    present (a trailing ``*`` or ``.`` or ``_`` matches as a prefix), else, when only
    ``fired_unless`` is given, none of those present (prefixes alike)."""
    fired_if, fired_unless = entry_or_expect

    def has(key: str) -> bool:
        if key.endswith(("*", ".", "_")):
            prefix = key.rstrip("*")
            return any(str(f).startswith(prefix) for f in feats)
        return key in feats

    if fired_if:
        return any(has(k) for k in fired_if)
    if fired_unless:
        return not any(has(k) for k in fired_unless)
    return False
