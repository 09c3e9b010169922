#!/usr/bin/env python3
"""The Python 3 / PyTorch values that tests/scripts/language.bl and examples/notebook.bl compare
with (None, x if c else y, // and %, comprehensions, index assignment with autograd, None and
... in indices; Python's indented blocks, unpacking, enumerate/zip, int/float, positional dims and
torch's unbiased var/std: the "blocks:" lines). Run: /usr/bin/python3 tests/golden/lang_python.py; each line is the literal the
script writes."""
import torch

print("numbers //, %:", [-7 // 2, -7 % 2, 7 % -2, 7.5 // 2, -7.5 % 2, 7 // -2, 5 % 3, 2 ** 3 % 3, 7 - 5 // 2 * 2])
a, b = torch.tensor([-7., 7., -7.5, 5., 1.]), torch.tensor([2., -2., 2., 3., 0.])
print("floor_divide:", torch.floor_divide(a, b).tolist(), "remainder:", torch.remainder(a, b).tolist())
print("remainder by 3:", torch.remainder(torch.tensor([-3., -2., -1., 0., 1., 2., 3.]), 3).tolist())
w = torch.tensor([5., 5., 5.], requires_grad=True)
(torch.tensor([7., -7., 8.]) % w).sum().backward()
print("d(a % w)/dw:", w.grad.tolist())
print("comprehensions:", [[q * q for q in range(4)], [q for q in range(10) if q % 3 == 0], [s + "!" for s in ["a", "b"]]],
      [r.sum().item() for r in torch.arange(6.).reshape(2, 3)])
m = torch.arange(6.).reshape(2, 3)
m[0, 1] = 5
m[:, 0] = torch.tensor([10., 20.])
m[1] = torch.ones(1, 3) * 7
print("m:", m.tolist())
t = torch.arange(24.).reshape(2, 3, 4)
t[..., 0] = -1
t[0, :, 1:3] = torch.tensor([100., 200.])
print("t:", t.sum().item(), t[0, 2].tolist())
xs = [1, 2, 3]; xs[2] = "v"; xs[-3] = [0]; xs[1:2] = [7, 8, 9]
ys = [[1, 2], [3, 4]]; ys[1][0] = 9
print("lists:", [xs, ys])
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2; y[0] = 0; y.sum().backward()
print("y:", y.tolist(), "x.grad:", x.grad.tolist())
with torch.no_grad():
    x[0] = 5
print("x after no_grad x[0] = 5:", x.tolist(), x.requires_grad, x.grad.tolist())
u = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
v = torch.tensor([10., 20.], requires_grad=True)
z = u * 1; z[:, 0] = v * v
(z * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
print("u.grad:", u.grad.tolist(), "v.grad:", v.grad.tolist())
c = torch.tensor([3.], requires_grad=True)
h = torch.zeros(2, 3); h[:, 1:] = c
(h * torch.arange(6.).reshape(2, 3)).sum().backward()
print("h:", h.tolist(), "c.grad:", c.grad.tolist())
t = torch.arange(24.).reshape(2, 3, 4)
print("None/...:", [list(t[None].shape), list(t[:, None].shape), list(t[..., 0].shape), list(t[0, ..., None].shape)],
      t[1, ..., 2].tolist(), (torch.arange(3.)[:, None] * torch.arange(2.)[None]).tolist())
print("requires_grad=:", torch.randn(3, requires_grad=True).requires_grad, torch.zeros(2, requires_grad=True).is_leaf,
      torch.ones(1, requires_grad=False).requires_grad)
# examples/notebook.bl
torch.manual_seed(0)
q = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
k = q * 3
k[:, 0] = 0
mask = torch.tensor([[0., 1., 1.], [1., 0., 1.]])
loss = (k * k * mask).sum()
loss.backward()
print("notebook: loss", loss.item(), "q.grad", q.grad.tolist())
print("notebook: steps", [i // 3 for i in range(7)], [i % 3 for i in range(7)], [i for i in range(7) if i % 2 == 0])
# tests/scripts/language.bl: Python's indented blocks, unpacking, enumerate/zip (the same text)
total = 0
for i in range(6):
    if i % 3 == 0:
        total += i
    elif i % 3 == 1:
        total += 10 * i

    else:
        pass
def fib(n):
    a, b = 0, 1
    for k in range(n):
        a, b = b, a + b
    return a
pairs = []
for i, s in enumerate(["a", "b", "c"], start=1):
    pairs = pairs + [str(i) + s]
acc = 0
for x, y in zip([1, 2, 3], [10, 20]):
    acc += x * y
print("blocks:", total, [fib(k) for k in range(10)], pairs, acc, [x * y for x, y in zip([1, 2, 3], [10, 20])],
      [i for i, s in enumerate(["a", "b", "c"]) if s != "b"])
print("blocks: int/float/min/max", int("42") + int(-2.7) + int(3.9), float(" 2.5 ") * 2, min(3, 1.5), max(2, 7, 4),
      min(-1, 5), float("inf") > 1e308, float("-inf") < -1e308, float("nan") != float("nan"))
x = torch.tensor([[1., 2., 4.], [3., 5., 9.]])
print("blocks: dims", x.sum(1).tolist(), x.mean(-1).tolist(), x.max(0).values.tolist(), x.var().item(), x.var(1).tolist(),
      x.std(0).tolist(), x.var(unbiased=False).item(), x.std(1, unbiased=False).tolist(), list(x.size()), x.size(-1),
      len(x), torch.max(x[0], x[1]).tolist())
qkv = torch.arange(24.).reshape(2, 12) / 10
q, k, v = qkv.split(4, dim=-1)
s = torch.einsum("td,sd->ts", q, k)
print("torch forms:", s.tolist(), s.max(1).values.tolist(), s.max(1).indices.tolist(),
      torch.nn.functional.gelu(torch.tensor([-1., 0., 1.]), approximate="tanh").tolist(),
      f"{'qkv'!r} has {len(qkv.chunk(3, -1))} chunks",
      torch.tensor([[1., 2.]]).expand(2, -1).repeat(1, 2).tolist())
