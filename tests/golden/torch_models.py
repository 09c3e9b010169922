"""TinyDiT and TinyGPT in plain PyTorch, written from ../shared/DESIGN.md section 1-3 independently
of the C code. Used by gen.py (golden files) and bench/torch_ref.py (the PyTorch eager baseline).

Parameter names are exactly blocklab's (PyTorch style), so state_dict() <-> safetensors round-trips.
TinyGPT ties lm_head to transformer.wte as nanoGPT does (one parameter, listed once by
named_parameters() as transformer.wte.weight; state_dict() holds it under both names).
"""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * w  (Zhang & Sennrich 2019)."""

    def __init__(self, d, eps=1e-6, affine=True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d)) if affine else None

    def forward(self, x):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return y * self.weight if self.weight is not None else y


def make_norm(kind, d, eps, affine, bias=True):
    if kind == "rmsnorm":
        return RMSNorm(d, 1e-6 if eps is None else eps, affine)
    if not affine:
        return nn.LayerNorm(d, eps=eps, elementwise_affine=False)
    ln = nn.LayerNorm(d, eps=eps)
    if not bias:   # nanoGPT: LayerNorm with weight only
        ln.bias = None
    return ln


def rope_apply(x, cos, sin):
    """Interleaved pairs (x_2i, x_2i+1) turned by the angle in cos/sin [T, hd] (each angle twice)."""
    x0, x1 = x[..., 0::2], x[..., 1::2]
    c, s = cos[:, 0::2], sin[:, 0::2]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)


def rope_table_1d(T, hd, base=10000.0, offset=0):
    i = torch.arange(hd // 2, dtype=torch.float64)
    freq = base ** (-2 * i / hd)
    ang = (torch.arange(T, dtype=torch.float64) + offset)[:, None] * freq[None, :]
    ang = ang.repeat_interleave(2, dim=1)
    return ang.cos().float(), ang.sin().float()


def rope_table_2d(gh, gw, hd, base=100.0, prefix=0):
    q = hd // 4
    freq = base ** (-torch.arange(q, dtype=torch.float64) / q)
    r = torch.arange(gh, dtype=torch.float64).repeat_interleave(gw)
    c = torch.arange(gw, dtype=torch.float64).repeat(gh)
    ang = torch.cat((r[:, None] * freq[None, :], c[:, None] * freq[None, :]), dim=1)  # [T, hd/2]
    ang = torch.cat((torch.zeros(prefix, hd // 2, dtype=torch.float64), ang), dim=0)
    ang = ang.repeat_interleave(2, dim=1)
    return ang.cos().float(), ang.sin().float()


M64 = (1 << 64) - 1


def splitmix64(x):
    """Steele et al. 2014's finaliser on a Python int (blocklab's bl_splitmix64)."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def fnv1a(s):
    h = 0xCBF29CE484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001B3) & M64
    return h


