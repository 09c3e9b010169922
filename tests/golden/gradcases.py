"""The golden-case writer shared by gen_autograd.py and gen_torchforms.py: each case is an
expression the test types at the prompt, in PyTorch (float64, rounded once to float32), with
its inputs, value, a random upstream gradient and the gradient of every input.

    c = GradCases()
    c.case("mm", {"a": rnd(3, 4), "b": rnd(4, 5)}, lambda a, b: a @ b)
    c.write(path, "tests/golden/gen_x.py")

Per case CASE the file holds CASE.NAME (each input), CASE.out, CASE.gout, CASE.grad.NAME
(d sum(out * gout) / d NAME) and, for torch's (values, indices) pairs, CASE.out.idx;
c.value(...) writes a case without gradients (a 0/1 mask, indices): CASE.NAME and CASE.out.
rnd draws from torch's global generator: seed it first (torch.manual_seed).
"""
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import st_write  # noqa: E402


def rnd(*shape):
    return torch.randn(shape, dtype=torch.float64)


def f32(t):
    return struct.pack("<%df" % t.numel(), *t.detach().reshape(-1).tolist())


class GradCases:
    def __init__(self):
        self.cases = []

    def case(self, name, inputs, fn):
        """inputs: dict NAME -> tensor; fn(**leaves) -> output (or torch's (values, indices))."""
        leaves = {k: v.clone().float().double().requires_grad_(True) for k, v in inputs.items()}
        out = fn(**leaves)
        idx = None
        if isinstance(out, tuple):   # torch's (values, indices): the indices as CASE.out.idx
            out, idx = out
        gout = rnd(*out.shape).float().double()
        out.backward(gout)
        ts = []
        for k in inputs:
            ts.append((f"{name}.{k}", leaves[k].detach()))
            if leaves[k].grad is not None:     # none for an input used only as a mask (a constant)
                ts.append((f"{name}.grad.{k}", leaves[k].grad))
        ts.append((f"{name}.out", out.detach()))
        ts.append((f"{name}.gout", gout))
        if idx is not None:
            ts.append((f"{name}.out.idx", idx.double()))
        self.cases.append((name, ts))

    def value(self, name, inputs, fn):
        """A case without gradients (a mask, indices): CASE.NAME and CASE.out only."""
        out = fn(**{k: v.clone().float().double() for k, v in inputs.items()})
        self.cases.append((name, [(f"{name}.{k}", v.float().double()) for k, v in inputs.items()] +
                           [(f"{name}.out", out.double())]))

    def write(self, path, generator):
        tensors = [(k, "F32", tuple(t.shape), f32(t.float())) for _, ts in self.cases for k, t in ts]
        st_write(path, tensors, {"generator": generator, "torch": torch.__version__,
                                 "cases": ",".join(n for n, _ in self.cases)})
        print("wrote %s: %d cases" % (os.path.basename(path), len(self.cases)))
