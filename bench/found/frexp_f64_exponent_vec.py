# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The exponent torch.frexp returns for a float64 input, used in any arithmetic with a scalar
# (+ 1, clamp, clamp_min), does not compile on CPU: Inductor's vectorized kernel holds the
# int32 exponents as VectorizedN<int, 2> (two int vectors per double vector) and calls
# maximum()/operator+ with a Vectorized<int>: "no matching function for call to
# maximum(VectorizedN<int, 2>&, Vectorized<int>&)". float32 inputs compile; frexp's exponent
# alone, or .abs() of it, compiles. A 2.6 -> 2.13 regression (2.6.0 compiles and runs it).
# torchsmith checks it as a program (`torchsmith check` this file: crash at inductor).
import torch


def fn(z):
    return torch.frexp(z)[1] + 1


def get_inputs():
    return [torch.rand(8, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) + 0.1]


if __name__ == "__main__":
    (z,) = get_inputs()
    print("eager   ", fn(z))
    print("compiled", torch.compile(fn)(z))  # raises CppCompileError
