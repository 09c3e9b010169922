#!/usr/bin/python3
"""Golden file for how blocklab prints a tensor: PyTorch's repr (tests/unit/test_repl.c reads it).

Usage (from anywhere; writes repr.safetensors next to this file; needs torch):
    /usr/bin/python3 tests/golden/gen_repr.py

blocklab shows a tensor as PyTorch's repr does (torch/_tensor_str.py with the default print
options: 4 decimals, whole numbers as "3.", scientific notation when the magnitudes span more
than 1000x, rows wrapped at 80 columns, more than 1000 elements summarized with "..."), and then
adds its own suffix "shape=[...], dtype=float32" where PyTorch adds its suffixes (dtype=..., on a
new line when the last line would pass 80 columns). For every case the file holds the tensor
(float32) and, in __metadata__ under the same name, the text blocklab must print: PyTorch's own
_tensor_str and _add_suffixes applied to it with that suffix. The generator checks that without
the suffix this is exactly repr(tensor).

The inputs come from torch.Generator seeded with the CRC-32 of each case name.
"""
import os
import struct
import sys
import zlib

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import st_write  # noqa: E402  (the small safetensors writer of gen.py)

HERE = os.path.dirname(os.path.abspath(__file__))


def randn(name, *shape):
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    return torch.randn(*shape, generator=g)


def cases():
    nan, inf = float("nan"), float("inf")
    yield "randn_10", randn("randn_10", 10)
    yield "randn_3x10", randn("randn_3x10", 3, 10)
    yield "randn_2x3x4", randn("randn_2x3x4", 2, 3, 4)
    yield "randn_2x2x2x2", randn("randn_2x2x2x2", 2, 2, 2, 2)
    yield "randn_8x3", randn("randn_8x3", 8, 3)
    yield "randn_5x1", randn("randn_5x1", 5, 1)
    yield "randn_2000", randn("randn_2000", 2000)
    yield "randn_40x40", randn("randn_40x40", 40, 40)
    yield "randn_3x20x20", randn("randn_3x20x20", 3, 20, 20)
    yield "randn_30_x100", randn("randn_30_x100", 30) * 100
    yield "randn_12_x-1000", randn("randn_12_x-1000", 12) * -1000
    yield "randn_4_x1e-5", randn("randn_4_x1e-5", 4) * 1e-5
    yield "ratio_2500", torch.tensor([0.001, 2.5])
    yield "widest_positive", torch.tensor([-0.5, 10.25])
    yield "whole_3x4", torch.arange(12.0).reshape(3, 4)
    yield "whole_2000", torch.arange(2000.0)
    yield "whole_1e9", torch.tensor([1e9, 1.0])
    yield "whole_1x20", torch.ones(1, 20) * 100
    yield "zeros_3", torch.zeros(3)
    yield "single", torch.tensor([3.5])
    yield "nonfinite_whole", torch.tensor([1.0, nan, inf, -inf])
    yield "nonfinite_frac", torch.tensor([0.5, nan, -inf, 2.25])
    # -0 keeps its sign, as torch.round(tensor([-0.5, 2.5])) shows it: tensor([-0., 2.])
    yield "signed_zero_whole", torch.tensor([-0.0, 2.0, -3.0])
    yield "signed_zero_narrow", torch.tensor([-0.0, 2.0])
    yield "signed_zero_frac", torch.tensor([-0.0, 1.5])
    yield "signed_zero_sci", torch.tensor([-0.0, 1e-5, 1.0])


def main():
    tensors, meta = [], {}
    for name, t in cases():
        t = t.to(torch.float32).contiguous()
        body = "tensor(" + torch._tensor_str._tensor_str(t, 7)
        assert repr(t) == body + ")", (name, repr(t), body)
        shape = "[" + ", ".join(str(d) for d in t.shape) + "]"
        meta[name] = torch._tensor_str._add_suffixes(body, ["shape=%s, dtype=float32" % shape], 7, False)
        raw = struct.pack("<%df" % t.numel(), *t.flatten().tolist())
        tensors.append((name, "F32", tuple(t.shape), raw))
    meta["torch"] = torch.__version__
    st_write(os.path.join(HERE, "repr.safetensors"), tensors, meta)
    print("wrote repr.safetensors: %d cases" % len(tensors))


if __name__ == "__main__":
    main()
