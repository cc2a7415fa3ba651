# ruff: noqa
# The first compiled call shows a wrong result (a planted Inductor fault, set by the script);
# the script's last line then feeds a float64 input to the float32 model, which raises in
# eager too: that call is invalid, the first one is still a bug.
import torch
import torch._inductor.config

torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x))


model = Model()
compiled = torch.compile(model)
x = torch.randn(4, 16)
print(compiled(x).sum())
print(compiled(x.double()).sum())
