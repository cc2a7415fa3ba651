"""T5 (transformers ``T5ForConditionalGeneration``), a tiny config built locally: encoder and
decoder of 2 layers, relative position buckets, a loss from labels."""

import torch
from torch import nn
from transformers import T5Config, T5ForConditionalGeneration


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = T5Config(
            vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
            decoder_start_token_id=0, pad_token_id=0,
        )  # fmt: skip
        self.model = T5ForConditionalGeneration(config)

    def forward(self, input_ids, labels):
        out = self.model(input_ids=input_ids, labels=labels, use_cache=False)
        return out.loss, out.logits


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(1, 128, (2, 8), generator=g), torch.randint(1, 128, (2, 6), generator=g)]
