"""Which reads of a class attribute does Dynamo guard on this torch (2.11 on the H200 did not guard getattr(K, "thr"))?

Each variant compiles f(x) = x * read(), changes K.thr, and calls again: "guarded" when the
result follows the change.
"""
import functools
import operator

import torch

print("torch", torch.__version__)


class K:
    thr = 1.0


class Base:
    thr = 1.0


class Sub(Base):
    pass


def get_attr():
    return getattr(K, "thr")


def dict_item():
    return K.__dict__["thr"]


def vars_item():
    return vars(K)["thr"]


def partial_getattr():
    return functools.partial(getattr, K, "thr")()


def inherited():
    return getattr(Sub, "thr")


def attr_load():
    return K.thr


for name, read, owner in [("getattr(K, 'thr')", get_attr, K), ("K.__dict__['thr']", dict_item, K), ("vars(K)['thr']", vars_item, K),
                          ("partial(getattr, K, 'thr')()", partial_getattr, K), ("getattr(Sub, 'thr') (inherited)", inherited, Base),
                          ("K.thr", attr_load, K)]:
    torch._dynamo.reset()
    owner.thr = 1.0
    try:
        f = torch.compile(lambda x: x * read(), backend="eager", fullgraph=True)
        a = f(torch.ones(1)).item()
        owner.thr = 2.0
        b = f(torch.ones(1)).item()
        print(f"{name}: {'guarded' if b == 2.0 else 'NOT guarded'} ({a} -> {b})")
    except Exception as e:  # noqa: BLE001
        print(f"{name}: {type(e).__name__}: {str(e)[:200]}")
    owner.thr = 1.0
