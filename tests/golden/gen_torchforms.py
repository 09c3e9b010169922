#!/usr/bin/python3
"""Golden values and gradients for the torch forms a lecturer types at the prompt that are
shaping or contraction functions (tests/unit/test_autograd.c, gradients_match_pytorch_torch_forms):
split, chunk, expand, repeat, einsum, gelu(approximate="tanh"), torch.max(a, b); and the forms of
a block written by hand (RMSNorm, SwiGLU, RoPE, attention): relu, rsqrt, outer, mT, layer_norm,
rms_norm, scaled_dot_product_attention (with their gradients), isclose and argsort (values).

Torch 1.13 has neither F.rms_norm nor F.scaled_dot_product_attention: their cases compute torch
2's documented formulas here (rms_norm: x * rsqrt(mean(x^2, -1) + eps) * weight, eps None being
torch.finfo(torch.float32).eps; sdpa: the reference implementation of its documentation).

Usage: /usr/bin/python3 tests/golden/gen_torchforms.py   (writes torchforms.safetensors beside it)

Each case is the expression the test types, written here in PyTorch (float64, rounded once to
float32), independently of the C code. Per case CASE the file holds CASE.NAME (each input),
CASE.out (the value), CASE.gout (the upstream gradient) and CASE.grad.NAME (d sum(out * gout) /
d NAME), as gen_autograd.py's cases.
"""
import math
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



# --- a block by hand: the cases are appended, so the ones above keep their inputs ---
def rms_norm(x, shape, weight=None, eps=None):     # torch 2.4's F.rms_norm
    eps = torch.finfo(torch.float32).eps if eps is None else eps
    dims = tuple(range(-len(shape), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y * weight if weight is not None else y


def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """torch 2's F.scaled_dot_product_attention, its documented reference implementation."""
    L, S = q.size(-2), k.size(-2)
    scale_factor = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        assert attn_mask is None
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias = attn_bias.masked_fill(temp_mask.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias = attn_bias.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = q @ k.transpose(-2, -1) * scale_factor
    attn_weight = attn_weight + attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ v


def with_zeros(x):      # relu'(0) = 0: exact zeros among the inputs
    x = x.clone()
    x.view(-1)[::5] = 0
    return x


case("relu", {"x": with_zeros(rnd(4, 5))}, lambda x: F.relu(x))
case("relu_method", {"x": with_zeros(rnd(2, 3, 4))}, lambda x: x.relu() * 2)
case("rsqrt", {"x": rnd(3, 4).abs() + 0.1}, lambda x: torch.rsqrt(x))
case("outer", {"u": rnd(3), "v": rnd(5)}, lambda u, v: torch.outer(u, v))
case("mT", {"x": rnd(2, 3, 4)}, lambda x: x.mT * torch.arange(1., 4., dtype=torch.float64))
case("layer_norm", {"x": rnd(2, 3, 6), "w": rnd(6), "b": rnd(6)}, lambda x, w, b: F.layer_norm(x, (6,), w, b))
case("layer_norm_2d", {"x": rnd(2, 3, 4), "w": rnd(3, 4)},
     lambda x, w: F.layer_norm(x, (3, 4), weight=w, eps=1e-3))
case("layer_norm_plain", {"x": rnd(4, 5)}, lambda x: F.layer_norm(x, [5]))
case("rms_norm", {"x": rnd(2, 3, 6), "w": rnd(6)}, lambda x, w: rms_norm(x, (6,), w))
case("rms_norm_eps", {"x": rnd(3, 8) * 1e-3}, lambda x: rms_norm(x, [8], eps=1e-6))
case("rms_norm_tiny", {"x": rnd(3, 8) * 1e-3}, lambda x: rms_norm(x, (8,)))
case("rms_norm_2d", {"x": rnd(2, 3, 4), "w": rnd(3, 4)}, lambda x, w: rms_norm(x, (3, 4), w))
case("sdpa", {"q": rnd(2, 2, 4, 8), "k": rnd(2, 2, 6, 8), "v": rnd(2, 2, 6, 5)}, lambda q, k, v: sdpa(q, k, v))
case("sdpa_causal", {"q": rnd(2, 4, 8), "k": rnd(2, 6, 8), "v": rnd(2, 6, 8)},
     lambda q, k, v: sdpa(q, k, v, is_causal=True))
case("sdpa_causal_square", {"q": rnd(5, 4), "k": rnd(5, 4), "v": rnd(5, 3)},
     lambda q, k, v: sdpa(q, k, v, None, 0.0, True))
case("sdpa_scale", {"q": rnd(3, 4, 8), "k": rnd(3, 4, 8), "v": rnd(3, 4, 8)}, lambda q, k, v: sdpa(q, k, v, scale=0.5))
_keep = torch.rand(2, 1, 4, 6) > 0.4       # a boolean mask [B, 1, L, S]; every query sees key 0
_keep[..., 0] = True
case("sdpa_boolmask", {"q": rnd(2, 2, 4, 8), "k": rnd(2, 2, 6, 8), "v": rnd(2, 2, 6, 8), "m": _keep.double()},
     lambda q, k, v, m: sdpa(q, k, v, attn_mask=m.bool()))
case("sdpa_floatmask", {"q": rnd(2, 4, 8), "k": rnd(2, 6, 8), "v": rnd(2, 6, 8), "m": rnd(4, 6)},
     lambda q, k, v, m: sdpa(q, k, v, m))
# no gradient: isclose (torch's defaults, and rtol/atol given) and argsort
_a = rnd(3, 4)
_b = _a + torch.tensor([0, 5e-9, 2e-8, 1e-3], dtype=torch.float64) * (1 + _a.abs())
_b[0, 0], _b[1, 1] = float("inf"), float("nan")
_a[0, 0], _a[2, 2] = float("inf"), float("nan")
_cases.value("isclose", {"a": _a, "b": _b}, lambda a, b: torch.isclose(a, b).double())
_cases.value("isclose_tol", {"a": _a, "b": _b[1]}, lambda a, b: torch.isclose(a, b, rtol=1e-2, atol=0).double())
_cases.value("argsort", {"x": rnd(3, 5)}, lambda x: torch.argsort(x).double())
_cases.value("argsort_desc", {"x": rnd(4, 3)}, lambda x: torch.argsort(x, dim=0, descending=True).double())

_cases.write(os.path.join(HERE, "torchforms.safetensors"), "tests/golden/gen_torchforms.py")
