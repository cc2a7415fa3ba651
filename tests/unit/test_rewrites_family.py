"""The ``rewrites`` generator family without workers: the catalog is read from the installed
torch, same seed same bytes, every template reachable, canonical programs that run in eager
in-process (the worker's runtime, called directly), the declared settings and notes, options
and the retry loop. tests/integration/test_rewrites_family_compile.py compiles some of them
and checks that their rewrite fired."""

from __future__ import annotations

import ast
import re
import textwrap
from collections import Counter

import pytest
import torch

from torchsmith.generate.mix import DEFAULT_FAMILIES
from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.generate.rewrites.catalog import build_catalog, features_fired, read_file
from torchsmith.generate.rewrites.generator import (
    TEMPLATES,
    RewritesGenerator,
    choices,
    note_of,
    render_program,
    template_for,
)
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.program.format import declared_settings, entry_of, is_canonical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Verdict


@pytest.fixture(scope="module")
def table():
    return choices(build_catalog())


def passes(p) -> CheckResult:
    return CheckResult(Verdict.PASS, reason="valid in eager")


def test_the_catalog_is_read_from_the_installed_torch():
    cat = build_catalog()
    import torch

    assert cat.torch_version == torch.__version__
    names = set(cat.entries)
    attention = {n for n in names if n.startswith("_sfdp_pattern_")}
    assert len(attention) >= 10, "no scaled-dot-product attention pattern found"
    passes_ = {e.pass_name.split(".")[0] for e in cat.entries.values()}
    assert {"joint_graph", "post_grad", "decomposition", "split_cat"} <= passes_, passes_
    assert {"addmm", "pointless_view", "pointless_cumsum_replacement", "folded_op"} <= names
    assert sum(n.startswith("decomp.") for n in names) >= 30  # from the decomposition table
    assert cat.read["fx_passes/post_grad.py"]["patterns"] >= 5
    assert cat.read["decomposition table"]["ops"] > 500
    assert cat.uncovered  # registered rewrites no template covers are listed, not hidden
    assert all(e.source.split(":")[0].endswith(".py") for e in cat.entries.values())
    freezing = cat.entries["folded_op"]
    assert freezing.config == {"inductor.freezing": True}
    assert build_catalog() is cat  # read once per process


def test_read_file_finds_registrations_counters_and_fusions(tmp_path):
    src = tmp_path / "passes.py"
    src.write_text(
        textwrap.dedent(
            """
            @register_graph_pattern(CallFunction(aten.mm, Arg(), Arg()), pass_dict=patterns)
            def fold_it(match, a, b):
                counters["inductor"]["fold_it_count"] += 1

            @register_fusion("batch_thing")
            class BatchThing:
                pass

            def helper():
                pass
            """
        )
    )
    facts = read_file(str(src))
    assert facts.handlers == {"fold_it": "patterns"}
    assert facts.counters == {"fold_it_count"} and facts.fusions == {"batch_thing"}
    assert {"fold_it", "BatchThing", "helper"} <= facts.defs


def test_same_seed_same_bytes_different_seeds_differ(table):
    for seed in (0, 7, 123):
        a = render_program(seed, 0, table)
        assert a.source == render_program(seed, 0, table).source
        assert render_program(seed, 1, table).source != a.source
        g1 = RewritesGenerator().generate(seed, GenContext(eager_check=passes))
        g2 = RewritesGenerator().generate(seed, GenContext(eager_check=passes))
        assert g1 is not None and g2 is not None and g1.source == g2.source == a.source
    assert len({render_program(s, 0, table).source for s in range(40)}) == 40


def test_every_template_is_reached_within_300_seeds(table):
    assert {t.name for t, _ in table} == set(TEMPLATES)  # all supported by this torch
    assert len(TEMPLATES) >= 25
    used = Counter(note_of(render_program(s, 0, table), "template") for s in range(300))
    assert set(used) == set(TEMPLATES), set(TEMPLATES) - set(used)
    assert sorted(template_for(s, 7) for s in range(7)) == list(range(7))
    entries = {note_of(render_program(s, 0, table), "pattern") for s in range(300)}
    assert len(entries) >= 60


def _run_eager(p):
    """The program's eager outputs (a crash fails the test)."""
    loaded = runtime.load(p, 0)
    return runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False).out


