"""Which code values this torch's Dynamo can compare when traced code reads them from a watched place.

For each kind (a user function, a torch builtin, an autograd.Function class, a user class, a bound method, a
torch Python function) and each comparison (``!=`` in a tuple, ``is not``, ``id() !=``): does a
``fullgraph=True`` compile succeed, and does rebinding the place compile again (a guard) rather than reuse
the graph? Prints one line per pair; run with ``python3 code_guard.py``.
"""
import functools
import operator

import torch


class Spike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        return x

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        return g


class K:
    def m(self) -> int:
        return 1


def f(x):  # type: ignore[no-untyped-def]
    return x


k = K()
G = {"user function": f, "torch builtin": torch.sigmoid, "autograd.Function": Spike, "user class": K,
     "bound method": k.m, "torch Python function": torch.nn.functional.relu}
OTHER = {"torch builtin": torch.tanh}
reads = {n: functools.partial(operator.getitem, G, n) for n in G}
print("torch", torch.__version__)
for n in list(G):
    traced = G[n]
    for mode in ["ne", "is", "id"]:
        def fn(x, n=n, mode=mode, traced=traced):  # type: ignore[no-untyped-def]
            now = reads[n]()
            if mode == "ne":
                bad = (now,) != (traced,)
            elif mode == "is":
                bad = now is not traced
            else:
                bad = id(now) != id(traced)
            if bad:
                raise RuntimeError("changed")
            return x + 1
        torch._dynamo.reset()
        try:
            torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(2))
        except Exception as e:  # noqa: BLE001
            print(f"{n:22s} {mode}: compile FAILS {type(e).__name__}: {str(e).splitlines()[0][:70]}")
            continue
        G[n] = OTHER.get(n, lambda x: x)
        try:
            torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(2))
            res = "NO GUARD (stale)"
        except RuntimeError as e:
            res = "guarded" if "changed" in str(e) else "error " + str(e)[:60]
        G[n] = traced
        print(f"{n:22s} {mode}: ok, after a rebinding: {res}")
