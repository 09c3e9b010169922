#!/usr/bin/python3
"""counts.py - parameter counts of TinyGPT variants built from plain PyTorch modules.

nanoGPT-style (karpathy/nanoGPT model.py, bias=False, weight tying) with the blocklab switches
(DESIGN.md section 1). Prints one line per variant, "name count", sorted as below; the numbers
are pasted into tests/unit/test_gpt.c (CI has no PyTorch). Run: /usr/bin/python3 tests/golden/counts.py
"""
import torch
import torch.nn as nn


class LayerNorm(nn.Module):
    """nanoGPT's LayerNorm with an optional bias (here none); torch 1.x has no bias=False."""
    def __init__(s, dim):
        super().__init__()
        s.weight = nn.Parameter(torch.ones(dim))


class RMSNorm(nn.Module):
    """torch.nn.RMSNorm (torch >= 2.4): a weight only."""
    def __init__(s, dim):
        super().__init__()
        s.weight = nn.Parameter(torch.ones(dim))


class Attn(nn.Module):
    def __init__(s, dim, heads, kv_heads, qk_norm):
        super().__init__()
        hd = dim // heads
        s.c_attn = nn.Linear(dim, dim + 2 * kv_heads * hd, bias=False)
        if qk_norm:
            s.q_norm = RMSNorm(hd)
            s.k_norm = RMSNorm(hd)
        s.c_proj = nn.Linear(dim, dim, bias=False)


class MLP(nn.Module):
    def __init__(s, dim, kind, ratio, multiple_of):
        super().__init__()
        if kind == "gelu":
            s.c_fc = nn.Linear(dim, int(ratio * dim), bias=False)
            s.c_proj = nn.Linear(int(ratio * dim), dim, bias=False)
        else:
            hidden = int(2 * ratio * dim / 3)
            if multiple_of:
                hidden = multiple_of * ((hidden + multiple_of - 1) // multiple_of)
            s.w1 = nn.Linear(dim, hidden, bias=False)
            s.w2 = nn.Linear(dim, hidden, bias=False)
            s.w3 = nn.Linear(hidden, dim, bias=False)


def norm(kind, dim):
    return LayerNorm(dim) if kind == "layernorm" else RMSNorm(dim)


class Block(nn.Module):
    def __init__(s, c):
        super().__init__()
        s.ln_1 = norm(c["norm"], c["dim"])
        s.attn = Attn(c["dim"], c["heads"], c["kv_heads"], c["qk_norm"])
        s.ln_2 = norm(c["norm"], c["dim"])
        s.mlp = MLP(c["dim"], c["mlp"], 4, c["multiple_of"])


class GPT(nn.Module):
    def __init__(s, c):
        super().__init__()
        t = dict(wte=nn.Embedding(c["vocab"], c["dim"]))
        if c["pos"] == "learned":
            t["wpe"] = nn.Embedding(c["context"], c["dim"])
        t["h"] = nn.ModuleList([Block(c) for _ in range(c["depth"])])
        t["ln_f"] = norm(c["norm"], c["dim"])
        s.transformer = nn.ModuleDict(t)
        s.lm_head = nn.Linear(c["dim"], c["vocab"], bias=False)
        s.lm_head.weight = s.transformer.wte.weight  # weight tying


BASE = dict(dim=128, depth=4, heads=4, kv_heads=4, context=128, vocab=65, norm="layernorm",
            pos="learned", mlp="gelu", qk_norm=False, multiple_of=0)
VARIANTS = [
    ("v1_default", {}),
    ("v2_rmsnorm_rope", dict(norm="rmsnorm", pos="rope")),
    ("v3_swiglu_qknorm_kv2", dict(mlp="swiglu", qk_norm=True, kv_heads=2)),
    ("v4_swiglu_multiple_of_32", dict(mlp="swiglu", multiple_of=32)),
    ("v5_shakespeare", dict(dim=384, depth=6, heads=6, kv_heads=6, context=256)),
    ("v6_all_switches_kv1", dict(norm="rmsnorm", pos="rope", mlp="swiglu", qk_norm=True, kv_heads=1)),
]

if __name__ == "__main__":
    for name, over in VARIANTS:
        c = dict(BASE, **over)
        m = GPT(c)
        print(name, sum(p.numel() for p in m.parameters()))  # tied weights counted once
        if name == "v3_swiglu_qknorm_kv2":
            for n, p in m.named_parameters():
                if n.startswith("transformer.h.0."):
                    print("  ", n, tuple(p.shape))
