"""Known, new or lesser: the label rules (torchsmith.known) and the summary that leads with new."""

import json

from hypothesis import given
from hypothesis import strategies as st

from torchsmith.known import GENERIC_OPS, KnownBug, KnownTable, Label, label, same_cause
from torchsmith.program.constructs import GENERIC_CONSTRUCTS

CRASH = "exception|inductor|InductorError|Cannot view a tensor with shape <dims>|lowering.view"
OPS = st.frozensets(st.sampled_from(["add", "mul", "cat", "split", "stack", "cumsum", "sin"]))


def test_a_crash_is_the_same_cause_whatever_its_innermost_frame():
    other_frame = CRASH.rsplit("|", 1)[0] + "|ir.as_strided"
    assert same_cause(CRASH, other_frame)
    assert not same_cause(CRASH, CRASH.replace("InductorError", "RuntimeError"))
    # at another stage the frame must match too
    assert not same_cause(other_frame, CRASH.replace("inductor", "aotautograd", 1))
    assert not same_cause(CRASH, CRASH.replace("Cannot view", "Cannot reshape"))


def test_python_stock_messages_are_one_cause_only_at_one_frame():
    # the auto-chunker's IndexError was labelled known as the SDPA guard-building find
    guard = "exception|inductor|IndexError|list index out of range|symbolic_shapes.issue_guard"
    chunker = "exception|inductor|BackendCompilerFailed|IndexError: list index out of range|"
    assert not same_cause(guard, chunker + "applier.call_subgraph_for_each_chunk")
    assert same_cause(guard, chunker + "symbolic_shapes.issue_guard")
    assert same_cause(guard, guard.rsplit("|", 1)[0])  # no frame recorded: the message decides
    # an assertion without a message, left in its wrapper's message: empty, so stock too
    bare = "exception|inductor|InductorError|AssertionError:|"
    assert not same_cause(bare + "cpp.store", bare + "mkldnn_lowerings.qlinear_unary")
    unpack = "exception|inductor|ValueError|not enough values to unpack (expected <n>, got <n>)|"
    assert not same_cause(unpack + "a.f", unpack + "b.g")
    # torch's own messages still match whatever the frame (it moves between releases)
    view = "exception|inductor|RuntimeError|Cannot view a tensor|ir.view"
    assert same_cause(view, view.replace("ir.view", "lowering.reshape"))


def test_one_exception_at_one_place_is_one_cause_across_stages_and_wrappers():
    # CUDA campaign: the export path's message of this project's region-as-cond-branch find,
    # which the compile path raises wrapped, at AOTAutograd; the table labelled it new
    msg = "'Module'<str>'false_graph_0.repeated_subgraph0'|module.__getattr__"
    compiled = f"exception|aotautograd|BackendCompilerFailed|AttributeError: {msg}"
    exported = f"exception|export|AttributeError|{msg}"
    assert same_cause(compiled, exported) and same_cause(exported, compiled)
    elsewhere = exported.rsplit("|", 1)[0] + "|fx_graph.getattr"
    assert not same_cause(compiled, elsewhere)  # another stage needs the same frame too
    assert same_cause(exported, elsewhere)  # the same stage does not
    # a generic message seen wrapped at one frame and bare at another is not one cause
    wrapped = "exception|inductor|BackendCompilerFailed|IndexError: list index out of range|a.f"
    assert not same_cause(wrapped, "exception|inductor|IndexError|list index out of range|b.g")
    assert same_cause(wrapped, "exception|inductor|IndexError|list index out of range|a.f")
    # raised inside a lowering or outside one (the dynamic-shapes campaign's stride check)
    vr = "ValueRangeError: Invalid ranges [<n>:<n>]|value_ranges.__init__"
    inside = f"exception|inductor|InductorError|LoweringException: {vr}"
    assert same_cause(inside, f"exception|inductor|InductorError|{vr}")
    assert not same_cause(compiled, exported.replace("exception", "segfault", 1))
    assert not same_cause(compiled, exported.replace("AttributeError", "KeyError"))
    table = KnownTable([KnownBug(readable=compiled, source="bench/found/region.py")])
    assert label(exported, table)[0] is Label.KNOWN


@given(
    OPS,
    OPS,
    st.sampled_from(["wrong-value", "wrong-meta"]),
    st.sampled_from(["inductor", "dynamo"]),
)
def test_same_cause_for_wrong_outputs_is_symmetric_and_needs_a_specific_shared_op(a, b, sym, stage):
    sa, sb = f"{sym}|{stage}|{','.join(sorted(a))}", f"{sym}|{stage}|{','.join(sorted(b))}"
    assert same_cause(sa, sb) == same_cause(sb, sa)
    if sa != sb:  # glue set aside, the same ops, at least one of them specific
        core = a - GENERIC_OPS
        assert same_cause(sa, sb) == (bool(core) and core == b - GENERIC_OPS)
    assert same_cause(sa, sa)


