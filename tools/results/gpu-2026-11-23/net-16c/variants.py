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
out = Path(os.environ["OUT"])
from torch._inductor import async_compile as ac
_orig_triton = ac.AsyncCompile.triton
def keep_source(self, kernel_name, source_code, *a, **k):
    try:
        return _orig_triton(self, kernel_name, source_code, *a, **k)
    except Exception:
        (out / f"{kernel_name}.py").write_text(source_code)
        raise
ac.AsyncCompile.triton = keep_source

orig_statics, orig_emit = npass._Rewrite._batch_norm_statics, npass._Rewrite._emit_batch_norm
def four_statics(self, bn, like):
    channels, rank = like.shape[1], like.dim()
    vm = self.outer("call_function", torch.var_mean, bn.input, dim=[0, *range(2, rank)], correction=0)
    var, mean = self.outer("call_function", operator.getitem, vm, 0), self.outer("call_function", operator.getitem, vm, 1)
    self._update_running_stats(bn, mean, var, like.numel() // channels)
    inv = self.outer("call_function", torch.rsqrt, self.outer("call_function", operator.add, var, bn.eps))
    per = (channels, *([1] * (rank - 2)))
    return {k: self.outer("call_method", "reshape", t, per) for k, t in (("mean", mean), ("inv", inv), ("w", bn.weight), ("b", bn.bias))}
def four_emit(self, node, p):
    bn = p.batch_norms[node]
    v = self.body.call_function(torch.sub, (self.env[bn.input], self.env[npass._Key(node, "mean")]))
    v = self.body.call_function(torch.mul, (v, self.env[npass._Key(node, "inv")]))
    v = self.body.call_function(torch.mul, (v, self.env[npass._Key(node, "w")]))
    return self.body.call_function(torch.add, (v, self.env[npass._Key(node, "b")]))
def no_neg_statics(self, bn, like):
    channels, rank = like.shape[1], like.dim()
    vm = self.outer("call_function", torch.var_mean, bn.input, dim=[0, *range(2, rank)], correction=0)
    var, mean = self.outer("call_function", operator.getitem, vm, 0), self.outer("call_function", operator.getitem, vm, 1)
    self._update_running_stats(bn, mean, var, like.numel() // channels)
    scale = self.outer("call_function", operator.mul, self.outer("call_function", torch.rsqrt, self.outer("call_function", operator.add, var, bn.eps)), bn.weight)
    shift = self.outer("call_function", operator.sub, bn.bias, self.outer("call_function", operator.mul, mean, scale))
    per = (channels, *([1] * (rank - 2)))
    return {k: self.outer("call_method", "reshape", t, per) for k, t in (("scale", scale), ("shift", shift))}

def patch(statics, emit):
    def apply():
        npass._Rewrite._batch_norm_statics, npass._Rewrite._emit_batch_norm = statics, emit
    return apply
variants = {"current": patch(orig_statics, orig_emit), "four_statics": patch(four_statics, four_emit), "no_neg": patch(no_neg_statics, orig_emit)}
x = torch.randn(4, 8, 3, 16, 16, device="cuda", requires_grad=False)
for name, fn in variants.items():
    fn()
    torch._dynamo.reset()
    torch.manual_seed(0)
    net = Block().cuda()
    try:
        torch.compile(net)(x).backward()
        print(name, "OK", flush=True)
    except Exception as exc:
        print(name, "FAIL", repr(exc)[:200], flush=True)
