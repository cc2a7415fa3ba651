# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, default settings. A plain script
# (`python synthetic_base_version_counter_not_bumped.py`): the symptom is autograd's, which a
# program's outputs cannot carry (eager refuses the backward that compiled lets through).
# Two inputs aliasing one storage without a `._base` link (`x` and `x.detach()`; also `.data`,
# `set_`, parameters in one flat buffer), one mutated in place: AOTAutograd merges them into a
# synthetic base built as `torch.empty(0).set_(storage)` (runtime_wrappers.py,
# `merge_view_inputs`), which has a version counter of its own, and bumps only that one
# (`increment_mutation_versions`), never the user's inputs. The data is written, but
# `x._version` stays 0 (eager: 1), so a backward that saved `x` before the call runs on the
# mutated value instead of raising "modified by an inplace operation": a wrong gradient,
# silently (2 where the forward's gradient was 1). `aot_eager` already: AOTAutograd's.
import torch


def f(x, y):
    y.mul_(2)
    return x + 1


if __name__ == "__main__":
    bad = False
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        run = f if backend == "eager" else torch.compile(f, backend=backend)
        w, x = torch.ones(3, requires_grad=True), torch.ones(3)
        loss = (w * x).sum()  # saves x (= 1); d loss / d w = 1
        run(x, x.detach())  # x becomes 2 in place
        try:
            loss.backward()
            what = f"backward ran: w.grad = {w.grad.tolist()}"
            bad |= backend != "eager"
        except RuntimeError as e:
            what = f"backward refused: {str(e)[:60]}..."
        print(f"{backend:9s} x = {x.tolist()}, x._version = {x._version}; {what}")
    print("BUG: a compiled in-place write left x's version counter alone" if bad else "ok")
