# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, default settings. A plain script
# (`python rand_low_precision_reaches_one.py`), not a program: random values cannot be judged
# against eager, only their contract can, and `torch.rand` promises [0, 1).
# `replace_random` (fx_passes/replace_random.py) draws float32 uniforms in [0, 1) and then rounds
# them with `.to(dtype)`: for bfloat16 every draw at or above 1 - 2**-9 (float16: 1 - 2**-12)
# rounds up to exactly 1.0, about 0.2 % of bfloat16 samples. Eager CPU samples in the target dtype
# (max 0.99609375). A returned sample then breaks the usual `(r * n).long()` index (IndexError).
# `fallback_random=True` keeps eager's kernel. Eager CUDA has the same symptom (#96947, open).
import torch

torch.manual_seed(0)


def sample(n: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.rand(n, dtype=dtype)


if __name__ == "__main__":
    bad = 0
    for dtype in (torch.bfloat16, torch.float16):
        eager = sample(1_000_000, dtype)
        compiled = torch.compile(sample)(1_000_000, dtype)
        n_one = int((compiled == 1).sum())
        print(
            f"{dtype}: eager max {eager.max().item()} (#1.0: {int((eager == 1).sum())}), "
            f"compiled max {compiled.max().item()} (#1.0: {n_one})"
        )
        bad += n_one
    print("BUG: compiled torch.rand reached 1.0" if bad else "ok: within [0, 1)")
