# pytorch/pytorch#185533 (open): Inductor's SliceView has no get_stride(), so a lowering that
# asks a sliced, not yet realized tensor for its strides raises
# "LoweringException: NotImplementedError: SliceView" (the issue reaches it through
# max-autotune's addmm). This trigger is torchsmith's own (the export family's chain base,
# 2026-11-26): a slice with a data-dependent stop of a slice of a computed tensor whose length
# is unbacked; the slice lowering's unbacked path reads x.get_stride(). Same missing method,
# so counted as #185533, not as a new bug.
import torch


def fn(x):
    t = x[x > 0] / 4  # computed, with an unbacked length u0
    t = t[1:]
    t = t[: t.shape[0] - 1]
    return t * 2


def get_inputs():
    return [torch.tensor([1.0, 2.0, 0.0, 1.0, 2.0, 2.0])]


compile_kwargs = {"fullgraph": True}
compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
