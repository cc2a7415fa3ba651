"""ViT (transformers ``ViTForImageClassification``), a tiny config built locally: 32x32 images,
8x8 patches, 2 layers."""

import torch
from torch import nn
from transformers import ViTConfig, ViTForImageClassification


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        config = ViTConfig(
            image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=2, intermediate_size=64, num_labels=10,
        )  # fmt: skip
        self.model = ViTForImageClassification(config)

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values).logits


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 3, 32, 32, generator=g)]