def test_programs_are_canonical_and_run_in_eager(table):
    ok = 0
    programs = [render_program(s, 0, table) for s in range(60)]
    for p in programs:
        tree = ast.parse(p.source)
        assert is_canonical(tree) and entry_of(tree, p.name) == p.model
        assert program_from_source(p.source, name=p.name, scripts=False).model == p.model
        assert p.origin == "generated" and p.notes[0] == "family=rewrites"
        assert note_of(p, "pattern") and note_of(p, "source")
        assert note_of(p, "expect") or note_of(p, "absent") or note_of(p, "pattern") == "none"
        try:
            _run_eager(p)
        except Exception:
            continue
        ok += 1
    assert ok >= 0.97 * len(programs)


def test_declared_settings_turn_the_passes_on(table):
    seen = Counter()
    for s in range(300):
        p = render_program(s, 0, table)
        _, config, check = declared_settings(p.source)
        tpl = note_of(p, "template")
        if tpl in ("conv_binary_folding", "mkldnn_linear", "concat_linear"):
            assert config.get("inductor.freezing") is True
            seen["freezing"] += 1
        if tpl in ("split_cat", "batch_linear", "batch_pointwise"):
            assert "inductor.pre_grad_fusion_options" in config
            seen["pre_grad"] += 1
        if tpl == "split_cat_aten":
            assert "inductor.post_grad_fusion_options" in config
        if check.get("grad"):
            assert note_of(p, "mode") == "grad"
            seen["grad"] += 1
    assert seen["freezing"] and seen["pre_grad"] and seen["grad"]


def test_variation_covers_dtypes_layouts_and_keywords(table):
    sources = [render_program(s, 0, table).source for s in range(300)]
    text = "\n".join(sources)
    for needle in ("torch.float16", "torch.bfloat16", "torch.float64", "torch.int64",
                   ".transpose(-2, -1)", "channels_last", ".expand(", "beta=", "alpha=",
                   "keepdim", "dim=", "class Model", "def fn("):  # fmt: skip
        assert needle in text, needle


def test_features_fired():
    assert features_fired((("inductor:fuse_attention",), ()), {"inductor:fuse_attention"})
    assert not features_fired((("inductor:fuse_attention",), ()), {"inductor:x"})
    assert features_fired((("pattern:MultiOutputPattern_",), ()), {"pattern:MultiOutputPattern_a"})
    lowered = {"lowering:aten.lerp.Scalar"}
    assert not features_fired(((), ("lowering:aten.lerp.",)), lowered)
    assert features_fired(((), ("lowering:aten.lerp.",)), {"lowering:aten.add.Tensor"})
    assert not features_fired(((), ()), {"anything"})


def test_options_filter_and_registry():
    gen = get_generator("rewrites", patterns="sfdp_")
    assert isinstance(gen, RewritesGenerator)
    assert all(t.name.startswith("sfdp_") for t, _ in gen.table)
    one = RewritesGenerator(patterns="^pointless_cumsum_replacement$")
    assert [(t.name, [e.name for e in es]) for t, es in one.table] == [
        ("full_cumsum", ["pointless_cumsum_replacement"])
    ]
    assert all(note_of(next(one.candidates(s)), "pattern") == "pointless_cumsum_replacement"
               for s in range(5))  # fmt: skip
    with pytest.raises(ValueError, match="no template"):
        RewritesGenerator(patterns="^nothing-like-this$")
    assert DEFAULT_FAMILIES["rewrites"] == 1.5


def test_invalid_candidates_are_retried_then_given_up():
    seen: list[str] = []

    def fails_twice(p) -> CheckResult:
        seen.append(p.source)
        return CheckResult(Verdict.PASS if len(seen) > 2 else Verdict.INVALID, reason="stub")

    gen = RewritesGenerator(max_tries=4)
    p = gen.generate(3, GenContext(eager_check=fails_twice))
    assert p is not None and p.source == seen[-1] and len(set(seen)) == 3
    st = gen.stats
    assert (st.programs, st.tries, st.valid, st.produced) == (1, 3, 1, 1)
    assert st.verdicts == Counter({"invalid": 2, "pass": 1})
    assert st.to_dict()["valid_rate"] == round(1 / 3, 4)

    def never(p) -> CheckResult:
        return CheckResult(Verdict.INVALID, reason="stub")

    gen = RewritesGenerator(max_tries=2)
    assert gen.generate(5, GenContext(eager_check=never)) is None
    assert gen.stats.tries == 2 and gen.stats.produced == 0


