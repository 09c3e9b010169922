"""PyTorch eager reference timings for `make bench` (run only when python3-torch is installed).

Prints one JSON object per line:
  {"bench":"torch_dit_step","variant":...,"batch":64,"threads":N,"ms":...}
  {"bench":"torch_gpt_train","tokens_per_s":...,"threads":N}
  {"bench":"torch_gpt_generate","tokens_per_s":...,"threads":N}
Usage: python3 bench/torch_ref.py [--threads N] [--what dit|gpt|all] [--steps K]
Threads: torch intra-op threads; OpenBLAS/OpenMP threads come from the environment.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden"))
from torch_models import TinyDiT, TinyGPT  # noqa: E402

VARIANTS = {
    "baseline": {},
    "rmsnorm": {"norm": "rmsnorm"},
    "qk_norm": {"qk_norm": True},
    "swiglu": {"mlp": "swiglu"},
    "rope2d": {"pos": "rope2d"},
    "all": {"norm": "rmsnorm", "qk_norm": True, "mlp": "swiglu", "pos": "rope2d"},
}


def dit_step_ms(kw, batch, steps):
    torch.manual_seed(0)
    m = TinyDiT(**kw)
    opt = torch.optim.AdamW(m.parameters(), lr=3e-4, betas=(0.9, 0.999), weight_decay=0)
    x0 = torch.rand(batch, 3, 32, 32) * 2 - 1
    times = []
    for i in range(steps + 2):
        # the step blocklab times draws its noise and t too (bl_run_step)
        t0 = time.perf_counter()
        e = torch.randn_like(x0)
        t = torch.rand(batch)
        loss = m.loss(x0, e, t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if i >= 2:
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return times[len(times) // 2]


def gpt_numbers(steps):
    torch.manual_seed(0)
    m = TinyGPT()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0)
    B, T = 32, 128
    tok = torch.randint(0, 65, (B, T + 1))
    t0 = None
    for i in range(steps + 2):
        if i == 2:
            t0 = time.perf_counter()
        loss = m.loss(tok)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    train = steps * B * T / (time.perf_counter() - t0)
    m.eval()
    idx = torch.zeros(1, 1, dtype=torch.long)
    n = 127
    t0 = time.perf_counter()
    m.generate_greedy(idx, n)   # recomputes the window each token (nanoGPT has no KV cache)
    gen = n / (time.perf_counter() - t0)
    return train, gen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--what", default="all")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--variants", default="baseline,rmsnorm,qk_norm,swiglu,rope2d,all")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.what in ("dit", "all"):
        for v in a.variants.split(","):
            ms = dit_step_ms(VARIANTS[v], 64, a.steps)
            print(json.dumps({"bench": "torch_dit_step", "variant": v, "batch": 64,
                              "threads": a.threads, "ms": round(ms, 2)}), flush=True)
    if a.what in ("gpt", "all"):
        train, gen = gpt_numbers(a.steps)
        print(json.dumps({"bench": "torch_gpt_train", "batch": 32, "context": 128, "threads": a.threads,
                          "tokens_per_s": round(train, 1)}), flush=True)
        print(json.dumps({"bench": "torch_gpt_generate", "kv_cache": False, "threads": a.threads,
                          "tokens_per_s": round(gen, 1)}), flush=True)


if __name__ == "__main__":
    main()
