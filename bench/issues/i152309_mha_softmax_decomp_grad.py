# Written from the facts of https://github.com/pytorch/pytorch/issues/152309 (not copied).
# ruff: noqa
# F.multi_head_attention_forward with all projection weights and biases set to 0.1,
# trained one step: compiled gradients disagreed with eager. Maintainers traced it to
# the softmax decomposition (reproduces with aot_eager_decomp_partition).
import torch
import torch.nn as nn
import torch.nn.functional as F


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_dim = 256
        self.num_heads = self.embed_dim // 64
        self.in_w = nn.Parameter(torch.full((3 * self.embed_dim, self.embed_dim), 0.1))
        self.in_b = nn.Parameter(torch.full((3 * self.embed_dim,), 0.1))
        self.out_w = nn.Parameter(torch.full((self.embed_dim, self.embed_dim), 0.1))
        self.out_b = nn.Parameter(torch.full((self.embed_dim,), 0.1))

    def forward(self, x):
        xt = x.transpose(0, 1)
        out, _ = F.multi_head_attention_forward(
            query=xt,
            key=xt,
            value=xt,
            embed_dim_to_check=self.embed_dim,
            num_heads=self.num_heads,
            in_proj_weight=self.in_w,
            in_proj_bias=self.in_b,
            bias_k=None,
            bias_v=None,
            add_zero_attn=False,
            dropout_p=0.0,
            out_proj_weight=self.out_w,
            out_proj_bias=self.out_b,
            training=True,
            need_weights=False,
        )
        return out.transpose(0, 1)


def grads(model, x):
    model.zero_grad()
    model(x).sum().backward()
    return [p.grad.clone() for p in model.parameters()]


torch.manual_seed(0)
x = torch.randn(2, 16, 256)
m = MHA()
g_eager = grads(m, x)
g_comp = grads(torch.compile(m), x)
for (name, _), a, b in zip(m.named_parameters(), g_eager, g_comp):
    print(name, "max grad diff:", (a - b).abs().max().item(), "scale:", a.abs().max().item())
for a, b in zip(g_eager, g_comp):
    torch.testing.assert_close(b, a, rtol=1e-3, atol=1e-3)
