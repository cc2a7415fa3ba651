# An opt-in Inductor setting declared by the program (compile_config) next to the one the
# failure needs: the planted relu compile error, declared here too. Stands in for a bug that
# needs an opt-in pass; the reduction must keep the needed key and drop the rest.
import torch


def fn(x, w):
    a = x @ w
    b = torch.relu(a)
    c = b.mean(dim=0)
    d = torch.sigmoid(c)
    return d


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(16, 32), torch.randn(32, 8)]


compile_config = {
    "inductor.freezing": True,
    "inductor.cpp.inject_relu_bug_TESTING_ONLY": "compile_error",
    "inductor.epilogue_fusion": False,
}
compile_kwargs = {"mode": "default"}
