#!/usr/bin/python3
"""Whole-model golden files: TinyDiT and TinyGPT in PyTorch (torch_models.py), read by
tests/unit/test_golden_models.c.

Usage (from anywhere; writes next to this file):
    /usr/bin/python3 tests/golden/gen_models.py                      # every models_*.safetensors
    /usr/bin/python3 tests/golden/gen_models.py --verify-checkpoint FILE
        load a blocklab checkpoint (bl_checkpoint_save) into torch_models with load_state_dict and
        compare one forward pass with what blocklab computed (see tests/golden/README.md)

One file per case, models_CASE.safetensors. The model's parameters are stored under their
PyTorch names (the state_dict keys), so each file's parameters load with load_state_dict:

    NAME              the initial value of parameter NAME (small cases; stored as F16: the values
                      are drawn in float32 and rounded to half precision, so they are exact)
    pattern.NAME      [salt, scale, offset] (cases at the default shapes): the value is
                      pattern(i, salt) * scale + offset, the hash pattern of gen.py, exact in float32
    batch.x0, batch.noise, batch.t   TinyDiT's batch (or pattern.batch.x0 / pattern.batch.noise)
    batch.tokens      TinyGPT's batch [B, T + 1] (ids as exact floats)
    losses            [4]: the loss at the initial weights and after 1, 2 and 3 AdamW steps, each
                      step on the same batch
    grad.NAME         d loss / d NAME at the initial weights (every `sample`-th element)
    losses.bf16       (STATE_CASES) the loss at the initial weights rounded to bfloat16
    gen.prompt, gen.tokens, gen.margin   TinyGPT: greedy generation (prompt + 20 tokens) and the
                      smallest gap between the best and second-best logit over the steps
__metadata__: kind, config (JSON {key: value as text}, for bl_config_set), sample, adam (JSON),
generate (JSON), torch.

For the STATE_CASES the generator also writes plain state_dicts without metadata (write_states):
state_CASE.safetensors (initial weights), state_CASE_step3 (after the 3 AdamW steps) and
state_CASE_bf16 (the initial weights in bfloat16).

Everything is computed in float64 from float32-exact inputs, so the golden numbers are the exact
answer rounded once to float32. Written with gen.py's safetensors writer.
"""
import copy
import json
import math
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402  (sets OMP_NUM_THREADS=1 before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import torch_models as tm  # noqa: E402

torch.set_num_threads(1)  # torch 1.13 hangs with Debian's OpenMP OpenBLAS and several threads

B = 4
NEW_TOKENS = 20
PROMPT = 4               # prompt length of the greedy generation
ADAM = {"lr": 1e-3, "eps": 1e-8, "weight_decay": 0.0, "steps": 3}
BETAS = {"dit": (0.9, 0.999), "gpt": (0.9, 0.99)}
SAMPLE_DEFAULT = 997     # default-shape cases store every 997-th gradient element
MIN_MARGIN = 1e-3        # greedy steps must not be near-ties (float32 rounding could flip them)
PROMPTS = 64             # prompts tried; the one whose continuation varies most is kept
STATE_CASES = ("dit_base", "gpt_v1")   # plain state_dicts for `load FILE into=MODEL` (write_states)
OUT_PROJ = ("c_proj.weight", "w3.weight")   # TinyGPT's residual-branch outputs (see init_small)


def out_proj(name):
    return name.startswith("transformer.") and name.endswith(OUT_PROJ)

SMALL_DIT = {"dim": "24", "depth": "2", "heads": "2", "patch": "2", "channels": "3",
             "image_size": "16", "mlp_ratio": "2"}
SMALL_GPT = {"dim": "24", "depth": "2", "heads": "4", "context": "16", "vocab": "65",
             "mlp_ratio": "2"}
ALL4 = {"norm": "rmsnorm", "qk_norm": "on", "mlp": "swiglu", "pos": "rope2d"}
V2 = {"norm": "rmsnorm", "pos": "rope"}
GQA = {"mlp": "swiglu", "qk_norm": "on", "kv_heads": "2"}

# (case, kind, config keys beyond the kind's defaults, small: stored weights / default: pattern)
CASES = [
    ("dit_base", "dit", dict(SMALL_DIT), True),
    ("dit_all4", "dit", dict(SMALL_DIT, **ALL4), True),
    ("gpt_v1", "gpt", dict(SMALL_GPT), True),
    ("gpt_v2", "gpt", dict(SMALL_GPT, **V2), True),
    ("gpt_gqa", "gpt", dict(SMALL_GPT, **GQA), True),
    ("dit_base_default", "dit", {}, False),
    ("dit_all4_default", "dit", dict(ALL4), False),
    ("gpt_v1_default", "gpt", {}, False),
    ("gpt_v2_default", "gpt", dict(V2), False),
    ("gpt_gqa_default", "gpt", dict(GQA), False),
    # dropout 0.2 with blocklab's masks (torch_models.DropStream): on in the three AdamW steps,
    # off for the last loss (an exam: blocklab does not record it, so draws no masks)
    ("gpt_v1_drop", "gpt", dict(SMALL_GPT, dropout="0.2"), True),
    ("dit_all4_drop", "dit", dict(SMALL_DIT, **ALL4, dropout="0.2"), True),
]


def torch_kw(config):
    """blocklab config keys (text) -> torch_models keyword arguments."""
    kw = {}
    for k, v in config.items():
        if k == "dropout":
            continue                    # a DropStream, attached by build()
        if k == "qk_norm":
            kw[k] = v == "on"
        elif k in ("norm", "pos", "mlp"):
            kw[k] = v
        elif k in ("mlp_ratio", "rope_base", "eps"):
            if float(v) > 0:            # eps 0 = auto: torch_models' defaults are the same
                kw[k] = float(v)
        else:
            kw[k] = int(float(v))
    return kw


def build(kind, config):
    kw = torch_kw(config)
    model = (tm.TinyDiT(**kw) if kind == "dit" else tm.TinyGPT(**kw)).double()
    if float(config.get("dropout", 0)) > 0:
        tm.set_dropout(model, tm.DropStream(float(config["dropout"]), int(config.get("seed", 0))))
    return model


def pattern(n, salt):
    """gen.py's pattern(): values k / 16384 in [-2, 2), exact in float32 (test_golden_models.c
    has the same hash)."""
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(salt) * np.uint64(2246822519)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(2246822519)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(13)
    return ((h & np.uint64(0xFFFF)).astype(np.float64) - 32768.0) / 16384.0


def is_embedding(name):
    return name.endswith(("wte.weight", "wpe.weight", "pos_embed.row", "pos_embed.col"))


def init_small(model, g):
    """Random weights on every path: norm weights 1 + N(0, 0.2^2), biases N(0, 0.1^2), Linear
    and conv weights U(+-1/sqrt(fan_in)) including DiT's zero-initialised adaLN and final
    layers, embeddings N(0, 0.1^2); rounded to float16 values. TinyGPT's attention and MLP
    output projections get 3x the range: with the tied head a random model whose residual stream
    is mostly its input embedding just repeats its last token, and greedy generation would check
    little."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if is_embedding(name):
                v = torch.randn(p.shape, generator=g) * 0.1
            elif name.endswith("bias"):
                v = torch.randn(p.shape, generator=g) * 0.1
            elif p.dim() == 1:
                v = 1 + torch.randn(p.shape, generator=g) * 0.2
            else:
                a = (3 if out_proj(name) else 1) / math.sqrt(p[0].numel())
                v = (torch.rand(p.shape, generator=g) * 2 - 1) * a
            p.copy_(v.half().double())


def pattern_spec(case, name, p):
    """[salt, scale, offset] of a default-shape parameter (scales are powers of two)."""
    salt = zlib.crc32(f"{case}.{name}".encode()) & 0xFFFFFF
    if is_embedding(name):
        return [salt, 1 / 16, 0.0]
    if name.endswith("bias"):
        return [salt, 1 / 32, 0.0]
    if p.dim() == 1:
        return [salt, 1 / 8, 1.0]
    fan = p[0].numel()
    gain = 4 if out_proj(name) else 1     # as in init_small
    return [salt, gain * 2.0 ** -math.ceil(math.log2(math.sqrt(fan))), 0.0]


def from_pattern(spec, shape):
    salt, scale, offset = spec
    n = math.prod(shape)
    return torch.from_numpy(pattern(n, int(salt)) * scale + offset).reshape(shape)


def sampled(t, every):
    """Every `every`-th element (a copy: zero_grad clears p.grad in place); whole when 1."""
    return t.detach().clone() if every == 1 else t.detach().flatten()[::every].clone()


def dit_batch(case, config, small, g, items):
    C = int(config.get("channels", 3))
    S = int(config.get("image_size", 32))
    if small:
        x0 = (torch.rand((B, C, S, S), generator=g) * 2 - 1).half().double()
        noise = torch.randn((B, C, S, S), generator=g).half().double()
        items += [("batch.x0", x0, "F16"), ("batch.noise", noise, "F16")]
    else:
        sx = [zlib.crc32(f"{case}.x0".encode()) & 0xFFFFFF, 0.5, 0.0]
        sn = [zlib.crc32(f"{case}.noise".encode()) & 0xFFFFFF, 1.0, 0.0]
        x0, noise = from_pattern(sx, (B, C, S, S)), from_pattern(sn, (B, C, S, S))
        items += [("pattern.batch.x0", torch.tensor(sx), "F32"),
                  ("pattern.batch.noise", torch.tensor(sn), "F32")]
    t = torch.rand((B,), generator=g).float().double()
    items.append(("batch.t", t, "F32"))
    return (x0, noise, t)


def gpt_batch(model, g, items):
    T, V = model.cfg["context"], model.cfg["vocab"]
    tok = torch.randint(0, V, (B, T + 1), generator=g)
    items.append(("batch.tokens", tok.double(), "F32"))
    return (tok,)


def greedy(model, prompt, n):
    """torch_models.TinyGPT.generate_greedy, plus the smallest best-vs-second logit gap."""
    idx, margin = prompt.clone(), float("inf")
    with torch.no_grad():
        for _ in range(n):
            win = idx[:, -model.cfg["context"]:] if model.cfg["pos"] == "learned" else idx
            logits = model(win)[:, -1]
            top = logits[0].topk(2).values
            margin = min(margin, float(top[0] - top[1]))
            idx = torch.cat((idx, logits.argmax(-1, keepdim=True)), dim=1)
    ref = model.generate_greedy(prompt, n)
    assert torch.equal(ref, idx)
    return idx, margin


def make_case(case, kind, config, small):
    torch.manual_seed(0)
    g = torch.Generator()
    g.manual_seed(zlib.crc32(case.encode()))
    model = build(kind, config)
    items = []   # (name, float64 tensor, dtype)
    sample = 1 if small else SAMPLE_DEFAULT
    if small:
        init_small(model, g)
        for name, p in model.named_parameters():
            items.append((name, p.detach().clone(), "F16"))
    else:
        with torch.no_grad():
            for name, p in model.named_parameters():
                spec = pattern_spec(case, name, p)
                p.copy_(from_pattern(spec, tuple(p.shape)))
                items.append(("pattern." + name, torch.tensor(spec, dtype=torch.float64), "F32"))
    batch = dit_batch(case, config, small, g, items) if kind == "dit" else gpt_batch(model, g, items)
    init_state = {k: v.detach().clone() for k, v in model.state_dict().items()}

    gen_meta = None
    if kind == "gpt":
        # greedy tokens from a short prompt at the initial weights: of PROMPTS random prompts
        # without a near-tie, the one whose continuation has the most distinct tokens
        best = None
        for attempt in range(PROMPTS):
            p = torch.randint(0, model.cfg["vocab"], (1, PROMPT), generator=g)
            o, m = greedy(model, p, NEW_TOKENS)
            distinct = len(set(o[0, PROMPT:].tolist()))
            if m >= MIN_MARGIN and (best is None or distinct > best[0]):
                best = (distinct, p, o, m)
        assert best is not None, f"{case}: every prompt near-ties"
        _, prompt, out, margin = best
        items += [("gen.prompt", prompt[0].double(), "F32"), ("gen.tokens", out[0].double(), "F32"),
                  ("gen.margin", torch.tensor([margin], dtype=torch.float64), "F32")]
        gen_meta = {"max_new_tokens": NEW_TOKENS, "temperature": 0,
                    "sliding_window": model.cfg["pos"] == "learned" and PROMPT + NEW_TOKENS - 1 > model.cfg["context"]}

    opt = torch.optim.AdamW(model.parameters(), lr=ADAM["lr"], betas=BETAS[kind], eps=ADAM["eps"],
                            weight_decay=ADAM["weight_decay"])
    losses = []
    for step in range(ADAM["steps"] + 1):
        opt.zero_grad()
        if getattr(model, "drop", None):
            model.drop.step, model.drop.active = step, step < ADAM["steps"]
        loss = model.loss(*batch)
        losses.append(float(loss))
        if step == ADAM["steps"]:
            break
        loss.backward()
        if step == 0:
            for name, p in model.named_parameters():
                items.append(("grad." + name, sampled(p.grad, sample), "F32"))
        opt.step()
    items.append(("losses", torch.tensor(losses, dtype=torch.float64), "F32"))
    if case in STATE_CASES:
        write_states(case, model, init_state, batch, items)

    full = dict(config)
    meta = {"format": "blocklab-golden-model-1", "generator": "tests/golden/gen_models.py",
            "torch": torch.__version__, "case": case, "kind": kind,
            "config": json.dumps(full, sort_keys=True), "sample": str(sample),
            "adam": json.dumps(dict(ADAM, beta1=BETAS[kind][0], beta2=BETAS[kind][1])),
            "parameters": str(sum(p.numel() for p in model.parameters()))}
    if gen_meta:
        meta["generate"] = json.dumps(gen_meta)
    tensors = []
    for name, t, dtype in items:
        arr = t.detach().contiguous().numpy()
        raw = arr.astype("<f2" if dtype == "F16" else "<f4")
        if dtype == "F16":
            assert np.array_equal(raw.astype(np.float64), arr), name   # exact in half precision
        tensors.append((name, dtype, list(t.shape), raw.tobytes()))
    path = os.path.join(HERE, f"models_{case}.safetensors")
    gen.st_write(path, tensors, meta)
    return path, losses


def st_plain(path, state, dtype):
    """A plain state_dict as safetensors.torch.save_file(model.state_dict()) writes it: every
    state_dict key (TinyGPT's tied lm_head.weight too), no __metadata__."""
    conv = {"F16": lambda a: a.astype("<f2").tobytes(), "F32": lambda a: a.astype("<f4").tobytes(),
            "BF16": lambda a: (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()}
    gen.st_write(path, [(k, dtype, list(v.shape), conv[dtype](v.detach().contiguous().numpy()))
                        for k, v in state.items()])


def write_states(case, model, init_state, batch, items):
    """state_CASE.safetensors: the initial weights (F16, exact); state_CASE_step3: the weights
    after the 3 AdamW steps (F32); state_CASE_bf16: the initial weights rounded to bfloat16 (by
    truncation: exact in float32, as every bf16 is), with their loss in the case file as
    `losses.bf16`; and files to refuse: state_CASE_badname (the first tensor's name misspelt
    .weights), _badshape (the third tensor one row short), _missing (the last tensor left out),
    _untied (TinyGPT: lm_head.weight half of transformer.wte.weight). Read by tests/scripts/modellab.bl (load FILE into=MODEL)."""
    st_plain(os.path.join(HERE, f"state_{case}.safetensors"), init_state, "F16")
    st_plain(os.path.join(HERE, f"state_{case}_step3.safetensors"), model.state_dict(), "F32")
    bf = {k: torch.from_numpy((v.numpy().astype("<f4").view("<u4") & np.uint32(0xFFFF0000)).view("<f4"))
          .double() for k, v in init_state.items()}
    st_plain(os.path.join(HERE, f"state_{case}_bf16.safetensors"), bf, "BF16")
    # files that must be refused whole (one line naming the tensor, the model unchanged)
    bad = {"badname": {(k.replace(".weight", ".weights") if i == 0 else k): v
                       for i, (k, v) in enumerate(init_state.items())},
           "badshape": {k: (v[:-1] if i == 2 else v) for i, (k, v) in enumerate(init_state.items())},
           "missing": {k: v for i, (k, v) in enumerate(init_state.items()) if i != len(init_state) - 1}}
    if "lm_head.weight" in init_state:
        bad["untied"] = dict(init_state, **{"lm_head.weight": init_state["lm_head.weight"] * 0.5})
    for what, st in bad.items():
        st_plain(os.path.join(HERE, f"state_{case}_{what}.safetensors"), st, "F16")
    check = copy.deepcopy(model)
    check.load_state_dict(bf, strict=True)
    with torch.no_grad():
        items.append(("losses.bf16", torch.tensor([float(check.loss(*batch))], dtype=torch.float64), "F32"))


# --------------------------------------------------------------------------------------------
# reading safetensors (F32, F16, BF16) without the safetensors package

def st_read(path):
    """-> (dict name -> float32 torch tensor, metadata dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        buf = data[b:end]
        if e["dtype"] == "F32":
            arr = np.frombuffer(buf, dtype="<f4")
        elif e["dtype"] == "F16":
            arr = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        elif e["dtype"] == "BF16":
            arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(f"{path}: {name}: dtype {e['dtype']} not handled")
        out[name] = torch.from_numpy(arr.copy()).reshape(e["shape"])
    return out, meta


def verify_checkpoint(path):
    """Load a blocklab checkpoint into torch_models and compare one forward pass.

    The checkpoint's tensors, less the optimizer's `optim.*` moments, are the state_dict:
    both kinds load with strict=True (a TinyGPT checkpoint holds the tied lm_head.weight too). The forward pass is compared
    with PATH.forward.safetensors when test_golden_models wrote one beside the checkpoint
    (BL_GOLDEN_SAVE_DIR): `out` is blocklab's output on `x` (and `t`) or `ids`."""
    tensors, meta = st_read(path)
    cfg = json.loads(meta["config"])
    kind = meta.get("kind", cfg.get("kind"))
    keys = {k: str(v) for k, v in cfg.items() if k in tm_keys(kind)}
    model = build(kind, keys)
    state = {k: v.double() for k, v in tensors.items() if not k.startswith("optim.")}
    model.load_state_dict(state, strict=True)   # TinyGPT's checkpoints hold lm_head.weight too
    missing = []
    print(f"{path}: {kind}, {len(state)} tensors, {sum(v.numel() for v in state.values())} "
          f"parameters loaded (missing {missing or 'none'})")
    fwd = path + ".forward.safetensors"
    if not os.path.exists(fwd):
        print("no", fwd, "to compare a forward pass with")
        return 0
    ref, _ = st_read(fwd)
    with torch.no_grad():
        if kind == "dit":
            out = model(ref["x"].double(), ref["t"].double())
        else:
            out = model(ref["ids"].long())
    want = ref["out"].double()
    err = float((out - want).abs().max())
    scale = float(want.pow(2).mean().sqrt())
    ok = err <= 1e-4 * max(scale, 1.0)
    print(f"forward {tuple(out.shape)}: max |torch - blocklab| = {err:.3g} (rms {scale:.3g}): "
          f"{'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def tm_keys(kind):
    common = {"norm", "pos", "mlp", "qk_norm", "kv_heads", "dim", "depth", "heads", "mlp_ratio",
              "rope_base", "eps"}
    return common | ({"patch", "channels", "image_size"} if kind == "dit" else
                     {"context", "vocab", "multiple_of"})


if __name__ == "__main__":
    if "--verify-checkpoint" in sys.argv[1:]:
        files = sys.argv[sys.argv.index("--verify-checkpoint") + 1:]
        sys.exit(max(verify_checkpoint(f) for f in files))
    total = 0
    only = sys.argv[1:]         # case names: only those (default: every case)
    for case, kind, config, small in CASES:
        if only and case not in only:
            continue
        path, losses = make_case(case, kind, config, small)
        size = os.path.getsize(path)
        total += size
        print(f"{path}: {size} bytes, losses {['%.6f' % x for x in losses]}")
    print(f"total {total} bytes")
