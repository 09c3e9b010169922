#!/usr/bin/python3
"""Golden values AND gradients of the loss functions at the prompt (src/repl/functions_loss.c:
cross_entropy and mse_loss), made with torch.nn.functional; writes tests/scripts/losses_grad.bl,
whose every check prints true.

Usage (from anywhere):
    /usr/bin/python3 tests/golden/gen_losses.py

Each case: inputs written as blocklab literals (float32, 9 significant digits; class indices as
whole numbers), y = the loss, allclose(y, torch's value), backward(sum(y * g)) with a fixed g
(1.5 for a scalar), then allclose(x.grad, torch's gradient). The references run in float64 on
the float32 inputs. Targets include ignore_index rows (torch leaves them out of the mean and gives
them 0 with reduction="none"). CI never runs this script: its output is committed.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["OMP_NUM_THREADS"] = "1"

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from gen_math import check_lines, gen, lit, randn  # noqa: E402  (math_grad.bl's script writer)


def main():
    g = gen("losses")
    z = randn(g, 5, 4) * 2
    y = torch.tensor([3, 0, -100, 1, 3])
    ym = torch.tensor([3, 0, -1, 1, 3])
    z1 = randn(g, 6)
    p, t = randn(g, 3, 4), randn(g, 3, 4)
    # (what, {name: input with grad}, {name: constant}, blocklab expression, torch)
    checks = [
        ("cross_entropy, the mean over the rows not ignored (-100: ignore_index's default)",
         {"z": z}, {"y": y}, "cross_entropy(z, y)", lambda a: F.cross_entropy(a["z"], y)),
        ("reduction=\"sum\" with ignore_index=-1", {"z": z}, {"y": ym},
         "cross_entropy(z, y, ignore_index=-1, reduction=\"sum\")",
         lambda a: F.cross_entropy(a["z"], ym, ignore_index=-1, reduction="sum")),
        ("reduction=\"none\": [N] losses, 0 where ignored", {"z": z}, {"y": y},
         "cross_entropy(z, y, reduction=\"none\")", lambda a: F.cross_entropy(a["z"], y, reduction="none")),
        ("unbatched logits [C] and one class index", {"z": z1}, {}, "cross_entropy(z, 4)",
         lambda a: F.cross_entropy(a["z"], torch.tensor(4))),
        ("cross_entropy of a product: the gradient flows on to both factors",
         {"z": z, "w": randn(g, 4, 4)}, {"y": ym}, "cross_entropy(z @ w, y, ignore_index=-1)",
         lambda a: F.cross_entropy(a["z"] @ a["w"], ym, ignore_index=-1)),
        ("mse_loss, the mean over every element, gradients to both", {"p": p, "t": t}, {}, "mse_loss(p, t)",
         lambda a: F.mse_loss(a["p"], a["t"])),
        ("mse_loss reduction=\"sum\" and \"none\"", {"p": p, "t": t}, {},
         "mse_loss(p, t, reduction=\"sum\") + mse_loss(p, t, reduction=\"none\")",
         lambda a: F.mse_loss(a["p"], a["t"], reduction="sum") + F.mse_loss(a["p"], a["t"], reduction="none")),
        ("mse_loss against one number", {"p": p}, {}, "mse_loss(p, 0.5)",
         lambda a: F.mse_loss(a["p"], torch.full_like(a["p"], 0.5))),
    ]
    out = ["# losses_grad.bl - cross_entropy and mse_loss at the prompt: values and gradients against",
           "# torch.nn.functional. Made by tests/golden/gen_losses.py (do not edit); every check prints true.",
           "# y = the loss; backward(sum(y * g)) with a fixed g, then each input's .grad."]
    out += check_lines(checks, "losses")
    out += ["", "# every row ignored: nan, as torch's 0/0",
            "y = cross_entropy(%s, tensor([-100, -100]))" % lit(z[:2]),
            "y != y"]
    with open(os.path.join(HERE, "..", "scripts", "losses_grad.bl"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
