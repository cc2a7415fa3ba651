# Written from the facts of https://github.com/pytorch/pytorch/issues/150165 (not copied).
# ruff: noqa
# Bilinear upsampling 32x32 -> 64x64 (align_corners=True) followed by torch.inverse: the
# upsampled matrices are nearly singular, so eager and compiled inverses differ hugely.
# Maintainer (eellison): another case of torch.compile being more accurate than eager;
# same() against a float64 reference accepts the compiled result.
import torch
from torch._dynamo.utils import same


class Model(torch.nn.Module):
    def forward(self, x):
        x = torch.nn.functional.interpolate(x, size=(64, 64), mode="bilinear", align_corners=True)
        return torch.inverse(x)


torch.manual_seed(0)
model = Model()
inputs = torch.randn(1, 3, 32, 32)
res = model(inputs)
res64 = model(inputs.to(torch.float64))
compiled_model = torch.compile(model, backend="inductor")
with torch.no_grad():
    compiled_out = compiled_model(inputs)
print("max |eager - compiled|:", (res - compiled_out).abs().max().item())
print("same(fp64_ref):", same(res, compiled_out, fp64_ref=res64))
