"""Whether this torch's Dynamo guards the code reads FlexSN adds to watch methods and autograd.Function classes.

Each read is what :mod:`flexsn_trace.constants` makes for one case: ``getattr(K, "fire")`` for a method of a
user class (the class held fixed; replaced as ``K.fire = other``), ``getattr(K, "cm").__func__`` for a
classmethod, and ``getattr(G["SPIKE"], "forward")`` for the staticmethod of an ``autograd.Function`` class a
global holds (rebound as ``SPIKE = Other``). For each: does a ``fullgraph=True`` compile of ``now is not traced``
succeed, and does the change then compile again (a guard) instead of reusing the graph? One line per case;
run with ``python3 method_guard.py``.
"""
import functools
import operator

import torch


class SpikeA(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        return x

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        return g


class SpikeB(SpikeA):
    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        return 2 * x


class K:
    def fire(self, h):  # type: ignore[no-untyped-def]
        return h

    @classmethod
    def cm(cls, h):  # type: ignore[no-untyped-def]
        return h


class M(torch.nn.Module):
    def fire(self, h):  # type: ignore[no-untyped-def]
        return h


def other(self, h):  # type: ignore[no-untyped-def]
    return 2 * h


G = {"SPIKE": SpikeA}


def _func(read):  # type: ignore[no-untyped-def]
    return read().__func__


CASES = {
    "method of a user class": (functools.partial(getattr, K, "fire"), lambda: setattr(K, "fire", other), lambda v: setattr(K, "fire", v)),
    "method of a module class": (functools.partial(getattr, M, "fire"), lambda: setattr(M, "fire", other), lambda v: setattr(M, "fire", v)),
    "classmethod's function": (
        functools.partial(_func, functools.partial(getattr, K, "cm")), lambda: setattr(K, "cm", classmethod(other)),
        lambda v: setattr(K, "cm", classmethod(v)),
    ),
    "autograd.Function's forward": (
        functools.partial(getattr, functools.partial(operator.getitem, G, "SPIKE")(), "forward"),
        lambda: G.__setitem__("SPIKE", SpikeB), lambda v: G.__setitem__("SPIKE", SpikeA),
    ),
}


def _path_read(name):  # type: ignore[no-untyped-def]
    return getattr(operator.getitem(G, "SPIKE"), name)


# the read as a place below a global root (reader(root.read, path)): the class is read at every call
CASES["autograd.Function's forward"] = (
    functools.partial(_path_read, "forward"), lambda: G.__setitem__("SPIKE", SpikeB), lambda v: G.__setitem__("SPIKE", SpikeA),
)

print("torch", torch.__version__)
for name, (read, change, undo) in CASES.items():
    traced = read()

    def fn(x, read=read, traced=traced):  # type: ignore[no-untyped-def]
        if read() is not traced:
            raise RuntimeError("changed")
        return x + 1

    torch._dynamo.reset()
    try:
        torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(2))
    except Exception as e:  # noqa: BLE001
        print(f"{name:30s}: compile FAILS {type(e).__name__}: {str(e).splitlines()[0][:90]}")
        continue
    change()
    try:
        torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(2))
        res = "NO GUARD (stale)"
    except RuntimeError as e:
        res = "guarded" if "changed" in str(e) else "error " + str(e)[:60]
    undo(traced)
    print(f"{name:30s}: ok, after the change: {res}")