def test_split_cat_programs_change_some_results_in_place(table):
    """The pre-grad split/cat passes run before functionalization: a share of their programs
    changes the result in place (the inputs after the call are judged too), and
    ``mutate_cat_pass`` has a template (bench/found/split_cat_passes_alias_input.py)."""
    assert "mutate_cat_node" in build_catalog().entries
    inplace, mutate_cat = 0, 0
    for s in range(1000):
        p = render_program(s, 0, table)
        if note_of(p, "template") not in ("split_cat", "unbind_stack"):
            continue
        mutate_cat += note_of(p, "pattern") == "mutate_cat_node"
        drawn = re.search(r"inplace=(\S+\)),", p.source)  # the template's variant line
        if drawn:
            inplace += 1
            tree = ast.parse(p.source)
            body = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
            fn = next(n for n in body if n.name in ("fn", "forward"))
            calls = [ast.unparse(st) for st in fn.body if isinstance(st, ast.Expr)]
            assert f"y.{drawn.group(1)}" in calls
            _run_eager(p)
    assert inplace >= 3 and mutate_cat >= 1


def test_einsum_programs_draw_the_diagonal_form_the_pass_mistakes(table):
    """``einsum_to_pointwise_pass``'s template draws "bcd,bcde->bce" with random letters and,
    in a share, a repeated letter (bench/found/einsum_to_pointwise_repeated_subscript.py)."""
    forms = Counter()
    for s in range(3000):  # until both forms are seen (a share of the template's draws)
        p = render_program(s, 0, table)
        if note_of(p, "template") != "einsum_pointwise":
            continue
        eq = re.search(r"einsum\('(\w+),(\w+)->(\w+)'", p.source)
        assert eq and len(eq.group(2)) == 4, p.source
        forms["diagonal" if len(set(eq.group(2))) == 3 else "sum"] += 1
        _run_eager(p)
        if forms["sum"] and forms["diagonal"]:
            break
    assert forms["sum"] >= 1 and forms["diagonal"] >= 1, forms


def test_reshaped_split_pieces_are_stacked_in_both_widths(table):
    """``move_reshape_out_of_split_stack_pass``'s template stacks reshaped split pieces, of
    width one (the pass's own test) and wider (where it permutes the input wrongly,
    bench/found/move_reshape_out_of_split_stack_wide_pieces.py); each runs in eager."""
    widths = Counter()
    only = choices(build_catalog(), "move_reshape_out_of_split_stack")
    for s in range(30):
        p = render_program(s, 0, only)
        assert note_of(p, "pattern") == "move_reshape_out_of_split_stack"
        m = re.search(r"torch\.split\(\w+, (\d+), -?\d+\)", p.source)
        assert m and "torch.stack(r, dim=" in p.source and "reshape(" in p.source, p.source
        widths["one" if m.group(1) == "1" else "wide"] += 1
        _run_eager(p)
    assert widths["one"] >= 1 and widths["wide"] >= 1, widths


def test_conv_bn_eval_programs_draw_linears_on_3d_inputs_and_keyword_convs(table):
    """``efficient_conv_bn_eval``'s template also draws a ``Linear`` before the ``BatchNorm1d``
    on 3-d inputs (bench/found/efficient_conv_bn_eval_linear_bn1d_3d.py) and convolutions called
    with keyword arguments (#196165); each runs in eager."""
    kinds = Counter()
    only = choices(build_catalog(), "efficient_conv_bn_eval")
    for s in range(120):
        p = render_program(s, 0, only)
        assert note_of(p, "template") == "efficient_conv_bn_eval"
        if "self.lin(" in p.source:
            kinds["linear3" if "linear=rank3" in p.source else "linear2"] += 1
        elif "bias=self.conv.bias" in p.source:
            kinds["keywords"] += 1
        else:
            kinds["module"] += 1
        _run_eager(p)
    assert min(kinds[k] for k in ("linear3", "linear2", "keywords", "module")) >= 1, kinds


