"""BERT (transformers ``BertModel``), a tiny config built locally: 2 layers, hidden 32."""

import torch
from torch import nn
from transformers import BertConfig, BertModel


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = BertConfig(
            vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=64,
        )  # fmt: skip
        self.model = BertModel(config)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 6:] = 0  # the second sequence is padded
    return [torch.randint(0, 128, (2, 8), generator=g), mask]
