"""GPT-2 (transformers ``GPT2LMHeadModel``), a tiny config built locally: 2 layers, 32 wide."""

import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=2)
        self.model = GPT2LMHeadModel(config)

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 128, (2, 8), generator=g)]
