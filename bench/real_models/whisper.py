"""Whisper (transformers ``WhisperForConditionalGeneration``), a tiny config built locally:
8 mel bins, 32 frames, one encoder and one decoder layer."""

import torch
from torch import nn
from transformers import WhisperConfig, WhisperForConditionalGeneration


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = WhisperConfig(
            vocab_size=128, num_mel_bins=8, encoder_layers=1, decoder_layers=1, d_model=32,
            encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
            decoder_ffn_dim=64, max_source_positions=16, max_target_positions=16,
            pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
        )  # fmt: skip
        self.model = WhisperForConditionalGeneration(config)

    def forward(self, input_features, decoder_input_ids):
        out = self.model(
            input_features=input_features, decoder_input_ids=decoder_input_ids, use_cache=False
        )
        return out.logits


def get_inputs():
    g = torch.Generator().manual_seed(0)
    # 2 * max_source_positions frames: the encoder's two convolutions halve them
    return [torch.randn(2, 8, 32, generator=g), torch.randint(3, 128, (2, 5), generator=g)]