def test_wrong_outputs_with_different_specific_ops_are_different_causes():
    assert same_cause("wrong-value|inductor|cat,split", "wrong-value|inductor|add,cat,split")
    assert not same_cause("wrong-value|inductor|cat,split", "wrong-value|inductor|cat,stack")
    assert not same_cause("wrong-value|inductor|add", "wrong-value|inductor|add,mul")  # glue only


def test_data_dependent_guards_at_different_sites_are_different_causes():
    """A lesser data-dependent crash is keyed by its site, like an exception by its message."""
    site = "data-dependent|export|GuardOnDataDependentSymNode|data-dependent guard in {}|f.g"
    assert not same_cause(site.format("roll"), site.format("cummaxmin"))
    assert same_cause(site.format("roll"), site.format("roll").replace("f.g", "h.k"))


def test_two_bodies_of_one_higher_order_op_bug_are_one_cause():
    """A region's wrong gradient reduced twice: bodies ``a * b`` and ``a + b`` (glue), one
    cause; a body that keeps a specific op is still its own cause."""
    region = "wrong-value|inductor|{},nested_compile_region"
    assert same_cause(region.format("mul"), region.format("add"))
    assert same_cause(region.format("add,mul"), region.format("getitem"))
    assert not same_cause(region.format("atan2"), region.format("mul"))
    assert not same_cause(region.format("mul"), "wrong-value|inductor|cond,mul")


def test_labels_lesser_known_and_new(tmp_path):
    table = KnownTable([KnownBug(readable=CRASH, issue=123456, url="https://x/123456")])
    lab, entry = label(CRASH.rsplit("|", 1)[0] + "|other.frame", table)
    assert lab is Label.KNOWN and entry is not None and entry.describe() == "#123456"
    assert label("exception|inductor|ValueError|boom|", table) == (Label.NEW, None)
    assert label("precision|inductor|sum", table)[0] is Label.LESSER
    assert label("wrong-stride|inductor|permute", table)[0] is Label.LESSER


def test_known_files_add_json_entries_and_signature_lines(tmp_path):
    j = tmp_path / "k.json"
    j.write_text(json.dumps([{"readable": "wrong-value|inductor|cumsum", "issue": 7}]))
    t = tmp_path / "k.txt"
    t.write_text("# mine\nsig-0123456789ab\nwrong-nan|inductor|log1p  # a note\n")
    table = KnownTable().add_file(j).add_file(t)
    assert label("wrong-value|inductor|cumsum", table)[1].issue == 7
    assert label("wrong-nan|inductor|log1p", table)[0] is Label.KNOWN
    assert label("wrong-value|dynamo|sin", table, signature="sig-0123456789ab")[0] is Label.KNOWN


def test_the_shipped_table_loads_and_every_entry_is_well_formed():
    table = KnownTable.default()
    for e in table.entries:
        assert e.readable.count("|") >= 2, e
        assert e.issue is None or e.url.endswith(str(e.issue)), e
        assert e.source, e


def test_an_aoti_finding_matches_inductors_known_bug_of_the_same_symptom_and_ops():
    known = "wrong-nan|inductor|std_mean"
    assert same_cause("wrong-nan|aoti-run|getitem,std_mean", known)
    assert not same_cause("wrong-nan|export-decomp|std_mean", known)  # not Inductor's code
    assert not same_cause("wrong-value|aoti-run|std_mean", known)  # another symptom
    crash = "exception|inductor|InductorError|C++ compile error: x|cpp_builder._run_compile_cmd"
    aoti = "exception|aoti-compile|InductorError|C++ compile error: y|cpp_builder._run_compile_cmd"
    assert not same_cause(aoti, crash)  # another message: another bug
    assert same_cause(aoti.replace(": y", ": x"), crash)


