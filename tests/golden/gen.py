#!/usr/bin/python3
"""Golden files for blocklab's ops, made with PyTorch (tests/unit/test_golden.c reads them).

Usage (from anywhere; writes next to this file):
    /usr/bin/python3 tests/golden/gen.py            # ops.safetensors + the two fixtures below
    /usr/bin/python3 tests/golden/gen.py --fixture  # only python_written.safetensors and
                                                    # dtypes_written.safetensors (no torch)

For every op of src/core/ops.h and src/nn/nn.h there is one or more "cases". A case builds
small deterministic float32 inputs, runs the PyTorch reference in float64 (so the golden values
are the exact answer rounded once to float32), draws a fixed random upstream gradient for each
differentiable output, and backpropagates. ops.safetensors holds, per case CASE:

    CASE.NAME        inputs (float32; integer ids/targets/masks are stored as exact floats)
    CASE.out         the op's output          CASE.out.NAME   extra outputs (probs, tables, ...)
    CASE.gout        upstream gradient        CASE.gout.NAME  for extra differentiable outputs
    CASE.grad.NAME   d(sum(out * gout))/d(input NAME), for every differentiable input

The references are written from DESIGN.md sections 2-3 and torch.nn.functional, independently of
the C code. Scalar arguments (eps, scale, p, ...) are repeated in test_golden.c's case table
and recorded here in the file's __metadata__ ("args") for readers.

Files are written by the small safetensors writer below (struct + json), not by the safetensors
package, so nothing beyond torch is needed. CI never runs this script: its outputs are committed.
"""
import json
import math
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
# One thread for torch and its BLAS: with Debian's OpenMP build of OpenBLAS selected (as
# blocklab's README asks), torch 1.13's larger matrix products hang with several threads.
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"


# --------------------------------------------------------------------------------------------
# a minimal safetensors writer: 8-byte LE header length, JSON header, raw little-endian data

