# Written from the facts of https://github.com/pytorch/pytorch/issues/173987 (not copied).
# ruff: noqa
# aten.eq between a bfloat16 tensor and the Python scalar 3.14: eager rounds the scalar
# to bfloat16 (3.140625) before comparing, Inductor compared against 3.14 in float32,
# so elements equal to bf16(3.14) came out False. Fixed by rounding comparison scalars
# to the tensor dtype (PR #175807).
import torch


def model_func(self, other):
    return torch.ops.aten.eq(self, other=other)


torch.manual_seed(0)
x = torch.randn([3, 1, 64, 128], dtype=torch.bfloat16)
x[0, 0, 0, :5] = 3.14  # stored as bf16 3.140625
input_config = {"self": x, "other": 3.14}
out1 = torch.compile(model_func, backend="eager")(**input_config)
out_inductor = torch.compile(model_func, backend="inductor")(**input_config)
print("eager true count   :", int(out1.sum()))
print("inductor true count:", int(out_inductor.sum()))
torch.testing.assert_close(out1, out_inductor)