class DropStream:
    """Dropout with the masks blocklab draws (written from the description in src/core/rng.h, not
    from its code): element i of site s at step k is kept when
        u = (splitmix64(key + i) >> 40) / 2^24 >= p,  key = sm(sm(sm(fnv1a("dropout") ^ seed) ^ k) ^ s)
    and scaled by 1 / (1 - p) (both in float32, as blocklab computes them). Sites: 0 the GPT
    embedding, 1 + 3 layer + {0 attention weights, 1 attention output, 2 MLP output}. Applied
    only while `active` (training); `step` is the optimizer steps taken."""

    def __init__(self, p, seed=0):
        self.p = float(np.float32(p))
        self.scale = float(np.float32(1) / (np.float32(1) - np.float32(p)))
        self.seed, self.step, self.active = seed, 0, False

    def key(self, site):
        return splitmix64(splitmix64(splitmix64(fnv1a("dropout") ^ self.seed) ^ self.step) ^ site)

    def keep(self, site, n):
        with np.errstate(over="ignore"):
            x = np.uint64(self.key(site)) + np.arange(n, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(31)
        return (x >> np.uint64(40)).astype(np.float64) / 16777216.0 >= self.p

    def __call__(self, x, site):
        if not self.active or self.p == 0:
            return x
        k = torch.from_numpy(self.keep(site, x.numel())).reshape(x.shape).to(x.dtype)
        return x * k * self.scale


def drop(module, x, site):
    """module.drop (a DropStream) at `site`, or x when the module has none."""
    d = getattr(module, "drop", None)
    return x if d is None else d(x, site)


def set_dropout(model, stream):
    """Give every dropout place of a TinyDiT / TinyGPT the stream (nanoGPT's places; DiT as timm's
    Attention attn_drop / proj_drop and the MLP output)."""
    model.drop = stream
    blocks = model.blocks if hasattr(model, "blocks") else model.transformer.h
    for i, b in enumerate(blocks):
        b.drop = b.attn.drop = stream
        b.layer = b.attn.layer = i


class Attention(nn.Module):
    def __init__(self, dim, heads, kv_heads, qk_norm, bias, qkv_name="qkv", proj_name="proj"):
        super().__init__()
        self.h, self.kvh, self.hd = heads, kv_heads, dim // heads
        self.qkv_name, self.proj_name = qkv_name, proj_name
        setattr(self, qkv_name, nn.Linear(dim, dim + 2 * kv_heads * self.hd, bias=bias))
        setattr(self, proj_name, nn.Linear(dim, dim, bias=bias))
        if qk_norm:
            self.q_norm = RMSNorm(self.hd)
            self.k_norm = RMSNorm(self.hd)
        self.qk_norm = qk_norm
        self.probs = None

    def forward(self, x, rope=None, causal=False):
        B, T, D = x.shape
        h, kvh, hd = self.h, self.kvh, self.hd
        qkv = getattr(self, self.qkv_name)(x)
        q = qkv[..., :h * hd].view(B, T, h, hd).transpose(1, 2)
        k = qkv[..., h * hd:(h + kvh) * hd].view(B, T, kvh, hd).transpose(1, 2)
        v = qkv[..., (h + kvh) * hd:].view(B, T, kvh, hd).transpose(1, 2)
        if self.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        if rope is not None:
            q, k = rope_apply(q, *rope), rope_apply(k, *rope)
        if kvh != h:
            k = k.repeat_interleave(h // kvh, dim=1)
            v = v.repeat_interleave(h // kvh, dim=1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
        if causal:
            mask = torch.ones(T, T, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf"))
        att = att.softmax(-1)
        self.probs = att.detach()
        L = getattr(self, "layer", 0)
        att = drop(self, att, 1 + 3 * L)                  # self.attn_dropout(att)
        y = (att @ v).transpose(1, 2).reshape(B, T, D)
        return drop(self, getattr(self, self.proj_name)(y), 2 + 3 * L)   # self.resid_dropout(...)


class GeluMlp(nn.Module):
    def __init__(self, dim, hidden, bias, names=("fc1", "fc2")):
        super().__init__()
        self.names = names
        setattr(self, names[0], nn.Linear(dim, hidden, bias=bias))
        setattr(self, names[1], nn.Linear(hidden, dim, bias=bias))

    def forward(self, x):
        return getattr(self, self.names[1])(F.gelu(getattr(self, self.names[0])(x)))


class SwiGluMlp(nn.Module):
    def __init__(self, dim, hidden, bias):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=bias)
        self.w2 = nn.Linear(dim, hidden, bias=bias)
        self.w3 = nn.Linear(hidden, dim, bias=bias)

    def forward(self, x):
        return self.w3(F.silu(self.w1(x)) * self.w2(x))


def swiglu_hidden(dim, mlp_ratio, multiple_of=0):
    h = int(2 * mlp_ratio * dim / 3)
    if multiple_of:
        h = multiple_of * ((h + multiple_of - 1) // multiple_of)
    return h


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


def timestep_embedding(t, dim=256, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = (1000 * t)[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class TEmbedder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(256, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t):
        # features in float32 as DiT computes them; the MLP runs in the weights' dtype (float64
        # for the golden files of gen_models.py)
        return self.mlp(timestep_embedding(t).to(self.mlp[0].weight.dtype))


class PatchEmbed(nn.Module):
    def __init__(self, C, dim, p):
        super().__init__()
        self.proj = nn.Conv2d(C, dim, p, stride=p)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class PosEmbed2d(nn.Module):
    def __init__(self, g, dim):
        super().__init__()
        self.row = nn.Parameter(torch.zeros(g, dim))
        self.col = nn.Parameter(torch.zeros(g, dim))

    def forward(self, x):
        g = self.row.shape[0]
        return x + (self.row[:, None, :] + self.col[None, :, :]).reshape(g * g, -1)


class DiTBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["dim"]
        self.norm_kind, self.eps = cfg["norm"], cfg.get("eps", 1e-6)
        self.attn = Attention(d, cfg["heads"], cfg.get("kv_heads") or cfg["heads"], cfg["qk_norm"], True)
        if cfg["mlp"] == "swiglu":
            self.mlp = SwiGluMlp(d, swiglu_hidden(d, cfg["mlp_ratio"]), True)
        else:
            self.mlp = GeluMlp(d, int(d * cfg["mlp_ratio"]), True)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 4 * d))
        self.norm1 = make_norm(self.norm_kind, d, self.eps, affine=False)
        self.norm2 = make_norm(self.norm_kind, d, self.eps, affine=False)

    def forward(self, x, c, rope):
        shift1, scale1, shift2, scale2 = self.adaLN_modulation(c).chunk(4, dim=1)
        x = x + self.attn(modulate(self.norm1(x), shift1, scale1), rope)
        return x + drop(self, self.mlp(modulate(self.norm2(x), shift2, scale2)), 3 + 3 * getattr(self, "layer", 0))


class TinyDiT(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        cfg = dict(dim=128, depth=4, heads=4, kv_heads=None, patch=4, channels=3, image_size=32,
                   mlp_ratio=4, norm="layernorm", pos="learned", mlp="gelu", qk_norm=False,
                   rope_base=100.0, eps=1e-6)
        cfg.update(kw)
        self.cfg = cfg
        d, p, C = cfg["dim"], cfg["patch"], cfg["channels"]
        self.grid = cfg["image_size"] // p
        self.x_embedder = PatchEmbed(C, d, p)
        if cfg["pos"] == "learned":
            self.pos_embed = PosEmbed2d(self.grid, d)
        self.t_embedder = TEmbedder(d)
        self.blocks = nn.ModuleList([DiTBlock(cfg) for _ in range(cfg["depth"])])
        self.final_layer = nn.Module()
        self.final_layer.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))
        self.final_layer.linear = nn.Linear(d, p * p * C)
        self.final_norm = make_norm(cfg["norm"], d, cfg["eps"], affine=False)

    def forward(self, x, t):
        cfg = self.cfg
        h = self.x_embedder(x)
        rope = None
        if cfg["pos"] == "learned":
            h = self.pos_embed(h)
        else:
            rope = rope_table_2d(self.grid, self.grid, cfg["dim"] // cfg["heads"], cfg["rope_base"])
        c = self.t_embedder(t)
        for b in self.blocks:
            h = b(h, c, rope)
        shift, scale = self.final_layer.adaLN_modulation(c).chunk(2, dim=1)
        h = self.final_layer.linear(modulate(self.final_norm(h), shift, scale))
        B, g, p, C = x.shape[0], self.grid, cfg["patch"], cfg["channels"]
        h = h.reshape(B, g, g, p, p, C)
        h = torch.einsum("nhwpqc->nchpwq", h)
        return h.reshape(B, C, g * p, g * p)

    def loss(self, x0, noise, t):
        """Rectified flow: x_t = (1 - t) x0 + t e, target v = e - x0, MSE."""
        tb = t.view(-1, 1, 1, 1)
        xt = (1 - tb) * x0 + tb * noise
        return F.mse_loss(self(xt, t), noise - x0)


class GPTBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["dim"]
        eps = 1e-5 if cfg["norm"] == "layernorm" else 1e-6
        self.ln_1 = make_norm(cfg["norm"], d, eps, affine=True, bias=False)
        self.attn = Attention(d, cfg["heads"], cfg.get("kv_heads") or cfg["heads"], cfg["qk_norm"], False,
                              "c_attn", "c_proj")
        self.ln_2 = make_norm(cfg["norm"], d, eps, affine=True, bias=False)
        if cfg["mlp"] == "swiglu":
            self.mlp = SwiGluMlp(d, swiglu_hidden(d, cfg["mlp_ratio"], cfg.get("multiple_of", 0)), False)
        else:
            self.mlp = GeluMlp(d, int(d * cfg["mlp_ratio"]), False, ("c_fc", "c_proj"))

    def forward(self, x, rope):
        x = x + self.attn(self.ln_1(x), rope, causal=True)
        return x + drop(self, self.mlp(self.ln_2(x)), 3 + 3 * getattr(self, "layer", 0))


class TinyGPT(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        cfg = dict(dim=128, depth=4, heads=4, kv_heads=None, context=128, vocab=65, mlp_ratio=4,
                   norm="layernorm", pos="learned", mlp="gelu", qk_norm=False, rope_base=10000.0,
                   multiple_of=0)
        cfg.update(kw)
        self.cfg = cfg
        d = cfg["dim"]
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(cfg["vocab"], d)
        if cfg["pos"] == "learned":
            self.transformer.wpe = nn.Embedding(cfg["context"], d)
        self.transformer.h = nn.ModuleList([GPTBlock(cfg) for _ in range(cfg["depth"])])
        eps = 1e-5 if cfg["norm"] == "layernorm" else 1e-6
        self.transformer.ln_f = make_norm(cfg["norm"], d, eps, affine=True, bias=False)
        self.lm_head = nn.Linear(d, cfg["vocab"], bias=False)
        self.lm_head.weight = self.transformer.wte.weight   # tied (nanoGPT)

    def forward(self, idx):
        B, T = idx.shape
        cfg = self.cfg
        x = self.transformer.wte(idx)
        rope = None
        if cfg["pos"] == "learned":
            x = x + self.transformer.wpe(torch.arange(T))
        else:
            rope = rope_table_1d(T, cfg["dim"] // cfg["heads"], cfg["rope_base"])
        x = drop(self, x, 0)                              # self.transformer.drop(tok_emb + pos_emb)
        for b in self.transformer.h:
            x = b(x, rope)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)

    def loss(self, tokens):
        """tokens [B, T+1]: inputs tokens[:, :-1], targets tokens[:, 1:], mean cross-entropy."""
        logits = self(tokens[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))

    @torch.no_grad()
    def generate_greedy(self, idx, n):
        for _ in range(n):
            logits = self(idx[:, -self.cfg["context"]:] if self.cfg["pos"] == "learned" else idx)
            idx = torch.cat((idx, logits[:, -1].argmax(-1, keepdim=True)), dim=1)
        return idx


def count(model):
    return sum(p.numel() for p in model.parameters())


if __name__ == "__main__":
    for kw in [{}, {"norm": "rmsnorm"}, {"qk_norm": True}, {"mlp": "swiglu"}, {"pos": "rope2d"},
               {"norm": "rmsnorm", "qk_norm": True, "mlp": "swiglu", "pos": "rope2d"}]:
        print("TinyDiT", kw, count(TinyDiT(**kw)))
    for kw in [{}, {"norm": "rmsnorm", "pos": "rope"}, {"mlp": "swiglu", "qk_norm": True, "kv_heads": 2},
               {"mlp": "swiglu", "multiple_of": 32}, {"dim": 384, "depth": 6, "heads": 6, "context": 256}]:
        print("TinyGPT", kw, count(TinyGPT(**kw)))
