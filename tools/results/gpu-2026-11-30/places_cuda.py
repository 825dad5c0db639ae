"""CUDA check of lifting through containers (#13 / reliability): each place's tensor runs fused, equal to the loop
with gradients, and follows in-place changes and rebinding; a class attribute falls back with a warning.

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python3 tools/results/gpu-2026-11-30/places_cuda.py
"""
import functools, types, warnings
import torch
from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C = 8, 4, 64


def spike(h):
    return torch.sigmoid(4.0 * h)


w = torch.nn.Parameter(torch.linspace(-1, 1, C, device=dev))
th = torch.tensor(1.0)  # a 0-d CPU tensor beside CUDA steps
P = {"w": w, "th": th}
cfg = types.SimpleNamespace(neuron=types.SimpleNamespace(w=w))


def dict_core(x, v):
    h = v + (x - v) * torch.sigmoid(P["w"])
    return spike(h - P["th"]), h * 0.5


def ns_core(x, v):
    h = v + (x - v) * torch.sigmoid(cfg.neuron.w)
    return spike(h - 1.0), h * 0.5


def kw_core(x, v, w):
    h = v + (x - v) * torch.sigmoid(w)
    return spike(h - 1.0), h * 0.5


class K:
    th = torch.tensor(1.0, device=dev)

    @staticmethod
    def core(x, v):
        h = v + (x - v) * 0.5
        return spike(h - K.th), h * 0.5


cases = {"dict": dict_core, "namespace": ns_core, "partial": functools.partial(kw_core, w=w), "class attribute": K.core}
for name, core in cases.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = FlexSN(core, 1, 1, 1, backend="triton")
        x = (torch.rand(T, B, C, device=dev) * 2).requires_grad_()
        w.grad = None
        y = m(x)
        y.sum().backward()
    gw = None if w.grad is None else w.grad.clone()
    w.grad = None
    xr = x.detach().clone().requires_grad_()
    yr, _ = reference_scan(core, ScanContract(1, 1, 0 + 1, (xr,), ()))
    yr.sum().backward()
    ok = torch.allclose(y, yr, atol=1e-5) and torch.allclose(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    ok_w = gw is None and w.grad is None or torch.allclose(gw, w.grad, rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        w.add_(0.5)  # in place, as an optimizer step
        th.fill_(0.3)
        m.reset()
        y2 = m(x.detach())
        y2r, _ = reference_scan(core, ScanContract(1, 1, 1, (x.detach(),), ()))
        w.sub_(0.5)
        th.fill_(1.0)
    print(f"{name:16s} fused={not caught} out+grad={ok} dw={ok_w} live={torch.allclose(y2, y2r, atol=1e-5)} "
          f"captures={m.kernel.captures.names()} warnings={[str(c.message)[:90] for c in caught]}")
