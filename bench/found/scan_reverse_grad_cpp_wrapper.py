# A bug torchsmith found (see README.md here); torch 2.13.0 CPU.
# The backward of `scan(..., reverse=True)` does not compile under Inductor's C++ wrapper
# (`inductor.cpp_wrapper = True`): g++ rejects the generated wrapper with "conflicting
# declaration 'auto buf6'" (a buffer of the scan's subgraph declared again in the same scope
# as one of the outer graph's). The forward scan, a forward-direction scan with gradients, and
# the same program under the default Python wrapper all compile and match eager.
# (`capture_scalar_outputs` only keeps scan's lowering from #153437's `.item()`.)
# Found by `torchsmith fuzz --generator export --config-space default` (the export family's
# hop base on its `compile+cpp_wrapper` path, seed 16025), reduced by the campaign's reducer
# and by hand. torchsmith checks it as a program (`torchsmith check` this file: crash at
# inductor).
import torch
from torch._higher_order_ops.scan import scan


def fn(x, y):
    def comb(carry, xs):
        h = carry.clamp(-3, 3)
        h = h * h.sum(-1, keepdim=True).tanh()
        return h, h * 2 + xs

    return scan(comb, x[0], y, dim=0, reverse=True)[1]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, 3, generator=g), torch.randn(3, 3, generator=g)]


compile_config = {"dynamo.capture_scalar_outputs": True, "inductor.cpp_wrapper": True}
check_options = {"grad": True}


if __name__ == "__main__":
    torch._dynamo.config.capture_scalar_outputs = True
    torch._inductor.config.cpp_wrapper = True
    x, y = (t.requires_grad_() for t in get_inputs())
    torch.compile(fn)(x, y).sum().backward()  # CppCompileError: conflicting declaration
