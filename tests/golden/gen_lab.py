#!/usr/bin/python3
"""Golden numbers for a model's live parameters at the prompt (src/repl/paramvals.c):
plain SGD written by hand over m.parameters(), as a lecture writes it, in PyTorch.

Usage: /usr/bin/python3 tests/golden/gen_lab.py   (writes lab_sgd.safetensors beside it)

The model is TinyGPT gpt_v1 of gen_models.py (its initial weights state_gpt_v1.safetensors, F16,
and its batch models_gpt_v1.safetensors batch.tokens), in float64. Three steps of

    loss = model.loss(tokens); loss.backward()
    with torch.no_grad():
        for p in model.parameters(): p -= 0.5 * p.grad
    model.zero_grad()

then, under no_grad, one element written through a parameter (wte[0, 0] = 0.25: the tied head
sees it). The file holds losses [4] (before each step and after the last), and every weight after
(by its state_dict name). tests/scripts/lab-params.bl does the same at the prompt.
"""
import json
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_models as tm  # noqa: E402
from gen import st_write  # noqa: E402
from gen_models import SMALL_GPT, torch_kw  # noqa: E402

LR = 0.5


def st_read(path):
    """A safetensors file as {name: float64 tensor} (F16/F32 only, all this needs)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        body = f.read()
    out = {}
    for k, v in head.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        dt = {"F16": "<f2", "F32": "<f4"}[v["dtype"]]
        out[k] = torch.from_numpy(np.frombuffer(body[a:b], dtype=dt).astype(np.float64).reshape(v["shape"]))
    return out


def main():
    model = tm.TinyGPT(**torch_kw(SMALL_GPT)).double()
    state = st_read(os.path.join(HERE, "state_gpt_v1.safetensors"))
    model.load_state_dict(state, strict=True)
    tokens = st_read(os.path.join(HERE, "models_gpt_v1.safetensors"))["batch.tokens"].long()
    losses = []
    for _ in range(3):
        loss = model.loss(tokens)
        losses.append(float(loss))
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= LR * p.grad
        model.zero_grad()
    with torch.no_grad():
        model.transformer.wte.weight[0, 0] = 0.25
        losses.append(float(model.loss(tokens)))
    ts = [("losses", torch.tensor(losses, dtype=torch.float64))]
    ts += [(k, v.detach()) for k, v in model.state_dict().items() if k != "lm_head.weight"]
    st_write(os.path.join(HERE, "lab_sgd.safetensors"),
             [(k, "F32", tuple(v.shape), v.float().numpy().astype("<f4").tobytes()) for k, v in ts])


if __name__ == "__main__":
    main()
