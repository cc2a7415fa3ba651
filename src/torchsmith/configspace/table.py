"""The default config space: non-default compile settings users actually turn on (data only).

Each :class:`~torchsmith.configspace.entry.Entry` names one setting (``--config`` spelling:
``inductor.``, ``dynamo.`` or ``functorch.`` plus the key), the values a campaign may give it,
why users turn it on (one line), what it never goes with (``excludes``: a combination that is
broken by design or meaningless) and what it needs to mean anything (``requires``). Which
torch versions have a key is decided at run time: the worker's own torch is asked
(:mod:`torchsmith.configspace.present`), an entry whose key it lacks is skipped, and a value
equal to that torch's default is dropped (so ``dynamo.specialize_float`` offers ``True`` on
2.13, where ``False`` is the default, and ``False`` on releases where ``True`` was). :data:`CHECKED`
records the releases every key below was verified present in. ``devices`` keeps the C++
backend's knobs (``cpu``) off CUDA campaigns and the Triton ones (``cuda``) off CPU campaigns.

Left out on purpose (see ``notes/config-space.md``): ``inductor.fallback_random`` (the oracle
always sets it), ``inductor.nan_asserts`` (raises on NaN a program may compute on purpose),
``triton.cudagraphs`` (CUDA graphs overwrite outputs on replay: ``bench/gpu_battery/`` checks
them by script), ``use_fast_math`` (changes results by design),
``max_autotune_gemm_backends`` (its default already holds ATEN and CPP, the CPU choices),
cache switches (``fx_graph_cache``: the worker's own concern) and ``*_TESTING_ONLY`` keys.
"""

from __future__ import annotations

from torchsmith.configspace.entry import Entry

#: The releases the keys below were checked in (``torch._inductor.config`` & co. inspected).
CHECKED = ("2.13.0",)

CUDA = ("cuda",)
CPU = ("cpu",)