def test_gumbel_sampling_programs_draw_the_rates_and_dims_callers_write(table):
    """The default-on ``apply_gumbel_max_trick`` pass has a template (its file was outside the
    catalog's list; every ``fx_passes`` file is read now): rates as callers write them (the
    default among them: bench/found/gumbel_max_trick_default_rate_crash.py) and softmax dims
    other than the argmax's (bench/found/gumbel_max_trick_softmax_dim.py); each runs in eager."""
    assert "apply_gumbel_max_trick" in build_catalog().entries
    drawn = Counter()
    only = choices(build_catalog(), "gumbel_sampling")
    for s in range(40):
        p = render_program(s, 0, only)
        assert note_of(p, "template") == "gumbel_sampling"
        assert "exponential_(" in p.source and "torch.argmax(probs / q, dim=-1" in p.source
        drawn["default rate" if ".exponential_()" in p.source else "rate"] += 1
        drawn["other dim" if "softmax_dim=-1" not in p.source else "last dim"] += 1
        _run_eager(p)
    assert min(drawn[k] for k in ("default rate", "rate", "other dim", "last dim")) >= 1, drawn


def test_batch_fusion_programs_mix_dtypes_and_cover_the_post_grad_fusions(table):
    """The post-grad batch fusions have a template (``batch_aten``: unary and binary ops,
    ``alpha`` in a share, ``mm``s), and the batch templates give one input another dtype in a
    share, returned unstacked (bench/found/batch_aten_unary_post_grad_dtype.py); each runs in
    eager."""
    cat = build_catalog()
    assert {"batch_aten_tanh", "batch_aten_sub", "batch_linear_post_grad"} <= set(cat.entries)
    seen = Counter()
    only = choices(cat, "batch_aten|batch_pointwise")
    for s in range(60):
        p = render_program(s, 0, only)
        assert note_of(p, "template") in ("batch_aten", "batch_pointwise")
        mixed = "mixed_dtypes=True" in p.source
        seen[(note_of(p, "template"), mixed)] += 1
        if mixed:
            assert "torch.stack(" not in p.source and "torch.cat(" not in p.source, p.source
        seen["alpha"] += "alpha=" in p.source
        _run_eager(p)
    assert all(seen[(t, m)] for t in ("batch_aten", "batch_pointwise") for m in (True, False))
    assert seen["alpha"] >= 1, seen


def test_batch_pointwise_draws_in_place_writes_around_the_batched_calls(table):
    """A share of ``batch_pointwise`` programs update the input between the batched calls or
    call ``F.relu(h, inplace=True)`` on intermediates (the pre-grad fusions hoist the stacked op
    above the update and run the in-place relu on a copy: bench/found/batch_fusion_pre_grad_*);
    each runs in eager, and in the update form the stacked results differ call by call."""
    only = choices(build_catalog(), "batch_pointwise")
    forms = Counter()
    for s in range(80):
        p = render_program(s, 0, only)
        for form in ("update_between_calls", "relu_inplace"):
            if f"inplace={form}" in p.source:
                forms[form] += 1
                stacked = _run_eager(p)  # the program returns torch.stack(ys)
                if form == "update_between_calls":  # relu/clamp may zero both rows
                    forms["rows differ"] += not torch.equal(stacked[0], stacked[1])
    assert forms["update_between_calls"] >= 5 and forms["relu_inplace"] >= 1, forms
    assert forms["rows differ"] >= forms["update_between_calls"] // 2, forms


def _nhv(p) -> tuple[int, int, int]:
    m = re.search(r"nhv=\((\d+), (\d+), (\d+)\)", p.source)
    assert m, p.source
    n, h, v = (int(x) for x in m.groups())
    return n, h, v


def _template_programs(entry: str, template: str, n: int, what: str) -> list:
    """The first ``n`` programs of one template, or a skip when this torch lacks its pass."""
    cat = build_catalog()
    if entry not in cat.entries:
        pytest.skip(f"no {what} in this torch")
    only = choices(cat, template)
    return [render_program(s, 0, only) for s in range(n)]


