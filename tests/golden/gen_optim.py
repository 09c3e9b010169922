#!/usr/bin/python3
"""Golden numbers for torch.optim at the prompt (src/repl/optim.c): SGD, Adam and AdamW over
m.parameters(), as a nanoGPT-style cell writes them, in PyTorch.

Usage: /usr/bin/python3 tests/golden/gen_optim.py   (writes optim.safetensors beside it)

The model is TinyGPT gpt_v1 of gen_models.py (its initial weights state_gpt_v1.safetensors, F16,
and its batch models_gpt_v1.safetensors batch.tokens), in float64, as gen_lab.py. Each optimizer
starts from those weights and takes three steps of

    loss = model.loss(tokens); opt.zero_grad(); loss.backward(); [clip_grad_norm_]; opt.step()

  sgd    SGD(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
  adam   Adam(lr=0.01, weight_decay=0.01)                 (L2 added to the gradient)
  adamw  AdamW([{"params": matrices, "weight_decay": 0.1},
                {"params": vectors, "weight_decay": 0.0}], lr=0.01, betas=(0.9, 0.99)),
         clip_grad_norm_(model.parameters(), 1.0) before each step, and before the third step
         every group's lr set to 0.005 (for g in opt.param_groups: g["lr"] = 0.005)
  cell   AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1) with
         clip_grad_norm_(model.parameters(), 1.0): the nanoGPT-style cell of the lab's brief

The file holds, for each NAME of sgd, adam, adamw: NAME.losses [4] (before each step and after
the last), NAME.<weight> for three weights after the steps, and adamw.norms and cell.norms [3]
(what clip_grad_norm_ returned). tests/scripts/optim.bl does the same at the prompt.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_models as tm  # noqa: E402
from gen import st_write  # noqa: E402
from gen_lab import st_read  # noqa: E402
from gen_models import SMALL_GPT, torch_kw  # noqa: E402

WEIGHTS = ["transformer.wte.weight", "transformer.h.1.attn.c_attn.weight", "transformer.ln_f.weight"]


def run(name, make, tokens, state, clip=False, lr_at_3=None):
    model = tm.TinyGPT(**torch_kw(SMALL_GPT)).double()
    model.load_state_dict(state, strict=True)
    opt = make(model)
    losses, norms = [], []
    for i in range(3):
        if lr_at_3 is not None and i == 2:
            for g in opt.param_groups:
                g["lr"] = lr_at_3
        loss = model.loss(tokens)
        losses.append(float(loss))
        opt.zero_grad(set_to_none=True)  # torch 2's default (1.13: zeros)
        loss.backward()
        if clip:
            norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)))
        opt.step()
    with torch.no_grad():
        losses.append(float(model.loss(tokens)))
    sd = model.state_dict()
    out = [(name + ".losses", torch.tensor(losses, dtype=torch.float64))]
    out += [(name + "." + w, sd[w].detach()) for w in WEIGHTS]
    if clip:
        out.append((name + ".norms", torch.tensor(norms, dtype=torch.float64)))
    return out


def main():
    state = st_read(os.path.join(HERE, "state_gpt_v1.safetensors"))
    tokens = st_read(os.path.join(HERE, "models_gpt_v1.safetensors"))["batch.tokens"].long()

    def groups(model):
        ps = list(model.parameters())
        return [{"params": [p for p in ps if p.dim() >= 2], "weight_decay": 0.1},
                {"params": [p for p in ps if p.dim() < 2], "weight_decay": 0.0}]

    ts = run("sgd", lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                              weight_decay=0.01), tokens, state)
    ts += run("adam", lambda m: torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.01), tokens, state)
    ts += run("adamw", lambda m: torch.optim.AdamW(groups(m), lr=0.01, betas=(0.9, 0.99)), tokens, state,
              clip=True, lr_at_3=0.005)
    ts += run("cell", lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1),
              tokens, state, clip=True)
    st_write(os.path.join(HERE, "optim.safetensors"),
             [(k, "F32", tuple(v.shape), v.float().numpy().astype("<f4").tobytes()) for k, v in ts])
    for k, v in ts:
        if v.numel() <= 4:
            print(k, v.tolist())


if __name__ == "__main__":
    main()
