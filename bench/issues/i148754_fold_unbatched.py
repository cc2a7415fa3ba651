# Written from the facts of https://github.com/pytorch/pytorch/issues/148754 (not copied).
# ruff: noqa
# F.fold on an unbatched (4, 4) input (C*kh*kw = 4 channels, 4 blocks), output 4x4,
# kernel 2x2, stride 2: Inductor's codegen for the scatter (atomic_add) buffer failed.
import torch


class FoldModel(torch.nn.Module):
    def __init__(self, output_size, kernel_size, stride, padding):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding

    def forward(self, x):
        return torch.nn.functional.fold(
            x, self.output_size, self.kernel_size, stride=self.stride, padding=self.padding
        )


inputs = torch.randn(1, 4, 4)
model = FoldModel((4, 4), (2, 2), (2, 2), (0, 0))
res = model(*inputs)
compiled_model = torch.compile(model, backend="inductor")
compiled_out = compiled_model(*inputs)
torch.testing.assert_close(compiled_out, res)
print(res.shape)
