#!/usr/bin/python3
"""Golden values and gradients for the torch forms a lecturer types at the prompt that are
shaping or contraction functions (tests/unit/test_autograd.c, gradients_match_pytorch_torch_forms):
split, chunk, expand, repeat, einsum, gelu(approximate="tanh"), torch.max(a, b).

Usage: /usr/bin/python3 tests/golden/gen_torchforms.py   (writes torchforms.safetensors beside it)

Each case is the expression the test types, written here in PyTorch (float64, rounded once to
float32), independently of the C code. Per case CASE the file holds CASE.NAME (each input),
CASE.out (the value), CASE.gout (the upstream gradient) and CASE.grad.NAME (d sum(out * gout) /
d NAME), as gen_autograd.py's cases.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcases import GradCases, rnd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(20261202)


_cases = GradCases()
case = _cases.case


# split / chunk: pieces of a size, of listed sizes, chunks (the last smaller)
case("split_size", {"x": rnd(5, 4)}, lambda x: torch.cat([x.split(2)[0] * 2, x.split(2)[2]], 0))
case("split_sizes", {"x": rnd(3, 6)}, lambda x: torch.split(x, [1, 2, 3], dim=-1)[2] * 2)
case("chunk", {"x": rnd(2, 5)}, lambda x: x.chunk(3, 1)[2] * x.chunk(3, 1)[0])
# expand (-1 keeps a size, a new leading dim) and repeat (more counts than dims)
case("expand", {"x": rnd(1, 3)}, lambda x: x.expand(2, 4, -1))
case("repeat", {"x": rnd(2, 3)}, lambda x: x.repeat(2, 1, 3))
case("repeat_1d", {"x": rnd(3)}, lambda x: x.repeat(2, 2))
# einsum: the forms of attention and linear algebra
case("einsum_mm", {"a": rnd(3, 4), "b": rnd(4, 5)}, lambda a, b: torch.einsum("ij,jk->ik", a, b))
case("einsum_bmm", {"a": rnd(2, 3, 4), "b": rnd(2, 4, 5)}, lambda a, b: torch.einsum("bij,bjk->bik", a, b))
case("einsum_scores", {"q": rnd(2, 2, 3, 4), "k": rnd(2, 2, 5, 4)},
     lambda q, k: torch.einsum("bhtd,bhsd->bhts", q, k))
case("einsum_ellipsis", {"q": rnd(2, 3, 4), "k": rnd(2, 5, 4)}, lambda q, k: torch.einsum("...td,...sd->...ts", q, k))
case("einsum_t", {"a": rnd(3, 4)}, lambda a: torch.einsum("ij->ji", a))
case("einsum_colsum", {"a": rnd(3, 4)}, lambda a: torch.einsum("ij->j", a))
case("einsum_outer", {"u": rnd(3), "v": rnd(4)}, lambda u, v: torch.einsum("i,j->ij", u, v))
case("einsum_implicit", {"a": rnd(3, 4), "b": rnd(4, 2)}, lambda a, b: torch.einsum("ij,jk", a, b))
case("einsum_sumfirst", {"a": rnd(3, 4), "b": rnd(4, 2)}, lambda a, b: torch.einsum("ij,jk->k", a, b))
# GELU's tanh form (GPT-2's), over a range that reaches its tails
case("gelu_tanh", {"x": torch.linspace(-6, 6, 25, dtype=torch.float64).reshape(5, 5)},
     lambda x: F.gelu(x, approximate="tanh"))
# torch.max / torch.min of two tensors: the elementwise maximum / minimum
case("max_pair", {"a": rnd(3, 4), "b": rnd(3, 4)}, lambda a, b: torch.max(a, b))
case("min_pair", {"a": rnd(3, 4), "b": rnd(4)}, lambda a, b: torch.min(a, b))

_cases.write(os.path.join(HERE, "torchforms.safetensors"), "tests/golden/gen_torchforms.py")
