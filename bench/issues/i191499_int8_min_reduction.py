# Written from the facts of https://github.com/pytorch/pytorch/issues/191499 (not copied).
# ruff: noqa
# min/argmin over 18 positive uint8/int8 values (and max/argmax over their negatives):
# with 16+ elements the vectorized CPU reduction returned 0 / -1 instead of the answer.
import torch

pos = torch.tensor([5, 1, 100, 3, 7, 8, 9, 13, 100, 120, 127, 2, 6, 4, 11, 12, 90, 80])
bad = 0
for dtype, x in ((torch.uint8, pos), (torch.int8, pos), (torch.int8, -pos)):
    x = x.to(dtype)
    for name, fn in (
        ("min", torch.min),
        ("max", torch.max),
        ("argmin", torch.argmin),
        ("argmax", torch.argmax),
    ):
        torch._dynamo.reset()
        e = fn(x).item()
        c = torch.compile(fn)(x.clone()).item()
        if e != c:
            bad += 1
            print(f"{str(dtype):12s} {name:6s} eager={e} inductor={c}")
print("mismatches:", bad)
assert bad == 0