def test_a_campaigns_rows_of_one_cause_count_once(tmp_path):
    """Two reduced signatures of one region bug (bodies ``mul`` and ``add``) are two rows and
    one cause; a specific op keeps its own cause; two rows of one known entry are one cause."""
    from torchsmith.campaign.store import ProgramRow, Store
    from torchsmith.campaign.summary import summarize

    region = "wrong-value|inductor|{},nested_compile_region"
    readables = [region.format("mul"), region.format("add"), region.format("atan2"), CRASH]
    readables.append(CRASH.rsplit("|", 1)[0] + "|ir.other_frame")
    table = KnownTable([KnownBug(readable=CRASH, issue=123456)])
    with Store(tmp_path) as s:
        for i, readable in enumerate(readables):
            crash = readable.startswith("exception")
            s.record(
                ProgramRow(
                    seed=i, generator="hop", name=f"p{i}", digest=f"d{i}",
                    verdict="crash" if crash else "mismatch", phase="compiled",
                    stage="inductor", symptom="exception" if crash else "wrong-value",
                    category="bug", signature=f"sig-{i}", readable=readable,
                    finding=f"f{i}", lines=5, ops=2,
                )
            )  # fmt: skip
        summary = summarize(s, table=table)
    assert summary["bugs"] == 5 and summary["signatures"] == 5
    assert summary["causes"] == 3 and summary["labels"] == {
        "new": 2,
        "known": 1,
        "lesser": 0,
        "path-wide": 0,
    }
    same = {b["readable"]: b["same_as"] for b in summary["bug_list"]}
    assert [same[r] is None for r in readables].count(False) == 2
    assert same[region.format("atan2")] is None


def test_an_entry_that_needs_opt_in_passes_labels_only_findings_run_with_them(tmp_path):
    """A generic message met through one opt-in pass is not known through another: the entry
    names the passes its script switches on (``needs``), the campaign's rows the passes their
    options switch on, and both must agree (move_reshape_out_of_split_stack's invalid view is
    not select_cat_aten's)."""
    from torchsmith.campaign.store import ProgramRow, Store
    from torchsmith.campaign.summary import summarize
    from torchsmith.known import passes_named, passes_on

    script = 'cfg.patch(post_grad_fusion_options={"normalization_aten_pass": {}, "x": 1})'
    needs = passes_named(script + " 'select_cat_aten_pass' # not_quoted_pass")
    assert needs == {"normalization_aten_pass", "select_cat_aten_pass"}
    fusions = '{"inductor.post_grad_fusion_options": {"batch_aten_tanh": {}}}'
    assert passes_named(fusions) == {"batch_aten_tanh"}
    flag = 'compile_config = {"inductor.efficient_conv_bn_eval_fx_passes": True}'
    assert passes_named(flag) == {"efficient_conv_bn_eval_fx_passes"}
    memory = '{"inductor.auto_chunker.enable": True, "inductor.auto_chunker.num_chunk": 64}'
    assert passes_named(memory) == {"auto_chunker"}  # a pass's own enable flag
    assert passes_named('{"inductor.partitioned_scatter_enabled": True}') == {
        "partitioned_scatter_enabled"
    }
    assert passes_on({"inductor.auto_chunker.enable": False}) == frozenset()
    # settings that switch a code path on count too (a freezing-only bug's entry, signed
    # `wrong-value|inductor|linear`, must not label a default-settings finding)
    gemm = (
        '{"inductor.freezing": True, "inductor.max_autotune": True, "inductor.cpp_wrapper": True,'
        ' "inductor.max_autotune_gemm_backends": "CPP", "inductor.cpp.gemm_max_k_slices": 0,'
        ' "inductor.cpp.enable_grouped_gemm_template": True,'
        ' "dynamo.capture_scalar_outputs": True}'
    )
    assert passes_named(gemm) == {
        "freezing",
        "max_autotune",
        "cpp_wrapper",
        "gemm_max_k_slices",
        "enable_grouped_gemm_template",
        "capture_scalar_outputs",
    }
    assert passes_on(
        {"inductor.freezing": False, "inductor.max_autotune_gemm_backends": "CPP"}
    ) == (frozenset())
    # the Triton switches a CUDA campaign draws, and the sort lowerings' switch (on the CPU too)
    triton = (
        '{"inductor.triton.cooperative_reductions": True, "inductor.combo_kernels": True,'
        ' "inductor.triton.decompose_sort_ops": True, "inductor.coordinate_descent_tuning": True}'
    )
    assert passes_named(triton) == {
        "cooperative_reductions",
        "combo_kernels",
        "decompose_sort_ops",
        "coordinate_descent_tuning",
    }
    on = {"inductor.efficient_conv_bn_eval_fx_passes": True, "inductor.a_pass": False}
    assert passes_on(on | {"x": {"b_pass": {}, "c_pass": None}}) == {
        "efficient_conv_bn_eval_fx_passes",
        "b_pass",
    }
    table = KnownTable([KnownBug(readable=CRASH, issue=1, url="u/1", needs=tuple(needs))])
    assert KnownBug.from_dict({"readable": CRASH, "needs": ["a_pass"]}).needs == ("a_pass",)
    assert label(CRASH, table)[0] is Label.NEW  # default settings
    assert label(CRASH, table, passes=["normalization_aten_pass"])[0] is Label.NEW
    assert label(CRASH, table, passes=[*needs, "other_pass"])[0] is Label.KNOWN
    options = [
        {"config": {"inductor.post_grad_fusion_options": {n: {} for n in sorted(needs)}}},
        {
            "config": {
                "inductor.pre_grad_fusion_options": {"move_reshape_out_of_split_stack_pass": {}}
            }
        },
    ]
    with Store(tmp_path) as s:
        for i, opts in enumerate(options):
            s.record(
                ProgramRow(
                    seed=i, generator="rewrites", name=f"p{i}", digest=f"d{i}",
                    verdict="crash", phase="compiled", stage="inductor", symptom="exception",
                    category="bug", signature=f"sig-{i}", readable=CRASH + str(i),
                    finding=f"f{i}", lines=5, ops=2, options=opts,
                )
            )  # fmt: skip
        summary = summarize(s, table=KnownTable([KnownBug(CRASH + "0", 1, needs=tuple(needs))]))
        rows = {b["readable"]: b for b in summary["bug_list"]}
        assert rows[CRASH + "0"]["passes"] == sorted(needs)
    assert rows[CRASH + "0"]["label"] == "known" and rows[CRASH + "1"]["label"] == "new"


