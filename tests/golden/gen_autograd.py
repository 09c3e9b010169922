#!/usr/bin/python3
"""Golden gradients for blocklab's autograd at the prompt (tests/unit/test_autograd.c).

Usage: /usr/bin/python3 tests/golden/gen_autograd.py   (writes autograd.safetensors beside it)

Each case is an expression a user types at the prompt, written here in PyTorch (float64, rounded
once to float32 at the end), independently of the C code. Per case CASE the file holds:

    CASE.NAME       every input (leaves: the test makes them with load(..., grad=on))
    CASE.out        the expression's value
    CASE.gout       the upstream gradient given to backward(y, g)
    CASE.grad.NAME  d(sum(out * gout)) / d(input NAME)

The ops themselves (linear, attention, norms, RoPE, ...) are covered by ops.safetensors, which
the same test also reads at the prompt; this file covers what the prompt adds: indexing and
slicing with steps, transposes, .T, torch.matmul's 1-D and broadcast forms, softmax over another
dim, and chains in which one input reaches the output by several paths.
"""
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import st_write  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(20261201)


def rnd(*shape):
    return torch.randn(*shape, dtype=torch.float64)


def f32(t):
    return struct.pack("<%df" % t.numel(), *t.detach().reshape(-1).tolist())


CASES = []


def case(name, inputs, fn):
    """inputs: dict NAME -> tensor; fn(**leaves) -> output."""
    leaves = {k: v.clone().float().double().requires_grad_(True) for k, v in inputs.items()}
    out = fn(**leaves)
    gout = rnd(*out.shape).float().double()
    out.backward(gout)
    ts = []
    for k, v in inputs.items():
        ts.append((f"{name}.{k}", leaves[k].detach()))
        ts.append((f"{name}.grad.{k}", leaves[k].grad))
    ts.append((f"{name}.out", out.detach()))
    ts.append((f"{name}.gout", gout))
    CASES.append((name, ts))


def rms(x, w):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


# slicing with steps, negative steps, an integer index (drops the dimension)
case("slice", {"x": rnd(3, 4, 5)}, lambda x: x.flip(1)[1:, ::2, 2])   # x[1:, ::-2, 2]
case("slice_step", {"x": rnd(6, 7)}, lambda x: x[::2, 1:6:3])
case("index_scalar", {"x": rnd(4, 3)}, lambda x: x[2, 1].reshape(1))
# transposes and .T
case("transpose", {"x": rnd(2, 3, 4)}, lambda x: x.transpose(0, 2))
case("dotT", {"x": rnd(5, 3), "w": rnd(4, 3)}, lambda x, w: x @ w.T)
# torch.matmul forms
case("vecmat", {"v": rnd(4), "m": rnd(4, 3)}, lambda v, m: v @ m)
case("matvec", {"m": rnd(3, 4), "v": rnd(4)}, lambda m, v: m @ v)
case("shared_a", {"a": rnd(3, 4), "b": rnd(2, 4, 5)}, lambda a, b: a @ b)
case("batched", {"a": rnd(2, 3, 4, 5), "b": rnd(2, 3, 5, 2)}, lambda a, b: a @ b)
# softmax over a dimension that is not the last
case("softmax_dim0", {"x": rnd(3, 4)}, lambda x: torch.softmax(x, dim=0))
# one leaf by several paths: x feeds rmsnorm's input and, transposed, the product
case("chain", {"x": rnd(4, 4), "w": rnd(4)},
     lambda x, w: torch.softmax(rms(x, w) @ x.T, dim=-1)[1:, :3])
case("reshape_chain", {"x": rnd(2, 6)},
     lambda x: torch.nn.functional.gelu(x.reshape(3, 4)).transpose(0, 1).flip(0))   # [::-1]

tensors = []
for name, ts in CASES:
    for k, t in ts:
        tensors.append((k, "F32", tuple(t.shape), f32(t.float())))
st_write(os.path.join(HERE, "autograd.safetensors"), tensors,
         {"generator": "tests/golden/gen_autograd.py", "torch": torch.__version__,
          "cases": ",".join(n for n, _ in CASES)})
print("wrote autograd.safetensors:", len(CASES), "cases")
