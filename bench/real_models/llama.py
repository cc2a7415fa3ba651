"""Llama (transformers ``LlamaForCausalLM``), a tiny config built locally: 2 layers, GQA.

Called as people call it: the whole ``CausalLMOutputWithPast`` comes back, its key/value cache
(a ``DynamicCache``) included.
"""

import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = LlamaConfig(
            vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        )  # fmt: skip
        self.model = LlamaForCausalLM(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 128, (2, 8), generator=g)]
