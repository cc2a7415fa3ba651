# Written from the facts of https://github.com/pytorch/pytorch/issues/183761 (not copied).
# ruff: noqa
# where(mask, full_like(x, 0.75), full_like(x, -0.25)) cast to float16 plus x cast to
# float16: eager rounds each operand to fp16 and adds in fp16; the fused compiled kernel
# produced different fp16 values at several positions and a different float sum.
import torch

x = torch.arange(30, dtype=torch.float32).reshape(2, 3, 5) / 7
m = (torch.arange(30) % 4 == 0).reshape(2, 3, 5)


def f(x, m):
    z = torch.where(m, torch.full_like(x, 0.75), torch.full_like(x, -0.25))
    y = z.to(torch.float16) + x.to(torch.float16)
    return y, y.float().sum()


eager = f(x, m)
compiled = torch.compile(f, backend="inductor", fullgraph=True)(x, m)
diff = (eager[0].float() - compiled[0].float()).abs()
print("eager_sum:", eager[1], "compiled_sum:", compiled[1])
print("max_abs_diff:", diff.max().item(), "diff_count:", int((diff != 0).sum()))
assert torch.equal(eager[0], compiled[0])
