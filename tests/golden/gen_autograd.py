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
dim, chains in which one input reaches the output by several paths, and torch's tensor functions
(max/min/sort/median with their indices as CASE.out.idx, views, norms, log_softmax).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcases import GradCases, rnd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(20261201)


_cases = GradCases()
case = _cases.case


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

# torch's tensor functions a lecturer reaches for (tests/unit/test_autograd.c's
# gradients_match_pytorch_tensor_functions): (values, indices) pairs, order statistics, views,
# norms (the 2-norm's gradient at 0 is 0), log_softmax (stable for large logits)
case("max_dim", {"x": rnd(3, 4)}, lambda x: tuple(x.max(1)))
case("min_dim_keep", {"x": rnd(2, 3, 4)}, lambda x: tuple(x.min(0, keepdim=True)))
case("max_all", {"x": rnd(3, 4)}, lambda x: x.max())
case("sort", {"x": rnd(3, 5)}, lambda x: tuple(x.sort(dim=1)))
case("sort_desc", {"x": rnd(4, 3)}, lambda x: tuple(x.sort(dim=0, descending=True)))
case("median_all", {"x": rnd(3, 4)}, lambda x: x.median())
case("median_dim", {"x": rnd(3, 5)}, lambda x: tuple(x.median(dim=1)))
case("median_even", {"x": rnd(4, 6)}, lambda x: tuple(x.median(-1, keepdim=True)))
case("unsqueeze", {"x": rnd(2, 3)}, lambda x: x.unsqueeze(1) * torch.arange(1.0, 3.0).reshape(2, 1, 1))
case("squeeze", {"x": rnd(1, 3, 1)}, lambda x: x.squeeze() * torch.arange(1.0, 4.0))
case("permute", {"x": rnd(2, 3, 4)}, lambda x: x.permute(2, 0, 1))
case("flatten", {"x": rnd(2, 3, 4)}, lambda x: x.flatten(1))
case("clone", {"x": rnd(3)}, lambda x: x.clone() * x)
case("norm", {"x": rnd(3, 4)}, lambda x: x.norm())
case("norm_dim", {"x": rnd(3, 4)}, lambda x: x.norm(dim=1))
case("norm_p1", {"x": rnd(3, 4)}, lambda x: x.norm(p=1, dim=0))
case("norm_p3", {"x": rnd(3, 4)}, lambda x: x.norm(p=3))
case("norm_inf", {"x": rnd(3, 4)}, lambda x: x.norm(p=float("inf"), dim=1))
case("norm_zero", {"x": torch.zeros(2, 3, dtype=torch.float64)}, lambda x: x.norm(dim=1))
case("log_softmax", {"x": rnd(3, 5)}, lambda x: torch.log_softmax(x, dim=-1))
case("log_softmax_dim0", {"x": rnd(4, 3)}, lambda x: torch.log_softmax(x, dim=0))
case("log_softmax_big", {"x": rnd(2, 4) * 100}, lambda x: torch.log_softmax(x, dim=1))

_cases.write(os.path.join(HERE, "autograd.safetensors"), "tests/golden/gen_autograd.py")
