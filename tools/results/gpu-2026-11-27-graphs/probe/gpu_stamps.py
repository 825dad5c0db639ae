"""Where the host time to the first launch goes on CUDA: training vs inference (LIF, small layer)."""
import sys, time, statistics, json, os
import torch
from flexsn_nn import LIFNode, module as fmod
from flexsn_runtime import flexsn_kernel, launch_plan, op_autograd, routing, scan_kernel
now = time.perf_counter_ns
S = []
def wrap(obj, name, label):
    real = getattr(obj, name)
    def w(*a, **k):
        S.append((label, now())); return real(*a, **k)
    setattr(obj, name, w)
wrap(flexsn_kernel.FlexSNKernel, "run_cached", "b_run_cached")
wrap(flexsn_kernel, "call_key", "c_call_key")
wrap(launch_plan.LaunchPlan, "run", "e_plan_run")
wrap(fmod.FlexSN, "_multi_step", "a_multi_step")
real_apply = op_autograd.EagerTraining.apply_unwrapped.__func__
def ap(cls, *a, **k):
    S.append(("d_apply", now())); return real_apply(cls, *a, **k)
op_autograd.EagerTraining.apply_unwrapped = classmethod(ap)
routing.EagerTraining = op_autograd.EagerTraining
real_rs = scan_kernel._raw_stream
def rs(i):
    S.append(("launch", now())); return real_rs(i)
scan_kernel._raw_stream = rs
real_bwd = op_autograd.EagerTraining.backward
def bw(ctx, *g):
    S.append(("autograd_bwd", now())); return real_bwd(ctx, *g)
op_autograd.EagerTraining.backward = staticmethod(bw)

def timeline(m, x, train, n):
    xl = x.clone().requires_grad_(train); g = torch.randn_like(x)
    rows = []
    for i in range(n + n // 5):
        S.clear()
        torch.cuda.synchronize()
        t0 = now()
        if train:
            xl.grad = None
            S.append(("grad_none", now()))
            m.reset()
            S.append(("reset_done", now()))
            out = m(xl)
            S.append(("module_done", now()))
            torch.autograd.backward([out], [g])
        else:
            with torch.no_grad():
                S.append(("no_grad_in", now()))
                m.reset()
                S.append(("reset_done", now()))
                m(xl)
        S.append(("step_done", now()))
        if i >= n // 5:
            r = {}
            for k, t in S:
                k2 = k if k not in r else k + "2"
                r[k2] = (t - t0) / 1e3
            rows.append(r)
    keys = rows[-1].keys()
    return {k: round(statistics.median(r[k] for r in rows if k in r), 2) for k in keys}

res = {}
for ncl in (4096, 1 << 22):
    x = torch.randn(8, ncl, device="cuda") + 0.5
    m = LIFNode(tau=2.0, step_mode="m", backend="triton")
    for train in (False, True, False, True):
        r = timeline(m, x, train, 300)
        key = f"{'train' if train else 'infer'}_{ncl}"
        res[key] = r
        print(key, "  ".join(f"{k} {v:6.1f}" for k, v in sorted(r.items(), key=lambda kv: kv[1])), flush=True)
out = os.environ.get("OUT")
out and json.dump(res, open(out + "/gpu_stamps.json", "w"), indent=1)
