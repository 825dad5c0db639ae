"""Per-call LIF training at T = 8 with autograd's device threads on (PyTorch's default) and off.

torch.autograd.set_multithreading_enabled(False) runs a CUDA backward on the calling thread instead
of handing it to the device's autograd thread and back (two thread wake-ups per backward).
Alternates the two settings in one process, LIFNode and PLIF (ParametricLIFNode), fp32, NCL = 4M.
"""
import json
import statistics
import sys

import torch

sys.path.insert(0, "tools")
from bench_per_call import per_call  # noqa: E402
import flexsn_nn  # noqa: E402

T = 8
x = torch.randn(T, 1 << 22, device="cuda") + 0.5
g = torch.randn_like(x)
t_copy = per_call(lambda: x.clone(), 10, 61)
rows = []
for name, m in (("lif", flexsn_nn.LIFNode(tau=2.0)), ("plif", flexsn_nn.ParametricLIFNode().cuda())):
    params = list(m.parameters())
    xl = x.clone().requires_grad_(True)

    def step():
        xl.grad = None
        for p in params:
            p.grad = None
        m.reset()
        torch.autograd.backward([m(xl)], [g])

    res = {True: [], False: []}
    for _ in range(4):
        for mt in (True, False):
            with torch.autograd.set_multithreading_enabled(mt):
                res[mt].append(t_copy / per_call(step, 20, 61))
    row = {"neuron": name, "threads_on": [round(r, 3) for r in res[True]], "threads_off": [round(r, 3) for r in res[False]],
           "median_on": round(statistics.median(res[True]), 3), "median_off": round(statistics.median(res[False]), 3)}
    rows.append(row)
    print(json.dumps(row))
json.dump(rows, open(sys.argv[1], "w"), indent=1)
