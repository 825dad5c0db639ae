"""GPU probe: make_graphed_callables, torch.cuda.graph for every backend, side streams."""
import copy, traceback, warnings, json, os
import torch
from flexsn_nn import LIFNode, ParametricLIFNode, functional

torch.manual_seed(0)
dev = torch.device("cuda")
R = []

def log(**kw):
    R.append(kw); print(json.dumps(kw), flush=True)

class Net(torch.nn.Module):
    def __init__(self, neuron, reset_inside=True):
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)
        self.sn = neuron
        self.reset_inside = reset_inside
    def forward(self, x):
        if self.reset_inside:
            self.sn.reset()
        return self.sn(self.fc(x)).mean(0)

def grads(net):
    return [p.grad.detach().clone() for p in net.parameters()]

def maxdiff(a, b):
    return max(float((x - y).abs().max()) for x, y in zip(a, b))

makers = {
    "lif-triton": lambda: LIFNode(),
    "lif-inductor": lambda: LIFNode(backend="inductor"),
    "lif-hop": lambda: LIFNode(backend="hop"),
    "lif-torch": lambda: LIFNode(backend="torch"),
    "plif-triton": lambda: ParametricLIFNode(),
    "plif-hop": lambda: ParametricLIFNode(backend="hop"),
}

# 1. make_graphed_callables over a net that resets inside
for name, mk in makers.items():
    try:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            eager = Net(mk()).to(dev)
            g = Net(mk()).to(dev)
            g.load_state_dict(eager.state_dict())
            sample = torch.rand(8, 16, 32, device=dev)
            graphed = torch.cuda.make_graphed_callables(g, (sample,))
            diffs = []
            for i in range(3):
                x = torch.rand(8, 16, 32, device=dev) * (1 + i)
                for net, fn in ((eager, eager), (g, graphed)):
                    net.zero_grad(set_to_none=True)
                    out = fn(x)
                    out.square().sum().backward()
                    if fn is eager:
                        o_e = out.detach().clone()
                    else:
                        o_g = out.detach().clone()
                diffs.append((float((o_e - o_g).abs().max()), maxdiff(grads(eager), grads(g))))
        log(case="graphed_net_reset_inside", impl=name, diffs=diffs, warns=[str(w.message)[:200] for w in ws][:5])
    except Exception as e:
        log(case="graphed_net_reset_inside", impl=name, err=repr(e)[:500]); traceback.print_exc()

# 2. make_graphed_callables of a bare neuron; user resets outside between batches (SpikingJelly's habit)
for name, mk in makers.items():
    try:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            eager = mk().to(dev)
            g = mk().to(dev)
            g.load_state_dict(eager.state_dict())
            sample = torch.rand(8, 16, 32, device=dev, requires_grad=True)
            graphed = torch.cuda.make_graphed_callables(g, (sample,))
            g.reset()
            diffs = []
            for i in range(3):
                xs = torch.rand(8, 16, 32, device=dev) * (1 + i)
                outs = []
                for m, fn in ((eager, eager), (g, graphed)):
                    x = xs.clone().requires_grad_(True)
                    out = fn(x)
                    (out * torch.linspace(0, 1, out.numel(), device=dev).view(out.shape)).sum().backward()
                    outs.append((out.detach().clone(), x.grad.clone()))
                    m.reset()
                    junk = torch.randn(8, 16, 32, device=dev) * 100  # reuse freed memory
                diffs.append((float((outs[0][0] - outs[1][0]).abs().max()), float((outs[0][1] - outs[1][1]).abs().max())))
        log(case="graphed_bare_neuron_reset_outside", impl=name, diffs=diffs, warns=[str(w.message)[:200] for w in ws][:5])
    except Exception as e:
        log(case="graphed_bare_neuron_reset_outside", impl=name, err=repr(e)[:500]); traceback.print_exc()

# 3. torch.cuda.graph capture of a training step, every backend
for name, mk in makers.items():
    try:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            net = Net(mk()).to(dev)
            x = torch.rand(8, 16, 32, device=dev)
            s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    net.zero_grad(set_to_none=False); net(x).sum().backward()
            torch.cuda.current_stream().wait_stream(s)
            graph = torch.cuda.CUDAGraph()
            net.zero_grad(set_to_none=True)
            with torch.cuda.graph(graph):
                loss = net(x).sum(); loss.backward()
            diffs = []
            for scale in (1.0, 2.5):
                x.copy_(torch.rand(8, 16, 32, device=dev) * scale)
                graph.replay()
                got = grads(net)
                ref = Net(mk()).to(dev); ref.load_state_dict(net.state_dict())
                ref(x).sum().backward()
                diffs.append(maxdiff(got, grads(ref)))
        log(case="cuda_graph_step", impl=name, diffs=diffs, warns=[str(w.message)[:200] for w in ws][:5])
    except Exception as e:
        log(case="cuda_graph_step", impl=name, err=repr(e)[:500]); traceback.print_exc()

# 4. a side stream: forward and backward under torch.cuda.stream
for name, mk in makers.items():
    try:
        eager = Net(mk()).to(dev)
        side = Net(mk()).to(dev); side.load_state_dict(eager.state_dict())
        s = torch.cuda.Stream()
        diffs = []
        for i in range(3):
            x = torch.rand(8, 64, 32, device=dev) * 2
            eager.zero_grad(set_to_none=True); eager(x).square().sum().backward()
            side.zero_grad(set_to_none=True)
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                out = side(x); out.square().sum().backward()
            torch.cuda.current_stream().wait_stream(s)
            diffs.append(maxdiff(grads(eager), grads(side)))
        log(case="side_stream", impl=name, diffs=diffs)
    except Exception as e:
        log(case="side_stream", impl=name, err=repr(e)[:500]); traceback.print_exc()

out = os.environ.get("OUT")
if out:
    json.dump(R, open(os.path.join(out, "graphs_probe.json"), "w"), indent=1)
