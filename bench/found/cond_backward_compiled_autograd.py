# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Compiled autograd cannot trace the backward of torch.cond once AOTAutograd compiled the
# forward: the backward graph it captures calls torch.ops.higher_order.cond with the branch
# GraphModules AOTAutograd made, and Dynamo refuses to inline their forward
# (`_LazyGraphModule._lazy_forward` is in its skip list): UncapturedHigherOrderOpError.
# Any backend with AOTAutograd (aot_eager, inductor); the eager backend passes, and so does
# the same step without compiled autograd. Found by the train family's hop model (an MLP
# whose hidden layer goes through cond, trained with compiled autograd).
# torchsmith checks it as a program (`torchsmith check` this file: crash at aotautograd).
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.enable_grad():
            h = torch.cond(x.sum() > 0, lambda a, b: a * b, lambda a, b: a + b, (x, self.w))
            h.sum().backward()
        return self.w.grad.clone()


def get_inputs():
    return [torch.ones(3)]


compile_config = {"dynamo.compiled_autograd": True}


if __name__ == "__main__":
    torch._dynamo.config.compiled_autograd = True
    print("eager   ", Model()(torch.ones(3)))
    print("compiled", torch.compile(Model(), backend="aot_eager")(torch.ones(3)))  # raises
