"""One g++ run per graph (torchsmith.execute.kernel_batch): what a batch may hold, and how."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.execute import kernel_batch as kb

PREFIX = "#include <torch/csrc/inductor/cpp_prefix.h>\n"
POINTWISE = (
    PREFIX + 'extern "C"  void  kernel(const float* in_ptr0,\n'
    "                       float* out_ptr0)\n{\n"
    "    #pragma GCC ivdep\n"
    "    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=1L)\n"
    "    {\n        out_ptr0[x0] = std::max(in_ptr0[x0], 0.0f);\n    }\n}\n"
)
# A GEMM template kernel: the declaration spans two lines, helpers precede it, extra include.
GEMM = (
    PREFIX + "#include <c10/util/Unroll.h>\n\n"
    "template <bool accum>\ninline void micro_gemm(const float* A, float* C) { C[0] += A[0]; }\n"
    'extern "C" \nvoid kernel(const float* X, float* Y)\n{\n    micro_gemm<true>(X, Y);\n}\n'
)


def test_split_hoists_the_leading_includes_and_keeps_the_rest_byte_for_byte():
    includes, body = kb.split_source(GEMM)
    assert includes == [
        "#include <torch/csrc/inductor/cpp_prefix.h>",
        "#include <c10/util/Unroll.h>",
    ]
    assert GEMM.endswith(body) and body.lstrip().startswith("template <bool accum>")
    includes, body = kb.split_source(POINTWISE)
    assert POINTWISE == PREFIX + body


@pytest.mark.parametrize(
    "source, why",
    [
        (PREFIX + "#define N 8\n" + POINTWISE[len(PREFIX) :], "a macro would leak into the next"),
        (POINTWISE.replace("#pragma GCC ivdep", "#if 1\n#endif"), "conditional compilation"),
        (POINTWISE + 'extern "C" void other(float* p) {}\n', "a second C function"),
        (POINTWISE + "#include <vector>\n", "an include after code"),
        (PREFIX + "void helper();\n", "no kernel function at all"),
    ],
)
def test_a_kernel_the_batch_cannot_hold_exactly_is_refused(source, why):
    assert kb.split_source(source) is None, why


def _cache_cls():
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    return CppPythonBindingsCodeCache


def test_the_batch_renames_only_each_kernels_c_function_and_binds_each_under_its_own_name():
    cache = _cache_cls()
    kernels = [(["const float*", "float*"], *kb.split_source(s)) for s in (POINTWISE, GEMM)]
    text = kb.batch_source(kernels, cache)
    for i, (_, _, body) in enumerate(kernels):
        block = text.split(f"namespace tsk_b{i} {{\n", 1)[1].split(f"}}  // namespace tsk_b{i}")[0]
        # The kernel's own text, with only the C function's name changed.
        assert body.replace("kernel(", f"kernel_b{i}(", 1) in block
        assert f"PyInit_kernel_b{i}(void)" in block and f"kernel_b{i}(parse_arg<" in block
        assert not re.search(r"^\s*#\s*include", block, re.M)  # no include inside a namespace
    assert text.count('extern "C"') == 2
    top = text.split("namespace", 1)[0]  # the kernels' includes and the binding's, once each
    assert top.count("#include <Python.h>") == 1 and top.count("#include <c10/util/Unroll.h>") == 1
    assert top.index("cpp_prefix.h") < top.index("#define PY_SSIZE_T_CLEAN") < top.index("Python.h")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["float*", "const float*", "int64_t", "const bool*"]),
                     min_size=1, max_size=5),
            st.sampled_from([POINTWISE, GEMM]),
        ),
        min_size=2, max_size=6,
    )
)  # fmt: skip
def test_every_kernel_lands_once_in_its_own_namespace(kernels):
    cache = _cache_cls()
    text = kb.batch_source([(a, *kb.split_source(s)) for a, s in kernels], cache)
    for i, (argtypes, _) in enumerate(kernels):
        assert text.count(f"namespace tsk_b{i} {{") == 1
        assert len(re.findall(rf"\bvoid\s+kernel_b{i}\(", text)) == 1
        assert f"requires {len(argtypes)} args" in text.split(f"namespace tsk_b{i} {{")[1]
    assert not re.search(r"\bvoid\s+kernel\(", text)  # no kernel keeps the shared C name


def test_a_kernel_that_names_a_macro_the_binding_defines_is_built_alone():
    reserved = kb.reserved_names(_cache_cls())
    assert "PY_SSIZE_T_CLEAN" in reserved
    assert kb.split_source(POINTWISE, reserved) is not None
    uses = POINTWISE.replace("std::max(", "PY_SSIZE_T_CLEAN + std::max(")
    assert kb.split_source(uses, reserved) is None


def test_the_binding_is_inductors_own_for_the_new_name():
    text = kb.binding(["float*", "int64_t"], "kernel_b7", _cache_cls())
    assert "PyInit_kernel_b7(void)" in text and '"kernel_b7"' in text
    assert "kernel_b7(parse_arg<float*>(args, 0), parse_arg<int64_t>(args, 1))" in text
    assert "PyInit_kernel(" not in text


@pytest.mark.parametrize("value, on", [(None, True), ("1", True), ("0", False), ("off", False)])
def test_batching_is_on_unless_the_environment_says_0(value, on):
    env = {} if value is None else {kb.BATCH_VAR: value}
    assert kb.enabled(env) is on


def test_install_changes_nothing_when_off_or_when_this_torch_lacks_a_hook(monkeypatch):
    from torch._inductor import async_compile as ac

    before = (ac.AsyncCompile.cpp_pybinding, ac.AsyncCompile.wait)
    monkeypatch.setenv(kb.BATCH_VAR, "0")
    assert kb.install() is False
    monkeypatch.delenv(kb.BATCH_VAR)
    monkeypatch.delattr(ac, "get_compile_threads")
    assert kb.install() is False
    assert (ac.AsyncCompile.cpp_pybinding, ac.AsyncCompile.wait) == before
    assert not kb.installed()
