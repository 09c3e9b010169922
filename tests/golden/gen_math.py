#!/usr/bin/python3
"""Golden values AND gradients of the language's math functions (src/core/ops_math.h and the
attention mask of bl_attention_masked), made with PyTorch; tests/unit/test_golden_math.c reads them.

Usage (from anywhere; writes math.safetensors next to this file):
    /usr/bin/python3 tests/golden/gen_math.py

The layout is gen.py's: per case CASE the inputs CASE.NAME (float32; integer indices stored as
exact floats), the output CASE.out (extra outputs CASE.out.NAME), and for a differentiable output
a fixed random upstream gradient CASE.gout and CASE.grad.NAME = d(sum(out * gout))/d(NAME) from
torch.autograd. The references run in float64 on the float32 inputs (the exact answer rounded
once), with torch's own functions: their conventions at non-differentiable points (abs'(0) = 0,
clamp at its bounds, max ties, pow at 0) are what the C ops must reproduce. The inputs are built
to hit those points: exact ties, zeros, values on clamp's bounds, a fully masked attention row.
Scalar arguments (dims, k, bounds) are repeated in test_golden_math.c's case table.
CI never runs this script: its output is committed.
"""
import math
import os
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["OMP_NUM_THREADS"] = "1"
from gen import st_write  # noqa: E402  (the same minimal safetensors writer)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

tensors, cases = [], []


def gen(name):
    g = torch.Generator()
    g.manual_seed(zlib.crc32(name.encode()))
    return g


def randn(g, *shape, std=1.0):
    return (torch.randn(tuple(shape), generator=g) * std).float()


def T(v):
    return torch.tensor(v, dtype=torch.float32)


def case(name, inputs, fn, nograd=()):
    """inputs: {name: float32 tensor}; fn(dict of float64 tensors) -> output or {"": out, NAME:
    extra}. Inputs named in nograd (conditions, masks, indices) get no gradient."""
    assert name not in cases, name
    g = gen(name + ".gout")
    xs = {k: v.double().requires_grad_(k not in nograd) for k, v in inputs.items()}
    outs = fn(xs)
    if not isinstance(outs, dict):
        outs = {"": outs}
    rec = [(f"{name}.{k}", v) for k, v in inputs.items()]
    total = None
    for k, o in outs.items():
        key = f"{name}.out" + (f".{k}" if k else "")
        rec.append((key, o.detach().float()))
        if o.requires_grad and o.dtype.is_floating_point:
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
    for k, v in rec:
        tensors.append((k, v.contiguous()))