def st_write(path, tensors, metadata=None, pad=True):
    """tensors: list of (name, dtype, shape, raw little-endian bytes), written in this order."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def f32_bytes(values):
    return struct.pack("<%df" % len(values), *values)


# --------------------------------------------------------------------------------------------
# the fixture for test_safetensors.c (no torch): values the C test knows by heart

def write_fixture():
    """python_written.safetensors: three dtypes, 0-D to 4-D, data stored out of header order, an
    unpadded header with ASCII-escaped unicode, and JSON text inside the metadata."""
    nan_bits = struct.pack("<I", 0x7FC00001)
    f32 = f32_bytes([1.5, -0.0, 1e-40, 3.4028234663852886e38, -2.25, float("inf")]) + nan_bits + \
        f32_bytes([0.1])
    # F16 bit patterns: 0.5, -2, 65504 (max), 2^-14 (min normal), 2^-24 (min subnormal), -inf
    f16 = struct.pack("<6H", 0x3800, 0xC000, 0x7BFF, 0x0400, 0x0001, 0xFC00)
    # BF16 bit patterns: 1, -3.140625, 2^-7, max (0x7F7F)
    bf16 = struct.pack("<4H", 0x3F80, 0xC049, 0x3C00, 0x7F7F)
    scalar = f32_bytes([42.0])
    four = f32_bytes([float(i) - 3.5 for i in range(8)])
    meta = {
        "config": json.dumps({"dim": 128, "norm": "rmsnorm", "eps": 1e-06}),
        "step": "20",
        "note": "caf\u00e9 \u2713 \"quoted\"\n",
    }
    # data order: scalar, bf16, f32, four, f16 -- the header lists them sorted by name instead
    items = [("scalar", "F32", [], scalar), ("b.bf16", "BF16", [2, 2], bf16),
             ("a.f32", "F32", [2, 4], f32), ("four.d", "F32", [1, 2, 2, 2], four),
             ("c.f16", "F16", [6], f16)]
    header, off = {"__metadata__": meta}, 0
    offsets = {}
    for name, dtype, shape, raw in items:
        offsets[name] = (dtype, shape, [off, off + len(raw)])
        off += len(raw)
    for name in sorted(offsets):
        dtype, shape, o = offsets[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": o}
    h = json.dumps(header).encode()  # default separators, ensure_ascii: \u escapes
    path = os.path.join(HERE, "python_written.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(raw for _, _, _, raw in items))
    return path


def write_dtypes_fixture():
    """dtypes_written.safetensors: one tensor of every safetensors dtype blocklab converts (F64,
    I64, I32, I16, I8, U64, U32, U16, U8, BOOL, and F16 beside them, as in a PyTorch file with
    int64 buffers), each with NAME.want: its values rounded to float32 here (struct's "f", round
    to nearest even, as torch's .float()), and two it does not convert (F8_E4M3, C64), which must
    not stop the others from loading."""
    ints = {"I64": ("q", [-3, 2**40, 2**53 + 1, -2**63, 16777217]),
            "I32": ("i", [-2**31, 7, 2**31 - 1, 16777217]),
            "I16": ("h", [-32768, 32767, -1]),
            "I8": ("b", [-128, 127, 0]),
            "U64": ("Q", [2**64 - 1, 1]),
            "U32": ("I", [2**32 - 1, 3]),
            "U16": ("H", [65535, 0]),
            "U8": ("B", [255, 0, 200]),
            "BOOL": ("B", [1, 0, 1, 1])}
    f64 = [0.1, -1e-50, 1e30, 2.5, float("-inf")]
    items = [("h.f16", "F16", [2], struct.pack("<2H", 0x3C00, 0xC400))]  # 1, -4
    want = [("h.f16.want", "F32", [2], f32_bytes([1.0, -4.0]))]
    items.append(("d.f64", "F64", [5], struct.pack("<5d", *f64)))
    want.append(("d.f64.want", "F32", [5], f32_bytes(f64)))
    for dt, (code, vals) in ints.items():
        name = dt.lower() + ".t"
        items.append((name, dt, [len(vals)], struct.pack("<%d%s" % (len(vals), code), *vals)))
        want.append((name + ".want", "F32", [len(vals)], f32_bytes([float(v) for v in vals])))
    items.append(("e.f8", "F8_E4M3", [2], b"\x38\xb8"))       # 1, -1 in F8_E4M3
    items.append(("z.c64", "C64", [1], f32_bytes([1.0, -1.0])))  # 1 - 1j
    path = os.path.join(HERE, "dtypes_written.safetensors")
    st_write(path, items + want, {"note": "gen.py write_dtypes_fixture"})
    return path


# --------------------------------------------------------------------------------------------
# op cases

def f32(x):
    """A Python float rounded to float32 (so C and the reference use the same argument)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main_ops():
    import torch
    import torch.nn.functional as F

    torch.set_grad_enabled(True)
    cases, args_meta = [], {}

    def gen(name):
        g = torch.Generator()
        g.manual_seed(zlib.crc32(name.encode()))
        return g

    def randn(g, *shape, std=1.0):
        return (torch.randn(tuple(shape), generator=g) * std).float()

    def case(name, inputs, fn, consts=None, args=None, nograd=()):
        """inputs: float32 tensors that get gradients (unless in nograd); consts: float32 tensors
        passed as they are. fn(x: dict of float64 tensors, c: dict of consts) -> output tensor, or
        dict {"": main output, NAME: extra output}."""
        consts = consts or {}
        g = gen(name + ".gout")
        xs = {k: v.double().requires_grad_(k not in nograd) for k, v in inputs.items()}
        cs = {k: v for k, v in consts.items()}
        outs = fn(xs, cs)
        if not isinstance(outs, dict):
            outs = {"": outs}
        rec = [(f"{name}.{k}", v) for k, v in inputs.items()]
        rec += [(f"{name}.{k}", v.float()) for k, v in consts.items()]
        total = None
        for k, o in outs.items():
            key = f"{name}.out" + (f".{k}" if k else "")
            rec.append((key, o.detach().float()))
            if o.requires_grad:
                go = randn(g, *o.shape)
                rec.append((f"{name}.gout" + (f".{k}" if k else ""), go))
                term = (o * go.double()).sum()
                total = term if total is None else total + term
        if total is not None:
            total.backward()
            for k, x in xs.items():
                if x.requires_grad:
                    gr = x.grad if x.grad is not None else torch.zeros_like(x)
                    rec.append((f"{name}.grad.{k}", gr.float()))
        cases.append(name)
        args_meta[name] = args or {}
        for k, v in rec:
            tensors.append((k, v.contiguous()))

    tensors = []

    # ---- core/ops.h ------------------------------------------------------------------------
    g = gen("linear")
    case("linear", {"x": randn(g, 2, 3, 5), "w": randn(g, 4, 5), "b": randn(g, 4)},
         lambda x, c: F.linear(x["x"], x["w"], x["b"]))
    g = gen("linear_nobias")
    case("linear_nobias", {"x": randn(g, 3, 5), "w": randn(g, 4, 5)},
         lambda x, c: F.linear(x["x"], x["w"]))
    g = gen("matmul")
    case("matmul", {"a": randn(g, 2, 3, 4), "b": randn(g, 2, 4, 5)},
         lambda x, c: torch.matmul(x["a"], x["b"]))
    g = gen("matmul_4d")
    case("matmul_4d", {"a": randn(g, 2, 2, 3, 4), "b": randn(g, 2, 2, 4, 3)},
         lambda x, c: torch.matmul(x["a"], x["b"]))
    g = gen("matmul_shared")
    case("matmul_shared", {"a": randn(g, 2, 3, 4), "b": randn(g, 4, 5)},
         lambda x, c: torch.matmul(x["a"], x["b"]))
    for op, f in (("add", lambda a, b: a + b), ("mul", lambda a, b: a * b)):
        for suffix, bshape in (("", (2, 3, 4)), ("_bcast1", (4,)), ("_bcast2", (3, 4))):
            g = gen(op + suffix)
            case(op + suffix, {"a": randn(g, 2, 3, 4), "b": randn(g, *bshape)},
                 lambda x, c, f=f: f(x["a"], x["b"]))
    g = gen("scale")
    s = f32(-1.75)
    case("scale", {"a": randn(g, 2, 3)}, lambda x, c: x["a"] * s, args={"s": s})
    g = gen("gelu")
    case("gelu", {"x": randn(g, 3, 7, std=3.0)}, lambda x, c: F.gelu(x["x"]))
    g = gen("silu")
    case("silu", {"x": randn(g, 3, 7, std=3.0)}, lambda x, c: F.silu(x["x"]))
    g = gen("softmax")
    case("softmax", {"x": randn(g, 2, 3, 6, std=4.0)}, lambda x, c: F.softmax(x["x"], -1))
    g = gen("embedding")
    ids = torch.tensor([3, 0, 6, 3, 3, 1])
    case("embedding", {"w": randn(g, 7, 4)}, lambda x, c: F.embedding(ids, x["w"]),
         consts={"ids": ids.float()})
    g = gen("cross_entropy")
    tg = torch.tensor([2, -1, 0, 4, 4, -1, 1])
    case("cross_entropy", {"logits": randn(g, 7, 5, std=2.0)},
         lambda x, c: F.cross_entropy(x["logits"], tg, ignore_index=-1),
         consts={"targets": tg.float()})
    g = gen("mse")
    case("mse", {"pred": randn(g, 3, 4), "target": randn(g, 3, 4)},
         lambda x, c: F.mse_loss(x["pred"], x["target"]))

    # ---- nn/nn.h -----------------------------------------------------------------------------
    eps5, eps6 = f32(1e-5), f32(1e-6)
    g = gen("layernorm")
    case("layernorm", {"x": randn(g, 2, 3, 8, std=2.0) + 0.5, "w": randn(g, 8), "b": randn(g, 8)},
         lambda x, c: F.layer_norm(x["x"], (8,), x["w"], x["b"], eps5), args={"eps": eps5})
    g = gen("layernorm_noaffine")
    case("layernorm_noaffine", {"x": randn(g, 4, 6) - 1.0},
         lambda x, c: F.layer_norm(x["x"], (6,), None, None, eps6), args={"eps": eps6})

    def rms(x, w, eps):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        return y * w if w is not None else y

    g = gen("rmsnorm")
    case("rmsnorm", {"x": randn(g, 2, 3, 8, std=2.0) + 0.5, "w": randn(g, 8)},
         lambda x, c: rms(x["x"], x["w"], eps6), args={"eps": eps6})
    g = gen("rmsnorm_noweight")
    case("rmsnorm_noweight", {"x": randn(g, 4, 6)}, lambda x, c: rms(x["x"], None, eps6),
         args={"eps": eps6})
    g = gen("qk_norm")
    case("qk_norm", {"x": randn(g, 2, 2, 3, 8), "w": randn(g, 8)},
         lambda x, c: rms(x["x"], x["w"], eps6), args={"eps": eps6})
    g = gen("swiglu")
    case("swiglu", {"a": randn(g, 2, 3, 6, std=2.0), "b": randn(g, 2, 3, 6)},
         lambda x, c: F.silu(x["a"]) * x["b"])
    g = gen("mlp_gelu")
    case("mlp_gelu", {"x": randn(g, 2, 3, 4), "fc1_w": randn(g, 8, 4), "fc1_b": randn(g, 8),
                      "fc2_w": randn(g, 4, 8), "fc2_b": randn(g, 4)},
         lambda x, c: F.linear(F.gelu(F.linear(x["x"], x["fc1_w"], x["fc1_b"])), x["fc2_w"],
                               x["fc2_b"]))
    g = gen("mlp_gelu_nobias")
    case("mlp_gelu_nobias", {"x": randn(g, 3, 4), "fc1_w": randn(g, 8, 4), "fc2_w": randn(g, 4, 8)},
         lambda x, c: F.linear(F.gelu(F.linear(x["x"], x["fc1_w"])), x["fc2_w"]))
    g = gen("mlp_swiglu")
    case("mlp_swiglu", {"x": randn(g, 2, 3, 4), "w1": randn(g, 6, 4), "b1": randn(g, 6),
                        "w2": randn(g, 6, 4), "b2": randn(g, 6), "w3": randn(g, 4, 6),
                        "b3": randn(g, 4)},
         lambda x, c: F.linear(F.silu(F.linear(x["x"], x["w1"], x["b1"])) *
                               F.linear(x["x"], x["w2"], x["b2"]), x["w3"], x["b3"]))
    g = gen("mlp_swiglu_nobias")
    case("mlp_swiglu_nobias", {"x": randn(g, 3, 4), "w1": randn(g, 6, 4), "w2": randn(g, 6, 4),
                               "w3": randn(g, 4, 6)},
         lambda x, c: F.linear(F.silu(F.linear(x["x"], x["w1"])) * F.linear(x["x"], x["w2"]),
                               x["w3"]))

    def attention(q, k, v, causal, mask, scale):
        """softmax(q k^T * scale + mask) v with GQA (kv heads repeated), fully masked rows -> 0."""
        H, KVH, T, hd = q.shape[1], k.shape[1], q.shape[2], q.shape[3]
        S = k.shape[2]
        k = k.repeat_interleave(H // KVH, dim=1)
        v = v.repeat_interleave(H // KVH, dim=1)
        sc = scale if scale > 0 else 1.0 / math.sqrt(hd)
        s = torch.matmul(q, k.transpose(-1, -2)) * sc
        allowed = torch.ones(T, S, dtype=torch.bool)
        if causal:
            allowed &= torch.arange(S)[None, :] <= torch.arange(T)[:, None] + (S - T)
        if mask is not None:
            allowed &= mask.bool()
        row_any = allowed.any(-1, keepdim=True)
        s = s.masked_fill(~(allowed | ~row_any), float("-inf"))
        p = F.softmax(s, -1) * row_any
        return {"": torch.matmul(p, v), "probs": p.detach()}

    for name, B, H, KVH, T, S, hd, causal, use_mask, scale in (
            ("attention", 2, 2, 2, 4, 4, 8, 0, False, 0.0),
            ("attention_gqa", 2, 4, 2, 5, 5, 8, 0, False, 0.0),
            ("attention_causal", 1, 4, 1, 5, 5, 4, 1, False, 0.0),
            ("attention_mask", 1, 2, 2, 4, 4, 4, 0, True, f32(0.3)),
            ("attention_cache", 1, 2, 1, 3, 5, 4, 1, False, 0.0)):
        g = gen(name)
        inp = {"q": randn(g, B, H, T, hd), "k": randn(g, B, KVH, S, hd), "v": randn(g, B, KVH, S, hd)}
        consts = {}
        mask = None
        if use_mask:
            mask = torch.tensor([[1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]])
            consts["mask"] = mask.float()
        case(name, inp, lambda x, c, causal=causal, mask=mask, scale=scale:
             attention(x["q"], x["k"], x["v"], causal, mask, scale), consts=consts,
             args={"causal": causal, "scale": scale, "H": H, "KVH": KVH})

    g = gen("split_heads")
    B, T, H, KVH, hd = 2, 3, 4, 2, 3

    def split(x, c):
        qkv = x["qkv"]
        q = qkv[..., :H * hd].reshape(B, T, H, hd).transpose(1, 2)
        k = qkv[..., H * hd:(H + KVH) * hd].reshape(B, T, KVH, hd).transpose(1, 2)
        v = qkv[..., (H + KVH) * hd:].reshape(B, T, KVH, hd).transpose(1, 2)
        return {"": q, "k": k, "v": v}

    case("split_heads", {"qkv": randn(g, B, T, (H + 2 * KVH) * hd)}, split,
         args={"H": H, "KVH": KVH})
    g = gen("merge_heads")
    case("merge_heads", {"x": randn(g, 2, 4, 3, 5)},
         lambda x, c: x["x"].transpose(1, 2).reshape(2, 3, 20))
    g = gen("slice_last")
    case("slice_last", {"x": randn(g, 2, 3, 10)}, lambda x, c: x["x"][..., 3:7],
         args={"start": 3, "len": 4})

    # RoPE: angle tables written out from DESIGN.md section 3, in float64
    def rotate(x, ang):
        """interleaved pairs (x_2i, x_2i+1) turned by ang [T, hd/2]"""
        x0, x1 = x[..., 0::2], x[..., 1::2]
        c, s = torch.cos(ang), torch.sin(ang)
        return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)

    def angles_1d(T, hd, base, offset):
        return torch.tensor([[(offset + t) * base ** (-2.0 * i / hd) for i in range(hd // 2)]
                             for t in range(T)], dtype=torch.float64)

    def angles_2d(gh, gw, prefix, hd, base):
        rows = [[0.0] * (hd // 2) for _ in range(prefix)]
        for r in range(gh):
            for col in range(gw):
                rows.append([r * base ** (-i / (hd / 4)) for i in range(hd // 4)] +
                            [col * base ** (-i / (hd / 4)) for i in range(hd // 4)])
        return torch.tensor(rows, dtype=torch.float64)

    def rope_case(name, x, ang, args):
        tables = {"cos": torch.cos(ang).repeat_interleave(2, -1),
                  "sin": torch.sin(ang).repeat_interleave(2, -1)}
        case(name, {"x": x}, lambda xx, c: {"": rotate(xx["x"], ang), **tables}, args=args)

    g = gen("rope1d")
    rope_case("rope1d", randn(g, 2, 2, 6, 8), angles_1d(6, 8, 10000.0, 3),
              {"T": 6, "hd": 8, "base": 10000.0, "offset": 3})
    g = gen("rope2d")
    rope_case("rope2d", randn(g, 1, 2, 13, 8), angles_2d(3, 4, 1, 8, 100.0),
              {"gh": 3, "gw": 4, "prefix": 1, "hd": 8, "base": 100.0})

    g = gen("modulate")
    case("modulate", {"x": randn(g, 2, 3, 6), "shift": randn(g, 2, 6), "scale": randn(g, 2, 6)},
         lambda x, c: x["x"] * (1 + x["scale"][:, None, :]) + x["shift"][:, None, :])

    def patch_embed(img, w, b, p):
        y = F.conv2d(img, w, b, stride=p)           # [B, D, H/p, W/p]
        return y.flatten(2).transpose(1, 2)          # [B, T, D], tokens row-major

    g = gen("patch_embed")
    case("patch_embed", {"img": randn(g, 2, 3, 8, 8), "w": randn(g, 5, 3, 4, 4), "b": randn(g, 5)},
         lambda x, c: patch_embed(x["img"], x["w"], x["b"], 4), args={"p": 4})
    g = gen("patch_embed_rect")
    case("patch_embed_rect", {"img": randn(g, 1, 2, 4, 6), "w": randn(g, 3, 2, 2, 2)},
         lambda x, c: patch_embed(x["img"], x["w"], None, 2), args={"p": 2})

    def unpatchify(x, C, H, W, p):
        """DiT's unpatchify (facebookresearch/DiT models.py), generalised to H != W."""
        h, w = H // p, W // p
        x = x.reshape(x.shape[0], h, w, p, p, C)
        x = torch.einsum("nhwpqc->nchpwq", x)
        return x.reshape(x.shape[0], C, h * p, w * p)

    g = gen("unpatchify")
    case("unpatchify", {"x": randn(g, 2, 4, 2 * 2 * 3)},
         lambda x, c: unpatchify(x["x"], 3, 4, 4, 2), args={"C": 3, "H": 4, "W": 4, "p": 2})
    g = gen("unpatchify_rect")
    case("unpatchify_rect", {"x": randn(g, 1, 6, 2 * 2 * 2)},
         lambda x, c: unpatchify(x["x"], 2, 4, 6, 2), args={"C": 2, "H": 4, "W": 6, "p": 2})

    g = gen("pos2d_add")
    case("pos2d_add", {"x": randn(g, 2, 6, 4), "row": randn(g, 2, 4), "col": randn(g, 3, 4)},
         lambda x, c: x["x"] + (x["row"][:, None, :] + x["col"][None, :, :]).reshape(6, 4))

    # timestep features: DiT TimestepEmbedder.timestep_embedding(1000 t, nfeat), in float64
    tt = torch.tensor([0.0, 0.25, 0.5, 0.999])
    half = 8
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float64) / half)
    a = (1000.0 * tt.double())[:, None] * freqs[None, :]
    case("timestep", {}, lambda x, c: torch.cat([torch.cos(a), torch.sin(a)], dim=-1),
         consts={"t": tt}, args={"nfeat": 2 * half})

    # ---- the IEEE ends: activations, softmax and norms at huge, infinite, NaN and signed-zero
    # inputs, where float32 kernels overflow (exp(89) = inf) and must still give PyTorch's
    # answer: silu(-1e30) = -0, silu(-inf) = NaN, gelu'(3e38) = 1. test_golden.c compares these
    # cases class by class (NaN for NaN, the same infinity, the sign of a zero output, finite
    # values to the usual tolerance), see its compare_ieee.
    inf, nan = float("inf"), float("nan")
    ends = [-1e30, -inf, inf, nan, -0.0, 0.0, 1e30, -3e38, 3e38, -100.0, 100.0, -88.5, 88.5,
            -1.0, 1.0, 2.5]
    X = torch.tensor(ends, dtype=torch.float32)
    case("silu_ieee", {"x": X.clone()}, lambda x, c: F.silu(x["x"]))
    case("gelu_ieee", {"x": X.clone()}, lambda x, c: F.gelu(x["x"]))
    # b at +-1e30, not +-3e38: d/da = (dy b) silu'(a) overflows to inf in float32 there (in
    # PyTorch's float32 too) while this float64 reference stays finite
    g = gen("swiglu_ieee")
    fin = randn(g, len(ends))
    case("swiglu_ieee", {"a": torch.stack([X, fin]), "b": torch.stack([fin, X.clamp(-1e30, 1e30)])},
         lambda x, c: F.silu(x["a"]) * x["b"])
    # the fused linear + GELU (bl_linear_gelu's epilogue): h = 0 w^T + b = b
    g = gen("linear_gelu_ieee")
    case("linear_gelu_ieee", {"x": torch.zeros(2, 3), "w": randn(g, len(ends), 3), "b": X.clone()},
         lambda x, c: F.gelu(F.linear(x["x"], x["w"], x["b"])), nograd=("x", "w"))
    rows = torch.tensor([[v, 1.0, 2.0] for v in ends] + [[-inf, -inf, -inf], [-inf, 0.0, 1.0]],
                        dtype=torch.float32)
    case("softmax_ieee", {"x": rows.clone()}, lambda x, c: F.softmax(x["x"], -1))
    case("layernorm_ieee", {"x": rows[:len(ends)].clone()},
         lambda x, c: F.layer_norm(x["x"], (3,), None, None, eps6), args={"eps": eps6})
    case("rmsnorm_ieee", {"x": rows[:len(ends)].clone()}, lambda x, c: rms(x["x"], None, eps6),
         args={"eps": eps6})

    # ---- big cases: the shapes the models use, past every OpenMP threshold ----------------
    # Inputs and upstream gradients are not stored but rebuilt on both sides from pattern()
    # (exact in float32); only every SAMPLE-th element of outputs and gradients is stored.
    import numpy as np

    def pattern(n, salt):
        i = np.arange(n, dtype=np.uint64)
        h = (i * np.uint64(2654435761) + np.uint64(salt) * np.uint64(2246822519)) & np.uint64(0xFFFFFFFF)
        h ^= h >> np.uint64(15)
        h = (h * np.uint64(2246822519)) & np.uint64(0xFFFFFFFF)
        h ^= h >> np.uint64(13)
        return ((h & np.uint64(0xFFFF)).astype(np.float64) - 32768.0) / 16384.0  # [-2, 2)

    def big_case(name, specs, fn, consts=None, args=None):
        """specs: {input: (shape, scale)}, scale a power of two; input k (from 0) uses salt k + 1,
        the main upstream gradient salt 99, extra output e (in order) salt 100 + e."""
        consts = consts or {}
        xs, rec = {}, []
        for k, (nm, (shape, scale)) in enumerate(specs.items()):
            v = torch.from_numpy(pattern(math.prod(shape), k + 1) * scale).reshape(shape)
            xs[nm] = v.clone().requires_grad_(True)
            rec.append((f"{name}.pattern.{nm}", torch.tensor([k + 1, scale, len(shape), *shape])))
        rec += [(f"{name}.{k}", v.float()) for k, v in consts.items()]
        outs = fn(xs, consts)
        if not isinstance(outs, dict):
            outs = {"": outs}
        total = None
        for e, (k, o) in enumerate(outs.items()):
            rec.append((f"{name}.out" + (f".{k}" if k else ""), o.detach().flatten()[::SAMPLE]))
            if o.requires_grad:
                go = torch.from_numpy(pattern(o.numel(), 99 if not k else 100 + e - 1))
                term = (o * go.reshape(o.shape)).sum()
                total = term if total is None else total + term
        total.backward()
        for k, x in xs.items():
            gr = x.grad if x.grad is not None else torch.zeros_like(x)
            rec.append((f"{name}.grad.{k}", gr.flatten()[::SAMPLE]))
        cases.append(name)
        args_meta[name] = dict(args or {}, sampled_every=SAMPLE)
        for k, v in rec:
            tensors.append((k, v.float().contiguous()))

    SAMPLE = 61
    B, T, D = 8, 64, 128
    w_scale = 1 / 16  # about 1/sqrt(fan_in), like the models' init
    big_case("linear_big", {"x": ((B, T, D), 1), "w": ((3 * D, D), w_scale), "b": ((3 * D,), 1)},
             lambda x, c: F.linear(x["x"], x["w"], x["b"]))
    big_case("matmul_big", {"a": ((B * 4, T, 32), 1), "b": ((B * 4, 32, T), 1 / 4)},
             lambda x, c: torch.matmul(x["a"], x["b"]))
    big_case("add_big", {"a": ((9, T, D), 1), "b": ((D,), 1)}, lambda x, c: x["a"] + x["b"])
    big_case("mul_big", {"a": ((9, T, D), 1), "b": ((T, D), 1)}, lambda x, c: x["a"] * x["b"])
    big_case("gelu_big", {"x": ((B, T, 160), 2)}, lambda x, c: F.gelu(x["x"]))
    big_case("silu_big", {"x": ((B, T, 160), 2)}, lambda x, c: F.silu(x["x"]))
    big_case("softmax_big", {"x": ((B * T, 160), 2)}, lambda x, c: F.softmax(x["x"], -1))
    tg = torch.from_numpy((pattern(640, 7) * 16384 + 32768).astype(np.int64) % 129 - 1)  # -1..127
    big_case("cross_entropy_big", {"logits": ((640, 128), 2)},
             lambda x, c: F.cross_entropy(x["logits"], tg, ignore_index=-1),
             consts={"targets": tg.float()})
    big_case("mse_big", {"pred": ((8, 3, 64, 64), 1), "target": ((8, 3, 64, 64), 1)},
             lambda x, c: F.mse_loss(x["pred"], x["target"]))
    ids = torch.from_numpy((pattern(B * T, 8) * 16384 + 32768).astype(np.int64) % 65)
    big_case("embedding_big", {"w": ((65, D), 1)}, lambda x, c: F.embedding(ids, x["w"]),
             consts={"ids": ids.float()})
    big_case("layernorm_big", {"x": ((B, T, D), 1), "w": ((D,), 1), "b": ((D,), 1)},
             lambda x, c: F.layer_norm(x["x"], (D,), x["w"], x["b"], eps6), args={"eps": eps6})
    big_case("rmsnorm_big", {"x": ((B, T, D), 1), "w": ((D,), 1)},
             lambda x, c: rms(x["x"], x["w"], eps6), args={"eps": eps6})
    big_case("qk_norm_big", {"x": ((B, 4, T, 32), 1), "w": ((32,), 1)},
             lambda x, c: rms(x["x"], x["w"], eps6), args={"eps": eps6})
    big_case("mlp_swiglu_big", {"x": ((4, T, D), 1), "w1": ((341, D), w_scale), "b1": ((341,), 1),
                                "w2": ((341, D), w_scale), "b2": ((341,), 1),
                                "w3": ((D, 341), 1 / 32), "b3": ((D,), 1)},
             lambda x, c: F.linear(F.silu(F.linear(x["x"], x["w1"], x["b1"])) *
                                   F.linear(x["x"], x["w2"], x["b2"]), x["w3"], x["b3"]))
    big_case("mlp_gelu_big", {"x": ((4, T, D), 1), "fc1_w": ((4 * D, D), w_scale),
                              "fc1_b": ((4 * D,), 1), "fc2_w": ((D, 4 * D), 1 / 32),
                              "fc2_b": ((D,), 1)},
             lambda x, c: F.linear(F.gelu(F.linear(x["x"], x["fc1_w"], x["fc1_b"])), x["fc2_w"],
                                   x["fc2_b"]))
    big_case("attention_big", {"q": ((2, 4, T, 32), 1), "k": ((2, 2, T, 32), 1),
                               "v": ((2, 2, T, 32), 1)},
             lambda x, c: attention(x["q"], x["k"], x["v"], 1, None, 0.0),
             args={"causal": 1, "H": 4, "KVH": 2})

    def split_big(x, c, H=4, KVH=4, hd=32):
        qkv = x["qkv"]
        Bq, Tq = qkv.shape[0], qkv.shape[1]
        return {"": qkv[..., :H * hd].reshape(Bq, Tq, H, hd).transpose(1, 2),
                "k": qkv[..., H * hd:(H + KVH) * hd].reshape(Bq, Tq, KVH, hd).transpose(1, 2),
                "v": qkv[..., (H + KVH) * hd:].reshape(Bq, Tq, KVH, hd).transpose(1, 2)}

    big_case("split_heads_big", {"qkv": ((B, T, 3 * D), 1)}, split_big, args={"H": 4, "KVH": 4})
    big_case("merge_heads_big", {"x": ((B, 4, T, 32), 1)},
             lambda x, c: x["x"].transpose(1, 2).reshape(B, T, D))
    ang = angles_2d(8, 8, 1, 32, 100.0)
    big_case("rope2d_big", {"x": ((4, 4, 65, 32), 1)},
             lambda x, c: {"": rotate(x["x"], ang),
                           "cos": torch.cos(ang).repeat_interleave(2, -1),
                           "sin": torch.sin(ang).repeat_interleave(2, -1)},
             args={"gh": 8, "gw": 8, "prefix": 1, "hd": 32, "base": 100.0})
    ang1 = angles_1d(128, 32, 10000.0, 0)
    big_case("rope1d_big", {"x": ((2, 4, 128, 32), 1)},
             lambda x, c: {"": rotate(x["x"], ang1),
                           "cos": torch.cos(ang1).repeat_interleave(2, -1),
                           "sin": torch.sin(ang1).repeat_interleave(2, -1)},
             args={"T": 128, "hd": 32, "base": 10000.0, "offset": 0})
    big_case("modulate_big", {"x": ((B, T, D), 1), "shift": ((B, D), 1), "scale": ((B, D), 1)},
             lambda x, c: x["x"] * (1 + x["scale"][:, None, :]) + x["shift"][:, None, :])
    big_case("patch_embed_big", {"img": ((16, 3, 32, 32), 1), "w": ((D, 3, 4, 4), 1 / 8),
                                 "b": ((D,), 1)},
             lambda x, c: patch_embed(x["img"], x["w"], x["b"], 4), args={"p": 4})
    big_case("unpatchify_big", {"x": ((16, 64, 48), 1)},
             lambda x, c: unpatchify(x["x"], 3, 32, 32, 4), args={"C": 3, "H": 32, "W": 32, "p": 4})
    big_case("pos2d_add_big", {"x": ((B, T, D), 1), "row": ((8, D), 1), "col": ((8, D), 1)},
             lambda x, c: x["x"] + (x["row"][:, None, :] + x["col"][None, :, :]).reshape(T, D))

    meta = {"generator": "tests/golden/gen.py", "torch": torch.__version__,
            "cases": json.dumps(cases), "args": json.dumps(args_meta)}
    items = []
    for k, v in tensors:
        arr = v.detach().float().contiguous().numpy()
        items.append((k, "F32", list(v.shape), arr.astype("<f4").tobytes()))
    path = os.path.join(HERE, "ops.safetensors")
    st_write(path, items, meta)
    return path, len(cases)


if __name__ == "__main__":
    print(write_fixture())
    print(write_dtypes_fixture())
    if "--fixture" not in sys.argv[1:]:
        path, n = main_ops()
        print(f"{path}: {n} cases, {os.path.getsize(path)} bytes")