DEFAULT_TABLE: tuple[Entry, ...] = (
    # -- Inductor ------------------------------------------------------------------------------
    Entry(
        "inductor.freezing",
        (True,),
        "CPU inference deployments: inline weights as constants and fold them (documented recipe)",
        # "after freezing, weights can no longer be updated" (config.py): a training step under
        # an outer no_grad (how the harness calls a program) freezes them and goes stale
        not_for=("trains",),
    ),
    Entry(
        "inductor.cpp_wrapper",
        (True,),
        "less Python overhead per call: the wrapper is generated as C++ (AOTInductor's path)",
    ),
    Entry(
        "inductor.max_autotune",
        (True,),
        "mode='max-autotune': on CPU benchmarks the C++ GEMM templates against ATen for mm/linear",
    ),
    Entry(
        "inductor.coordinate_descent_tuning",
        (True,),
        "mode='max-autotune' turns it on; it tunes Triton kernel configs (no effect on CPU)",
        devices=CUDA,
    ),
    Entry(
        "inductor.emulate_precision_casts",
        (True,),
        "float16/bfloat16 models: round intermediates as eager does, to match eager bit for bit",
    ),
    Entry(
        "inductor.epilogue_fusion",
        (False,),
        "debugging a wrong result or slow kernel: stop fusing pointwise epilogues into templates",
    ),
    Entry(
        "inductor.aggressive_fusion",
        (True,),
        "performance tuning: fuse nodes even without shared memory reads",
    ),
    Entry(
        "inductor.split_reductions",
        (False,),
        "reproducible reduction order / debugging: one reduction loop instead of a split one",
    ),
    Entry(
        "inductor.loop_ordering_after_fusion",
        (True, False),
        "performance tuning (on by default since late 2.x; turned off to bisect a regression)",
    ),
    Entry(
        "inductor.size_asserts",
        (False,),
        "shave call overhead: drop the wrapper's size and stride assertions on inputs",
    ),
    Entry(
        "inductor.pattern_matcher",
        (False,),
        "debugging: turn the FX pattern rewrites off when a fused pattern is suspected",
    ),
    Entry(
        "inductor.layout_optimization",
        (False,),
        "keep the user's memory format (channels-last conversions cost more than they save)",
        excludes=("inductor.force_layout_optimization",),
    ),
    Entry(
        "inductor.force_layout_optimization",
        (True,),
        "channels-last convolutions forced on, for conv nets the heuristic leaves alone",
    ),
    Entry(
        "inductor.cpp.simdlen",
        (1, 256, 512),
        "pin the vector width: 1 scalar kernels (debugging), 256 AVX2, 512 AVX512 (where present)",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_floating_point_contract_flag",
        ("on", "fast"),
        "speed: let the C++ compiler contract a*b+c into FMA (-ffp-contract)",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_unsafe_math_opt_flag",
        (True,),
        "speed: compile kernels with -funsafe-math-optimizations",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.dynamic_threads",
        (True,),
        "serving with varying thread counts: kernels do not specialize on the thread number",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_concat_linear",
        (True,),
        "LLM inference recipes: concatenate linears sharing an input (needs freezing)",
        requires=("inductor.freezing=True",),
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.weight_prepack",
        (False,),
        "debugging a frozen model: keep plain weights instead of mkldnn-packed ones",
        devices=CPU,
    ),
    # The C++ backend's tuning knobs (TORCHINDUCTOR_CPP_* environment variables in the docs of
    # config.py); ``use_decompose_tanh`` is left out: it is off because of a known accuracy
    # issue (#148241, named in config.py itself).
    Entry(
        "inductor.cpp.min_chunk_size",
        (1,),
        "small-tensor throughput: parallelize loops however little work each thread gets",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_tiling_heuristics",
        (False,),
        "perf bisection: turn the tiling-select heuristic off (2-d tiles wherever possible)",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_loop_tail_vec",
        (False,),
        "perf bisection: scalar tail loops instead of masked vector tails",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.fallback_scatter_reduce_sum",
        (False,),
        "generate scatter_reduce/index_add sums with atomic adds instead of ATen's kernel",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.max_horizontal_fusion_size",
        (2,),
        "compile time of large graphs: cap how many nodes one horizontal fusion takes",
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.gemm_max_k_slices",
        (0, 2),
        "max-autotune GEMM templates: let threads split K (0 = unlimited) for tall-K linears",
        requires=("inductor.max_autotune=True",),
        devices=CPU,
    ),
    Entry(
        "inductor.cpp.enable_grouped_gemm_template",
        (True,),
        "max-autotune inference: one grouped GEMM for linears sharing an input (needs freezing)",
        requires=("inductor.max_autotune=True", "inductor.freezing=True"),
        not_for=("trains",),
        devices=CPU,
    ),
    # -- Triton (CUDA campaigns only): what performance guides and issue reports turn on -----
    Entry(
        "inductor.triton.cooperative_reductions",
        (True,),
        "large reductions with few outputs: split one reduction across thread blocks",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.force_cooperative_reductions",
        (True,),
        "bisecting a reduction: force the cooperative form wherever it applies",
        requires=("inductor.triton.cooperative_reductions=True",),
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.persistent_reductions",
        (False,),
        "perf bisection / register pressure: looped reductions instead of persistent ones",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.multi_kernel",
        (1,),
        "pick persistent vs looped reduction kernels at run time by benchmarking both",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.prefer_nd_tiling",
        (True,),
        "transposes and permutes: tile pointwise kernels in 2-d/3-d for coalesced access",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.tile_reductions",
        (True,),
        "reductions over non-contiguous dims: tile the reduction dimension too",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.max_tiles",
        (3,),
        "3-d tiling for permuted 3-d+ tensors (default 2)",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.use_block_ptr",
        (True,),
        "block pointers for loads and stores (tl.make_block_ptr), as on Hopper performance guides",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.use_tensor_descriptor",
        (True,),
        "Hopper TMA tensor descriptors for loads and stores",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.divisible_by_16",
        (False,),
        "debugging alignment specialization: no divisible-by-16 hints on sizes and pointers",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.mix_order_reduction",
        (False,),
        "perf bisection: no fused row+column reductions of one input",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.codegen_upcast_to_fp32",
        (False,),
        "half-precision kernels computed in half precision (no fp32 upcast) for speed",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.dense_indexing",
        (True,),
        "debugging index math: dense (non-broadcast) index expressions",
        devices=CUDA,
    ),
    Entry(
        "inductor.combo_kernels",
        (True,),
        "many small independent kernels (optimizer steps): combine them into one launch",
        devices=CUDA,
    ),
    Entry(
        "inductor.triton.enable_persistent_tma_matmul",
        (True,),
        "max-autotune on Hopper: persistent TMA matmul templates among the choices",
        requires=("inductor.max_autotune=True",),
        devices=CUDA,
    ),
    # -- Dynamo --------------------------------------------------------------------------------
    Entry(
        "dynamo.specialize_float",
        (False, True),
        "float arguments as graph inputs (no recompile per value), or the older specialization",
    ),
    Entry(
        "dynamo.capture_scalar_outputs",
        (True,),
        "keep .item() and friends in the graph instead of breaking it",
    ),
    Entry(
        "dynamo.capture_dynamic_output_shape_ops",
        (True,),
        "keep nonzero, unique, masked_select (data-dependent shapes) in the graph",
    ),
    Entry(
        "dynamo.assume_static_by_default",
        (False,),
        "every dimension dynamic from the first compile (no recompile on a new batch size)",
    ),
    Entry(
        "dynamo.automatic_dynamic_shapes",
        (False,),
        "never mark a dimension dynamic after a recompile (a fixed set of shapes)",
        excludes=("dynamo.assume_static_by_default=False",),
    ),
    # -- AOTAutograd (functorch) ----------------------------------------------------------------
    Entry(
        "functorch.donated_buffer",
        (False, True),
        "training memory: reuse saved activations' buffers in the backward (or turn it off to debug)",
    ),
    Entry(
        "functorch.view_replay_for_aliased_outputs",
        (False, True),
        "how outputs aliasing inputs are regenerated (view replay vs as_strided)",
    ),
    Entry(
        "functorch.activation_memory_budget",
        (0.5,),
        "training memory: recompute activations to stay under half the memory (min-cut)",
    ),
    Entry(
        "functorch.recompute_views",
        (True,),
        "training memory: recompute views in the backward instead of saving them",
    ),
)
