# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: compiled flex_attention on CPU in the decoding case (one query, 1024 keys,
# static shapes) with a BlockMask built by BlockMask.from_kv_blocks without full blocks (its
# default, full_kv_num_blocks=None): "CppCompileError: 'full_kv_num_blocks' was not declared
# in this scope". FLEX_DECODING_TEMPLATE (codegen/cpp_flex_attention_template.py) reads
# full_kv_num_blocks and full_num_kviStrideB/H outside its `{%- if has_full_kv_block %}` guard;
# the prefill template guards them. Eager and aot_eager run.
import torch
from torch.nn.attention.flex_attention import BlockMask, flex_attention

B, H, S, D = 1, 2, 1024, 64
NBLK = S // 128
BLOCK_MASK = BlockMask.from_kv_blocks(
    torch.full((B, H, 1), NBLK, dtype=torch.int32),
    torch.arange(NBLK, dtype=torch.int32).expand(B, H, 1, NBLK).contiguous(),
    mask_mod=lambda b, h, q_idx, kv_idx: kv_idx >= 0,
    seq_lengths=(1, S),
)


def fn(q, k, v):
    return flex_attention(q, k, v, block_mask=BLOCK_MASK)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(B, H, 1, D, generator=g),
        torch.randn(B, H, S, D, generator=g),
        torch.randn(B, H, S, D, generator=g),
    ]
