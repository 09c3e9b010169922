#!/usr/bin/python3
"""The QK-norm lecture's logit-growth experiment, as published, made with PyTorch;
tests/unit/test_qkgrowth.c reads qk_growth.safetensors and checks bl_qk_logit_stats
(src/train/qkgrowth.h) against it.

Usage (from anywhere; writes qk_growth.safetensors next to this file):
    /usr/bin/python3 tests/golden/gen_qk.py

The published run: torch.manual_seed(0); q = torch.randn(64, 32); k = torch.randn(64, 32);
for s in 1, 4, 16: logits = (s q)(s k)^T / sqrt(32) without QK-norm, and with q, k RMSNorm'd
over head_dim (eps 1e-6, no weight) after scaling; max |logit| and the mean over queries of
the largest softmax weight. It prints 3.8/0.11, 60.5/0.90, 968.8/1.00 without QK-norm and
3.4/0.10 with it. The file holds q, k (float32, the draw itself), scales [3], and max_logit,
top_weight [2, 3] (row 0 without QK-norm, row 1 with it), computed in float64.
CI never runs this script: its output is committed.
"""
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["OMP_NUM_THREADS"] = "1"
from gen import st_write  # noqa: E402  (the same minimal safetensors writer)

import torch  # noqa: E402


def rms(x):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6)


def main():
    torch.manual_seed(0)
    q = torch.randn(64, 32)
    k = torch.randn(64, 32)
    scales = [1.0, 4.0, 16.0]
    ml, tw = [], []
    for norm in (0, 1):
        for s in scales:
            qs, ks = q.double() * s, k.double() * s
            if norm:
                qs, ks = rms(qs), rms(ks)
            logits = qs @ ks.T / math.sqrt(32)
            ml.append(logits.abs().max().item())
            tw.append(logits.softmax(-1).max(-1).values.mean().item())
            print("qk_norm=%d s=%g: %.1f/%.2f" % (norm, s, ml[-1], tw[-1]))

    def f32(name, t, shape):
        vals = [float(v) for v in t]
        return (name, "F32", shape, struct.pack("<%df" % len(vals), *vals))

    st_write(os.path.join(HERE, "qk_growth.safetensors"),
             [f32("q", q.flatten().tolist(), [64, 32]), f32("k", k.flatten().tolist(), [64, 32]),
              f32("scales", scales, [3]), f32("max_logit", ml, [2, 3]), f32("top_weight", tw, [2, 3])],
             metadata={"torch": torch.__version__, "made_by": "gen_qk.py"})


if __name__ == "__main__":
    main()
