# Written from the facts of https://github.com/pytorch/pytorch/issues/195320 (not copied).
# ruff: noqa
# Hand-written attention whose key is permuted straight into (B, H, D, T) with
# permute(0, 2, 3, 1), so the score matmul needs no transpose. Inductor's SDPA fusion
# pattern accepted that permute as if it were key.transpose(-2, -1) and rewrote the
# block into scaled_dot_product_attention on the wrong tensor.
import torch
import torch.nn as nn

H, D = 2, 8


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(H * D, H * D)
        self.k = nn.Linear(H * D, H * D)
        self.v = nn.Linear(H * D, H * D)
        self.scale = D**-0.5

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, H, D).permute(0, 2, 1, 3)  # B H T D
        k = self.k(x).view(b, t, H, D).permute(0, 2, 3, 1)  # B H D T
        v = self.v(x).view(b, t, H, D).permute(0, 2, 1, 3)  # B H T D
        w = (torch.matmul(q, k) * self.scale).softmax(dim=-1)
        return torch.matmul(w, v).permute(0, 2, 1, 3).reshape(b, t, H * D)


torch.manual_seed(0)
m = Attn().eval()
x = torch.randn(2, 5, H * D)
with torch.no_grad():
    ref = m(x)
    out = torch.compile(m)(x)
print("max abs diff:", (ref - out).abs().max().item())
torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)
