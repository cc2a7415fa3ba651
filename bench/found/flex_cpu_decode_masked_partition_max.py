# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: compiled flex_attention on CPU in the decoding case (one query, 1024 keys,
# static shapes: Inductor's C++ flash-decoding template) with a padding mask that masks whole
# 128-key partitions and a position bias that makes the real scores lower than about -88 (an
# ALiBi-style bias over a long context). The template stores a max of 0 for a fully masked
# partition (`if (partition_max == -inf) partition_max = 0;`, FLEX_DECODING_TEMPLATE in
# codegen/cpp_flex_attention_template.py), so the global max becomes 0, every exp underflows
# and the first sequence's output is all zeros (inf in the GQA and half variants). The prefill
# template (two queries) keeps -inf and is right; aot_eager is right.
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

B, H, S, D = 2, 2, 1024, 64
LENS = torch.tensor([300, 1000])  # valid keys per sequence


def pad_mask(b, h, q_idx, kv_idx):
    return kv_idx < LENS[b]


def alibi(score, b, h, q_idx, kv_idx):
    return score - 0.25 * (S - kv_idx)


BLOCK_MASK = create_block_mask(pad_mask, B, None, 1, S, device="cpu")


def fn(q, k, v):
    return flex_attention(q, k, v, score_mod=alibi, block_mask=BLOCK_MASK)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(B, H, 1, D, generator=g),
        torch.randn(B, H, S, D, generator=g),
        torch.randn(B, H, S, D, generator=g),
    ]
