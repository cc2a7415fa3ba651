# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: Inductor's max-pool-with-indices lowering (lowering.py,
# `_max_pool_with_offsets`) fills the padding with the dtype's minimum and takes the argmax over
# the window; when every in-bounds element equals that minimum (a uint8 image region of zeros;
# -inf in floats) and a padded slot comes first, the returned index points into the padding:
# negative, or in bounds but outside the window. Here eager [0, 1, 3, 4], compiled
# [-4, -2, 2, 4]. Values are right; a backward through such indices fails ("index -5 is out of
# bounds") in 2-d and 1-d, and in 3-d reaches ATen's unchecked `max_pool3d_with_indices_backward`
# (a double free or a silently wrong gradient). Eager and aot_eager return in-window indices.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, img):
        return F.max_pool2d(img, kernel_size=2, stride=2, padding=1, return_indices=True)


def get_inputs():
    return [torch.zeros(1, 1, 3, 3, dtype=torch.uint8)]
