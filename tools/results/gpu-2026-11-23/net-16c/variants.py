"""#16: which emitted form of the BatchNorm statistics trips Triton's make_ttgir in the training graph."""
import os, sys, traceback, operator
from pathlib import Path
import torch
from torch import nn
import flexsn_hop
from flexsn_hop import neighbour_pass as npass
from flexsn_nn import FlexSN
from flexsn_nn.surrogate import Sigmoid

sp = Sigmoid()
def lif(x, v):
    h = v + (x - v) / 2.0
    s = sp(h - 1.0)
    return s, h * (1.0 - s)

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, padding=1, bias=False); self.bn = nn.BatchNorm2d(32)
        self.sn = FlexSN(lif, 1, 1, 1, step_mode="m")
    def forward(self, x):
        T, B = x.shape[:2]
        y = self.bn(self.conv(x.flatten(0, 1)))
        return self.sn(y.view(T, B, *y.shape[1:])).sum()

orig_update = npass._Rewrite._update_running_stats
def update_no_alpha(self, bn, mean, var, n):
    m = bn.momentum
    bv = self.outer("call_method", "detach", var)
    if n > 1:
        bv = self.outer("call_function", operator.mul, bv, n / (n - 1))
    for running, batch in ((bn.running_mean, self.outer("call_method", "detach", mean)), (bn.running_var, bv)):
        new = self.outer("call_function", operator.add, self.outer("call_function", operator.mul, running, 1.0 - m),
                         self.outer("call_function", operator.mul, batch, m))
        self.outer("call_method", "copy_", running, new)
def update_none(self, bn, mean, var, n):
    pass
variants = {"current": orig_update, "no_alpha": update_no_alpha, "no_update": update_none}
out = Path(os.environ["OUT"])
x = torch.randn(4, 8, 3, 16, 16, device="cuda", requires_grad=False)
for name, fn in variants.items():
    npass._Rewrite._update_running_stats = fn
    torch._dynamo.reset()
    torch.manual_seed(0)
    net = Block().cuda()
    try:
        torch.compile(net)(x).backward()
        print(name, "OK", flush=True)
    except Exception as exc:
        print(name, "FAIL", repr(exc)[:200], flush=True)