PY = st.frozensets(
    st.sampled_from(["range", "len", "format", "isinstance", "except:TypeError", "index"])
)


@given(PY, PY, OPS, OPS)
def test_dynamo_wrong_outputs_are_one_cause_by_their_python_constructs(pa, pb, oa, ob):
    """At the Dynamo stage the constructs decide, whatever the ops: glue aside they must be
    equal; only glue on both sides, all of it; none on either side, the ops as elsewhere."""

    def sig(py, ops):
        base = f"wrong-value|dynamo|{','.join(sorted(ops))}"
        return f"{base}|py:{','.join(sorted(py))}" if py else base

    sa, sb = sig(pa, oa), sig(pb, ob)
    assert same_cause(sa, sb) == same_cause(sb, sa)
    if pa or pb:
        ca, cb = pa - GENERIC_CONSTRUCTS, pb - GENERIC_CONSTRUCTS
        want = ca == cb if ca or cb else pa == pb
        assert same_cause(sa, sb) == want or sa == sb


def test_a_dynamo_entry_without_constructs_no_longer_labels_a_python_level_bug():
    """#176851's op set (``mul``) labelled every Dynamo wrong value using ``mul`` known."""
    old = KnownTable([KnownBug(readable="wrong-value|dynamo|mul", issue=176851)])
    repeat = "wrong-value|dynamo|mul|py:itertools.repeat(times=),sum,zip"
    assert label(repeat, old)[0] is Label.NEW
    table = KnownTable(
        [KnownBug(readable="wrong-value|dynamo|add,mul|py:sum,itertools.repeat(times=)")]
    )
    assert label(repeat, table)[0] is Label.KNOWN  # the ops are incidental there
    assert label("wrong-value|dynamo|mul|py:format,sum", table)[0] is Label.NEW


def test_a_reduced_dynamo_finding_is_labelled_by_an_entry_holding_its_constructs():
    """Reduction keeps only the constructs a failure needs: ``py:isinstance`` (glue aside) is
    the nested-classinfo find whose program also catches TypeError; never the other way round
    (a finding with a construct the entry lacks may be another bug). A wrong value and a wrong
    type are one symptom there."""
    entry = "wrong-value|dynamo|mul|py:except:TypeError,float,isinstance"
    table = KnownTable([KnownBug(readable=entry, source="bench/found/x.py")])
    assert label("wrong-value|dynamo|mul|py:isinstance,range", table)[0] is Label.KNOWN
    assert label("wrong-meta|dynamo|add|py:isinstance", table)[0] is Label.KNOWN
    assert label("wrong-value|dynamo|mul|py:format,isinstance", table)[0] is Label.NEW
    assert label("wrong-value|dynamo|mul|py:range", table)[0] is Label.NEW  # glue alone
    assert label("wrong-value|inductor|mul|py:isinstance", table)[0] is Label.NEW
    small = KnownTable([KnownBug(readable="wrong-value|dynamo|mul|py:isinstance")])
    assert label(entry, small)[0] is Label.NEW
