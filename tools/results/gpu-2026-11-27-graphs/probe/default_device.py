"""Neurons built and called under torch.set_default_device('cuda') / with torch.device('cuda'), and nn.DataParallel."""
import torch, warnings, json, traceback
from flexsn_nn import LIFNode, ParametricLIFNode, LearnableThresholdLIFNode, FlexSN, AdaptiveLIFNode
warnings.simplefilter("always")
def lossgrad(m, x):
    x = x.clone().requires_grad_()
    out = m(x); (out * torch.linspace(0, 1, out.numel(), device=out.device).view(out.shape)).sum().backward()
    return out.detach(), [x.grad] + [p.grad for p in m.parameters()]
def cmp(a, b):
    return float((a[0].float() - b[0].float()).abs().max()), [float((g - r).abs().max()) if g is not None and r is not None else (g is None, r is None) for g, r in zip(a[1], b[1])]
makers = {"lif": LIFNode, "plif": ParametricLIFNode, "thr": lambda **k: LearnableThresholdLIFNode(threshold_shape=(16,), **k), "alif": AdaptiveLIFNode}
x_cpu = torch.rand(8, 4, 16) * 2
for mode in ["set_default_device", "device_ctx"]:
    for name, mk in makers.items():
        for be in ["triton", "hop", "torch"]:
            try:
                with warnings.catch_warnings(record=True) as ws:
                    if mode == "set_default_device":
                        torch.set_default_device("cuda")
                        try:
                            m = mk(backend=be); got = lossgrad(m, x_cpu.cuda())
                        finally:
                            torch.set_default_device(None)
                    else:
                        with torch.device("cuda"):
                            m = mk(backend=be); got = lossgrad(m, x_cpu.cuda())
                ref_m = mk(backend="torch").cuda(); ref = lossgrad(ref_m, x_cpu.cuda())
                print(json.dumps(dict(mode=mode, neuron=name, backend=be, diff=cmp(got, ref), warns=[str(w.message)[:160] for w in ws][:3])), flush=True)
            except Exception as e:
                print(json.dumps(dict(mode=mode, neuron=name, backend=be, err=repr(e)[:400])), flush=True)
print("devices", torch.cuda.device_count())
if torch.cuda.device_count() >= 2:
    for name, mk in makers.items():
        for be in ["triton", "hop", "torch"]:
            try:
                torch.manual_seed(0)
                net = torch.nn.Sequential(torch.nn.Linear(16, 16), mk(backend=be)).cuda()
                ref = torch.nn.Sequential(torch.nn.Linear(16, 16), mk(backend="torch")).cuda(); ref.load_state_dict(net.state_dict())
                dp = torch.nn.DataParallel(net, dim=1)  # [T, B, F]: scatter the batch, not time
                x = torch.rand(6, 8, 16, device="cuda") * 2
                outs = []
                for model in (dp, ref):
                    for l in model.modules():
                        if hasattr(l, "reset"): l.reset()
                    o = model(x)
                    (o * torch.linspace(0, 1, o.numel(), device="cuda").view(o.shape)).sum().backward()
                    outs.append((o.detach(), [p.grad.clone() for p in (net if model is dp else ref).parameters()]))
                print(json.dumps(dict(mode="DataParallel", neuron=name, backend=be, diff=cmp(outs[0], outs[1]))), flush=True)
            except Exception as e:
                traceback.print_exc()
                print(json.dumps(dict(mode="DataParallel", neuron=name, backend=be, err=repr(e)[:400])), flush=True)
