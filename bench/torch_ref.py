"""PyTorch eager reference timings for `make bench` (run only when python3-torch is installed).

Prints one JSON object per line:
  {"bench":"torch_dit_step","variant":...,"batch":64,"threads":N,"ms":...}
  {"bench":"torch_gpt_train","tokens_per_s":...,"threads":N}
  {"bench":"torch_gpt_generate","tokens_per_s":...,"threads":N}
Usage: python3 bench/torch_ref.py [--threads N] [--what dit|gpt|all] [--steps K] [--serve]
--serve: TinyDiT steps one at a time on request, so bench_train can time them in lockstep with
its own (see serve()).
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


class DitStep:
    """One TinyDiT variant and its AdamW: step() runs a training step at `batch` and returns its ms
    (noise and t drawn inside it, as blocklab's bl_run_step does)."""

    def __init__(self, kw, batch=64):
        torch.manual_seed(0)
        self.m = TinyDiT(**kw)
        self.opt = torch.optim.AdamW(self.m.parameters(), lr=3e-4, betas=(0.9, 0.999), weight_decay=0)
        self.x0 = torch.rand(batch, 3, 32, 32) * 2 - 1

    def step(self):
        t0 = time.perf_counter()
        e = torch.randn_like(self.x0)
        t = torch.rand(self.x0.shape[0])
        loss = self.m.loss(self.x0, e, t)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return (time.perf_counter() - t0) * 1000


def dit_step_ms(kw, batch, steps):
    """Median ms of `steps` consecutive steps after two untimed ones."""
    run = DitStep(kw, batch)
    run.step()
    run.step()
    times = sorted(run.step() for _ in range(steps))
    return times[len(times) // 2]


def serve():
    """Lockstep mode for bench_train (--serve): each line on stdin names a variant ("dit NAME");
    one step of it runs and {"ms": ...} is printed. A variant is built on first use and takes
    two untimed steps then. Ends at end of input."""
    runs = {}
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != "dit" or words[1] not in VARIANTS:
            print(json.dumps({"error": "bad request %r" % line.strip()}), flush=True)
            continue
        v = words[1]
        if v not in runs:
            runs[v] = DitStep(VARIANTS[v])
            runs[v].step()
            runs[v].step()
        print(json.dumps({"ms": round(runs[v].step(), 3)}), flush=True)


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
    ap.add_argument("--serve", action="store_true", help="lockstep mode for bench_train (see serve)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.serve:
        serve()
        return
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