def test_auto_chunk_programs_pass_the_chunkers_gates_and_draw_its_hard_cases(table):
    """The auto-chunker (a graph pass in a package the catalog now reads) has a template: a
    projection whose logits pass the chunker's size gates, and a loss with gradients; drawn:
    softmax over the chunked rows spelled ``-2`` (bench/found/auto_chunker_negative_reduce_dim.py),
    per-row losses (a non-scalar tangent: auto_chunker_per_row_loss.py), row counts that
    ``torch.chunk`` cuts into fewer pieces than ``num_chunk`` (auto_chunker_fewer_chunks.py),
    a segment sum scattered along the chunked rows (auto_chunker_scatter_along_chunked_rows.py),
    sums over several dims."""
    seen = Counter()
    for s, p in enumerate(_template_programs("auto_chunker", "auto_chunk", 80, "auto-chunker")):
        assert "'inductor.auto_chunker.enable': True" in p.source
        assert "check_options = {'grad': True}" in p.source
        n, h, v = _nhv(p)
        assert n * v > 1024 * 1024 and n * v > 8 * (n * h + v * h + v), (n, h, v)
        chunks = re.search(r"'inductor.auto_chunker.num_chunk': (\d+)", p.source)
        k = int(chunks.group(1)) if chunks else 8
        seen["fewer chunks"] += len(range(0, n, -(-n // k))) < k
        seen["dim -2"] += "dim=-2)" in p.source
        seen["per row"] += 'reduction="none"' in p.source or "sum(dim=-1)" in p.source
        seen["segment"] += ".scatter_add(0, index, logits)" in p.source
        seen["sums"] += "loss=sums" in p.source
        if s < 6:
            _run_eager(p)
    assert min(seen[k] for k in ("fewer chunks", "dim -2", "per row", "segment", "sums")) >= 2, seen


def test_partitioned_scatter_programs_are_large_enough_and_draw_multi_dim_indices(table):
    """The partitioned scatter pass has a template: at least 4096 accumulated writes, spelled
    as ``index_put`` (in place too), ``index_add`` and the gradients of indexing and
    ``embedding``; drawn: 2-d indices at dim 1 and with broadcast values
    (bench/found/partitioned_scatter_multidim_index.py), negative indices."""
    seen = Counter()
    programs = _template_programs(
        "create_replacement", "partitioned_scatter", 60, "partitioned scatter pass"
    )
    for s, p in enumerate(programs):
        assert "'inductor.partitioned_scatter_enabled': True" in p.source
        shape = re.search(r"index_shape=\(([\d, ]+)\)", p.source).group(1)
        numel = 1
        for d in shape.split(","):
            numel *= int(d) if d.strip() else 1
        assert numel >= 4096, p.source
        for form in ("index_put", "index_add", "getitem_grad", "embedding_grad"):
            seen[form] += f"form={form}," in p.source
        seen["2-d at dim 1"] += "at_dim1=True" in p.source and shape.replace(" ", "") == "64,64"
        seen["broadcast"] += "broadcast=True" in p.source
        seen["negative"] += "negative=True" in p.source
        if s < 8:
            _run_eager(p)
    assert min(seen.values()) >= 1 and len(seen) == 7, seen


def test_woq_int8_programs_draw_the_scale_shapes_users_write(table):
    """The default-on weight-only int8 pattern has a template: per-channel scales (the shape
    its kernel takes) and per-tensor, per-row and ``[1, N]`` scales
    (bench/found/woq_int8_per_tensor_scale.py), a bfloat16 input of rank 2 or 3; each runs."""
    programs = _template_programs("woq_int8", "woq_int8", 30, "weight-only int8 pattern")
    assert not build_catalog().entries["woq_int8"].config  # registered by default: no setting
    seen = Counter()
    for s, p in enumerate(programs):
        assert "F.linear(x, self.w.to(x.dtype)) * self.scales" in p.source
        seen[re.search(r"scales=(\w+)", p.source).group(1)] += 1
        if s < 6:
            _run_eager(p)
    assert {"channel", "tensor0d", "tensor1", "row", "1xN"} <= set(seen), seen


def test_int_mm_programs_draw_both_scale_orders_under_freezing(table):
    """The SmoothQuant int8 linear pattern (freezing) has a template: both orders of the two
    scale factors (bench/found/int_mm_smooth_quant_scale_order.py), 0-d scales
    (int_mm_smooth_quant_0d_scales.py), 2-d and 3-d inputs; each runs in eager."""
    seen = Counter()
    programs = _template_programs(
        "_int_mm_weight_prepack", "int_mm_smooth_quant", 30, "SmoothQuant int8 pattern"
    )
    for s, p in enumerate(programs):
        assert "compile_config = {'inductor.freezing': True}" in p.source
        seen["w first"] += "w_first=True" in p.source
        seen["x first"] += "w_first=False" in p.source
        seen["0-d"] += "tensor0d" in p.source
        seen["3-d"] += "three_d=True" in p.source
        if s < 6:
            _run_eager(p)
    assert min(seen[k] for k in ("w first", "x first", "0-d", "3-d")) >= 2, seen


def test_quantization_programs_draw_the_cases_the_passes_got_wrong(table):
    """``templates_quant``: the add's other operand a graph input or a buffer (fused in place),
    ``alpha``, a per-channel axis other than the output channels', transposed convs, output
    qparams unlike the input's and the ``.tensor`` overloads (bench/found/quant_*.py); uint8
    activations in the reduced range only (no VNNI saturation false alarms); all run in eager."""
    seen: Counter = Counter()
    ran = 0
    for s in range(3000):
        p = render_program(s, 0, table)
        tpl = note_of(p, "template")
        if tpl not in ("qconv_qlinear", "qpool_cat_reshape"):
            continue
        if tpl == "qconv_qlinear":
            assert "inductor.freezing" in p.source
            assert "0, 255, torch.uint8" not in p.source  # reduced range only
            assert "0, 127, torch.uint8" in p.source
            seen["alpha"] += "alpha=" in p.source and "alpha=None" not in p.source
            seen["input_operand"] += "h + y.float()" in p.source
            seen["buffer_operand"] += "self.c" in p.source
            seen["transposed"] += "conv_transpose2d" in p.source
            own = "1" if "conv_transpose2d" in p.source else "0"
            axis = re.search(r"self.wzp, (\d),", p.source).group(1)
            seen["other_axis"] += axis != own
        else:
            seen["tensor_overload"] += ".tensor(" in p.source
            seen["narrow_range"] += ", 0, 127, torch.uint8)" in p.source
            seen["int8_out"] += "torch.int8)" in p.source
        if ran < 12:
            _run_eager(p)
            ran += 1
        if len(seen) == 8 and min(seen.values()) >= 1:
            break
    assert len(seen) == 8 and min(seen.values()) >= 1, seen


def test_attention_programs_draw_the_masks_the_replacements_got_wrong(table):
    """``templates_attn``: padding masks with values other than 0/1 (patterns 15/20 kept only
    ``== 1``), causal masks whose padded query rows see no key under the finite ``finfo.min``
    fill (patterns 18/19 made them -inf), and scalar, 0-d and 5-d additive masks for the bmm form
    (pattern 24 skipped its parameter check); bench/found/sdpa_pattern*.py. All run in eager."""
    only = choices(build_catalog(), "sfdp_masked_fill,sfdp_causal,sfdp_bmm_view")
    want = ("nonbinary", "binary", "padded_rows", "scalar", "0-d", "5-d", "tensor")
    seen: Counter = Counter()
    ran: Counter = Counter()
    for s in range(400):
        p = render_program(s, 0, only)
        tpl = note_of(p, "template")
        if tpl == "sfdp_masked_fill" and "mask_dtype=" in p.source and "nonbinary=" in p.source:
            seen["nonbinary" if "nonbinary=True" in p.source else "binary"] += 1
        elif tpl == "sfdp_causal":
            seen["padded_rows"] += "padded_rows=" in p.source
        elif tpl == "sfdp_bmm_view":
            seen[re.search(r"mask_form=([\w-]+)", p.source).group(1)] += 1
        kind = "padded" if "padded_rows=" in p.source else tpl
        if ran[kind] < 3:  # a few of each run in eager; fully masked rows stay finite
            ran[kind] += 1
            loaded = runtime.load(p, 0)
            out = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
            leaves = torch.utils._pytree.tree_leaves(out.out)
            assert all(t.isfinite().all() for t in leaves if isinstance(t, torch.Tensor)), p.source
        if all(seen[k] >= 1 for k in want):
            break
    assert all(seen[k] >= 1 for k in want), seen