def main():
    torch.set_grad_enabled(True)
    # ---- binary, with broadcasting: a [2, 1, 4] with b [3, 1] -> [2, 3, 4] ----------------
    binary = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
              "maximum": torch.maximum, "minimum": torch.minimum}
    for op, f in binary.items():
        g = gen(op)
        a, b = randn(g, 2, 1, 4), randn(g, 3, 1)
        if op == "div":  # |b| >= 0.5: finite differences of a / b stay accurate
            b = b.sign() * (b.abs() + 0.5)
        case(op, {"a": a, "b": b}, lambda x, f=f: f(x["a"], x["b"]))
    g = gen("pow")
    case("pow", {"a": randn(g, 2, 1, 4).abs() + 0.5, "b": randn(g, 3, 1)},
         lambda x: torch.pow(x["a"], x["b"]))
    # pow at a = 0 and b = 0 (torch: d/da = 0 where b == 0; d/db = 0 where a == 0 and b >= 0)
    case("pow_zero", {"a": T([0.0, 0.0, 2.0, 3.0, 0.0]), "b": T([0.0, 2.0, 0.0, 0.5, 1.0])},
         lambda x: torch.pow(x["a"], x["b"]))
    # maximum/minimum ties: equal elements split the gradient evenly
    ties_a, ties_b = T([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]), T([[1.0, 5.0, 3.0], [0.5, -2.0, 7.0]])
    case("maximum_ties", {"a": ties_a, "b": ties_b}, lambda x: torch.maximum(x["a"], x["b"]))
    case("minimum_ties", {"a": ties_a, "b": ties_b}, lambda x: torch.minimum(x["a"], x["b"]))
    # same-shape and scalar broadcasting
    g = gen("mul_scalar")
    case("mul_scalar", {"a": randn(g, 3, 4), "b": T(2.5)}, lambda x: x["a"] * x["b"])
    g = gen("div_same")
    case("div_same", {"a": randn(g, 3, 4), "b": randn(g, 3, 4).abs() + 0.5},
         lambda x: x["a"] / x["b"])
    # comparisons -> 0/1 (no gradient), with ties and broadcasting
    ca, cb = T([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), T([2.0, 2.0, 2.0])
    for op, f in {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
                  "ge": torch.ge}.items():
        case(op, {"a": ca, "b": cb}, lambda x, f=f: f(x["a"], x["b"]).double(), nograd=("a", "b"))

    # ---- unary --------------------------------------------------------------------------------
    g = gen("unary")
    xr = randn(g, 3, 5)
    xr[0, 0], xr[1, 1], xr[2, 2] = 0.0, 2.0, -3.0         # abs, sign at 0; floor/ceil at whole numbers
    pos = randn(g, 3, 5).abs() + 0.1
    unary = {"neg": (torch.neg, xr), "abs": (torch.abs, xr), "sqrt": (torch.sqrt, pos),
             "exp": (torch.exp, xr), "log": (torch.log, pos), "sin": (torch.sin, xr * 3),
             "cos": (torch.cos, xr * 3), "tan": (torch.tan, xr.clamp(-1.2, 1.2)),
             "tanh": (torch.tanh, xr), "sigmoid": (torch.sigmoid, xr * 3),
             "sign": (torch.sign, xr), "floor": (torch.floor, xr * 2), "ceil": (torch.ceil, xr * 2),
             "erf": (torch.erf, xr)}
    for op, (f, x0) in unary.items():
        case(op, {"x": x0.clone()}, lambda x, f=f: f(x["x"]))
    # pow with a number as exponent, and clamp at its bounds (the bounds pass the gradient)
    case("pow_s3", {"x": xr.clone()}, lambda x: torch.pow(x["x"], 3.0))
    case("pow_shalf", {"x": pos.clone()}, lambda x: torch.pow(x["x"], 0.5))
    case("pow_s0", {"x": xr.clone()}, lambda x: torch.pow(x["x"], 0.0))
    cx = T([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    case("clamp", {"x": cx}, lambda x: torch.clamp(x["x"], -1.0, 1.0))
    case("clamp_min", {"x": cx}, lambda x: torch.clamp(x["x"], min=-0.5))
    case("clamp_max", {"x": cx}, lambda x: torch.clamp(x["x"], max=0.5))

    # ---- reductions (var/std biased, as the prompt's var and std) ----------------------------
    g = gen("reduce")
    xd = randn(g, 3, 4, 5)
    red = {"sum": lambda x, **k: x.sum(**k), "mean": lambda x, **k: x.mean(**k),
           "var": lambda x, **k: x.var(unbiased=False, **k),
           "std": lambda x, **k: x.std(unbiased=False, **k),
           "rms": lambda x, **k: x.pow(2).mean(**k).sqrt(),
           "min": lambda x, **k: x.min(**k)[0] if k else x.min(),
           "max": lambda x, **k: x.max(**k)[0] if k else x.max()}
    for op, f in red.items():
        case(op + "_all", {"x": xd.clone()}, lambda x, f=f: f(x["x"]))
        case(op + "_dim1", {"x": xd.clone()}, lambda x, f=f: f(x["x"], dim=1))
        case(op + "_keep", {"x": xd.clone()}, lambda x, f=f: f(x["x"], dim=-1, keepdim=True))
    # ties: max() over all splits evenly; max(dim) gives all to the index it returns (the first)
    tx = T([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [3.0, 0.0, 3.0, 3.0]])
    case("max_ties_all", {"x": tx}, lambda x: x["x"].max())
    case("min_ties_all", {"x": tx}, lambda x: x["x"].min())
    case("max_ties_dim1", {"x": tx}, lambda x: x["x"].max(dim=1)[0])
    case("min_ties_dim0", {"x": tx}, lambda x: x["x"].min(dim=0)[0])
    case("argmax_dim1", {"x": tx}, lambda x: x["x"].argmax(dim=1).double(), nograd=("x",))
    case("argmin_dim0", {"x": tx}, lambda x: x["x"].argmin(dim=0).double(), nograd=("x",))
    case("argmax_all", {"x": tx}, lambda x: x["x"].argmax().double(), nograd=("x",))
    g = gen("cumsum")
    case("cumsum", {"x": randn(g, 3, 4)}, lambda x: torch.cumsum(x["x"], dim=1))
    case("cumsum0", {"x": randn(g, 3, 4)}, lambda x: torch.cumsum(x["x"], dim=0))
    g = gen("topk")
    kx = randn(g, 3, 6)

    def topk(x, k, dim, largest):
        v, i = torch.topk(x, k, dim=dim, largest=largest)
        return {"": v, "indices": i.double()}
    case("topk", {"x": kx.clone()}, lambda x: topk(x["x"], 2, -1, True))
    case("topk_small0", {"x": kx.clone()}, lambda x: topk(x["x"], 2, 0, False))

    # ---- selection and joining ----------------------------------------------------------------
    g = gen("where")
    case("where", {"cond": T([[1.0], [0.0], [1.0]]), "a": randn(g, 3, 4), "b": randn(g, 4)},
         lambda x: torch.where(x["cond"] != 0, x["a"], x["b"]), nograd=("cond",))
    g = gen("masked_fill")
    case("masked_fill", {"x": randn(g, 3, 4), "mask": T([1.0, 0.0, 0.0, 1.0])},
         lambda x: x["x"].masked_fill(x["mask"] != 0, -5.0), nograd=("mask",))
    g = gen("tri")
    tr = randn(g, 2, 3, 4)
    case("tril", {"x": tr.clone()}, lambda x: torch.tril(x["x"]))
    case("tril_p1", {"x": tr.clone()}, lambda x: torch.tril(x["x"], diagonal=1))
    case("triu", {"x": tr.clone()}, lambda x: torch.triu(x["x"]))
    case("triu_m1", {"x": tr.clone()}, lambda x: torch.triu(x["x"], diagonal=-1))
    g = gen("cat")
    case("cat", {"a": randn(g, 2, 3), "b": randn(g, 2, 1), "c": randn(g, 2, 2)},
         lambda x: torch.cat([x["a"], x["b"], x["c"]], dim=1))
    case("cat0", {"a": randn(g, 2, 3), "b": randn(g, 1, 3)}, lambda x: torch.cat([x["a"], x["b"]], 0))
    case("stack", {"a": randn(g, 2, 3), "b": randn(g, 2, 3)}, lambda x: torch.stack([x["a"], x["b"]], 0))
    case("stack_last", {"a": randn(g, 2, 3), "b": randn(g, 2, 3)},
         lambda x: torch.stack([x["a"], x["b"]], -1))
    g = gen("embedding")
    case("embedding", {"w": randn(g, 5, 3), "idx": T([[0.0, 4.0, 0.0], [2.0, 0.0, 1.0]])},
         lambda x: F.embedding(x["idx"].long(), x["w"]), nograd=("idx",))
    case("one_hot", {"idx": T([3.0, 0.0, 1.0, 3.0])},
         lambda x: F.one_hot(x["idx"].long(), 5).double(), nograd=("idx",))
    case("one_hot_auto", {"idx": T([[2.0, 0.0], [1.0, 2.0]])},
         lambda x: F.one_hot(x["idx"].long()).double(), nograd=("idx",))
    case("linspace", {}, lambda x: torch.linspace(0.0, 1.0, 7, dtype=torch.float32).double())
    case("linspace_neg", {}, lambda x: torch.linspace(-2.0, 3.0, 4, dtype=torch.float32).double())
    case("eye", {}, lambda x: torch.eye(3, 4, dtype=torch.float64))

    # ---- attention with a mask broadcast over batch and heads ---------------------------------
    def attention(q, k, v, keep=None, add=None, causal=False):
        """softmax(q k^T / sqrt(hd) + add) v over the keys keep allows (GQA: kv heads repeated);
        a row with nothing allowed gives 0 (blocklab's convention; torch gives NaN there)."""
        H, KVH, Tq, hd = q.shape[1], k.shape[1], q.shape[2], q.shape[3]
        S = k.shape[2]
        k = k.repeat_interleave(H // KVH, dim=1)
        v = v.repeat_interleave(H // KVH, dim=1)
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
        allowed = torch.ones(Tq, S, dtype=torch.bool).expand(s.shape)
        if causal:
            allowed = allowed & (torch.arange(S)[None, :] <= torch.arange(Tq)[:, None] + (S - Tq))
        if keep is not None:
            allowed = allowed & (keep != 0)
        if add is not None:
            s = s + add
            allowed = allowed & (add != float("-inf"))
        row_any = allowed.any(-1, keepdim=True)
        s = s.masked_fill(~row_any, 0.0).masked_fill(~allowed & row_any, float("-inf"))
        p = F.softmax(s, -1) * row_any
        return {"": torch.matmul(p, v), "probs": p.detach()}

    g = gen("attention_bool")
    B, H, KVH, Tq, S, hd = 2, 2, 1, 3, 4, 4
    qkv = {"q": randn(g, B, H, Tq, hd), "k": randn(g, B, KVH, S, hd), "v": randn(g, B, KVH, S, hd)}
    # [B, 1, T, S]: batch 1's row 1 is fully masked
    mb = T([[[[1, 1, 0, 1], [1, 0, 0, 0], [0, 1, 1, 1]]], [[[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]]]])
    case("attention_bool", dict(qkv, mask=mb),
         lambda x: attention(x["q"], x["k"], x["v"], keep=x["mask"]), nograd=("mask",))
    # additive [T, S] with -inf (a fully masked row) and finite biases, plus causal
    ma = T([[0.0, -1.5, float("-inf"), 0.5], [float("-inf")] * 4, [0.25, 0.0, -0.75, 0.0]])
    case("attention_additive", dict(qkv, mask=ma),
         lambda x: attention(x["q"], x["k"], x["v"], add=x["mask"]), nograd=("mask",))
    case("attention_additive_causal", dict(qkv, mask=ma),
         lambda x: attention(x["q"], x["k"], x["v"], add=x["mask"], causal=True), nograd=("mask",))
    # key padding [B, 1, 1, S]
    mp = T([[[[1, 1, 1, 0]]], [[[1, 1, 0, 0]]]])
    case("attention_padding", dict(qkv, mask=mp),
         lambda x: attention(x["q"], x["k"], x["v"], keep=x["mask"]), nograd=("mask",))

    write_script()
    path = os.path.join(HERE, "math.safetensors")
    st_write(path, [(k, "F32", list(v.shape), v.numpy().astype("<f4").tobytes()) for k, v in tensors],
             {"generator": "tests/golden/gen_math.py", "torch": torch.__version__,
              "cases": " ".join(cases)})
    print(f"wrote {path}: {len(cases)} cases, {len(tensors)} tensors")


# --------------------------------------------------------------------------------------------
# tests/scripts/math_grad.bl: the same functions at the prompt, values and gradients from
# torch.autograd written into the script (each check prints true)

def lit(t):
    """a tensor as a blocklab literal, float32 values with 9 significant digits"""
    def fmt(v):
        if isinstance(v, list):
            return "[" + ", ".join(fmt(u) for u in v) + "]"
        if v == float("-inf"):
            return "-exp(1000)"  # -inf: a number / 0 is an error, as in Python
        return "%.9g" % v
    return "tensor(%s)" % fmt(t.float().tolist())


def check_lines(checks, seed):
    """The lines of a script checking each (what, {name: input with grad}, {name: constant},
    blocklab expression, torch function of the inputs): the inputs as literals, y = the
    expression, allclose(y, torch's value), backward(sum(y * g)) with a fixed g (seeded by
    seed.gout.N; 1.5 for a scalar y), then allclose of each input's .grad with torch.autograd's."""
    out = []
    for n, (what, ins, consts, expr, fn) in enumerate(checks):
        xs = {k_: t.double().requires_grad_(True) for k_, t in ins.items()}
        y = fn(xs)
        gout = randn(gen("%s.gout.%d" % (seed, n)), *y.shape) if y.dim() else T(1.5)
        (y * gout.double()).sum().backward()
        out.append("")
        out.append("# " + what)
        for k_, t in ins.items():
            out.append("%s = %s" % (k_, lit(t)[:-1] + ", grad=on)"))
        for k_, t in consts.items():
            out.append("%s = %s" % (k_, lit(t)))
        out.append("y = " + expr)
        out.append("allclose(y, %s)" % lit(y.detach()))
        out.append("backward(sum(y * %s))" % (lit(gout) if y.dim() else "1.5"))
        for k_ in ins:
            out.append("allclose(%s.grad, %s)" % (k_, lit(xs[k_].grad)))
    return out


def write_script():
    g = gen("script")
    x = randn(g, 3, 4)
    x[0, 0] = 0.0                                       # abs at 0
    ties = T([[1.0, 3.0, 3.0], [2.0, -1.0, 2.0]])
    bnd = T([-2.0, -1.0, 0.0, 1.0, 2.0])
    pos = randn(g, 2, 1, 3).abs() + 0.5
    ex = randn(g, 4, 1)
    w, idx = randn(g, 5, 3), T([[0.0, 4.0], [4.0, 2.0]])
    q, k, v = randn(g, 1, 2, 3, 4), randn(g, 1, 1, 4, 4), randn(g, 1, 1, 4, 4)
    mb = T([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 0]])
    ma = T([[0.0, -1.0, float("-inf"), 0.5], [float("-inf")] * 4, [0.0, 0.0, -2.0, 0.0]])
    F_ = torch.nn.functional

    def att(q, k, v, keep=None, add=None):
        s = torch.matmul(q, k.transpose(-1, -2)) / 2.0
        allowed = torch.ones_like(s, dtype=torch.bool)
        if keep is not None:
            allowed = allowed & (keep != 0)
        if add is not None:
            s = s + add
            allowed = allowed & (add != float("-inf"))
        row = allowed.any(-1, keepdim=True)
        s = s.masked_fill(~row, 0.0).masked_fill(~allowed & row, float("-inf"))
        return torch.matmul(F_.softmax(s, -1) * row, v)

    # (what is written, {name: input with grad}, {name: constant}, blocklab expression, torch)
    checks = [
        ("sin(x) * x", {"x": x}, {}, "sin(x) * x", lambda a: torch.sin(a["x"]) * a["x"]),
        ("cos, tan, tanh, sigmoid, erf, exp", {"x": x}, {},
         "cos(x) + tan(x / 2) - tanh(x) * sigmoid(x) + erf(x) * exp(x / 4)",
         lambda a: torch.cos(a["x"]) + torch.tan(a["x"] / 2) - torch.tanh(a["x"]) * torch.sigmoid(a["x"])
         + torch.erf(a["x"]) * torch.exp(a["x"] / 4)),
        ("** and abs (abs'(0) = 0), log, sqrt, sign, floor, ceil", {"x": x}, {},
         "x ** 3 - 2 * x / (abs(x) + 1) + log(abs(x) + 1) * sqrt(abs(x) + 1) + sign(x) + floor(x) * ceil(x)",
         lambda a: a["x"] ** 3 - 2 * a["x"] / (a["x"].abs() + 1) + torch.log(a["x"].abs() + 1)
         * torch.sqrt(a["x"].abs() + 1) + torch.sign(a["x"]) + torch.floor(a["x"]) * torch.ceil(a["x"])),
        ("pow and ** with a broadcast tensor exponent", {"a": pos, "b": ex}, {}, "pow(a, b) + a ** b",
         lambda a: torch.pow(a["a"], a["b"]) * 2),
        ("-2**2 is -(2**2); 2**3**2 is 2**9", {"x": x}, {}, "-x**2 + 2**3**2",
         lambda a: -a["x"] ** 2 + 512),
        ("maximum and minimum at ties", {"a": ties, "b": ties.flip(1)}, {},
         "maximum(a, b) * 2 + minimum(a, b)",
         lambda a: torch.maximum(a["a"], a["b"]) * 2 + torch.minimum(a["a"], a["b"])),
        ("clamp at its bounds", {"x": bnd}, {}, "clamp(x, min=-1, max=1)",
         lambda a: torch.clamp(a["x"], -1, 1)),
        ("max over all splits ties evenly", {"x": ties}, {}, "max(x)", lambda a: a["x"].max()),
        ("max(dim) gives the gradient to the index it returns", {"x": ties}, {}, "max(x, dim=1)",
         lambda a: a["x"].max(dim=1)[0]),
        ("min(dim=0), sum, mean, var, std (unbiased: torch's default), rms", {"x": x}, {},
         "min(x, dim=0) + sum(x, dim=1, keepdim=on)[0] + mean(x) * var(x, dim=0) + std(x) * rms(x, dim=0)",
         lambda a: a["x"].min(dim=0)[0] + a["x"].sum(dim=1, keepdim=True)[0] + a["x"].mean()
         * a["x"].var(dim=0) + a["x"].std() * a["x"].pow(2).mean(0).sqrt()),
        ("dims given second (x.sum(1)); var and std biased by unbiased=off and correction=0", {"x": x}, {},
         "x.sum(1) * x.mean(-1) + x.var(1, unbiased=off) + x.std(1, correction=0) + x.var(1) + x.max(1)",
         lambda a: a["x"].sum(1) * a["x"].mean(-1) + a["x"].var(1, unbiased=False) + a["x"].std(1, unbiased=False)
         + a["x"].var(1) + a["x"].max(1)[0]),
        ("cumsum and topk", {"x": x}, {}, "cumsum(x, 1) * 2 + topk(x, 4)[0]",
         lambda a: torch.cumsum(a["x"], 1) * 2 + torch.topk(a["x"], 4)[0]),
        ("where, masked_fill, comparisons", {"x": x}, {}, "where(x > 0, x, x * 0.1) + masked_fill(x, x < -0.5, 7)",
         lambda a: torch.where(a["x"] > 0, a["x"], a["x"] * 0.1) + a["x"].masked_fill(a["x"] < -0.5, 7)),
        ("tril and triu", {"x": x}, {}, "tril(x) * 2 + triu(x, 1)",
         lambda a: torch.tril(a["x"]) * 2 + torch.triu(a["x"], 1)),
        ("cat and stack", {"a": x, "b": x[:, :2].clone()}, {}, "cat([a, b, a], dim=1)[:, 2:9] + stack([b, b])[1, :, 0:1]",
         lambda a: torch.cat([a["a"], a["b"], a["a"]], 1)[:, 2:9] + torch.stack([a["b"], a["b"]])[1, :, 0:1]),
        ("embedding and w[idx]", {"w": w}, {"idx": idx}, "embedding(w, idx) * w[idx]",
         lambda a: F_.embedding(idx.long(), a["w"]) ** 2),
        ("attention with a boolean mask, one row fully masked", {"q": q, "k": k, "v": v}, {"m": mb},
         "attention(q, k, v, mask=m)", lambda a: att(a["q"], a["k"], a["v"], keep=mb)),
        ("attention with an additive mask", {"q": q, "k": k, "v": v}, {"m": ma},
         "attention(q, k, v, mask=m)", lambda a: att(a["q"], a["k"], a["v"], add=ma)),
    ]
    out = ["# math_grad.bl - the math functions at the prompt: values and gradients against",
           "# torch.autograd. Made by tests/golden/gen_math.py (do not edit); every check prints true.",
           "# y = f(inputs); backward(sum(y * g)) with a fixed g, then each input's .grad."]
    out += check_lines(checks, "script")
    # values without gradients
    out += ["", "# values: one_hot, linspace, eye, argmax, comparisons",
            "allclose(one_hot(tensor([3, 0, 1]), 5), %s)" % lit(F_.one_hot(torch.tensor([3, 0, 1]), 5).float()),
            "allclose(linspace(-2, 3, 6), %s)" % lit(torch.linspace(-2, 3, 6)),
            "allclose(eye(2, 3), %s)" % lit(torch.eye(2, 3)),
            "allclose(argmax(%s, dim=1), %s)" % (lit(ties), lit(ties.argmax(dim=1).float())),
            "allclose(%s >= 2, %s)" % (lit(ties), lit((ties >= 2).float()))]
    path = os.path.join(HERE, "..", "scripts", "math_grad.bl")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
