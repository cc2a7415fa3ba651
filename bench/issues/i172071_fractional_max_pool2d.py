# Written from the facts of https://github.com/pytorch/pytorch/issues/172071 (not copied).
# ruff: noqa
# aten.fractional_max_pool2d with explicit random_samples (so eager is deterministic),
# kernel 3x3, output 4x4 from 8x8: Inductor's result differed from the eager backend.
import torch


def model_func(self, kernel_size, output_size, random_samples):
    return torch.ops.aten.fractional_max_pool2d(
        self, kernel_size=kernel_size, output_size=output_size, random_samples=random_samples
    )


torch.manual_seed(0)
op_config = {
    "self": torch.randn([2, 3, 8, 8], dtype=torch.float32) * 0.1,
    "kernel_size": [3, 3],
    "output_size": [4, 4],
    "random_samples": torch.randn([2, 3, 2], dtype=torch.float32) * 0.1,
}
out_eager = torch.compile(model_func, backend="eager")(**op_config)
out_inductor = torch.compile(model_func, backend="inductor")(**op_config)
torch.testing.assert_close(out_eager, out_inductor)
print("ok")
