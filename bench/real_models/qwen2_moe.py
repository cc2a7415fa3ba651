"""A mixture of experts (transformers ``Qwen2MoeForCausalLM``), a tiny config built locally:
2 layers of 4 routed experts (top 2) and a shared expert."""

import torch
from torch import nn
from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = Qwen2MoeConfig(
            vocab_size=128, hidden_size=32, intermediate_size=64, moe_intermediate_size=32,
            shared_expert_intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, num_experts=4, num_experts_per_tok=2,
            max_position_embeddings=64,
        )  # fmt: skip
        self.model = Qwen2MoeForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 128, (2, 8), generator=g)]
