import torch, warnings, json
from flexsn_nn import LIFNode, ParametricLIFNode, functional
warnings.simplefilter("always")
dev = "cuda"
torch.manual_seed(0)
for be in ["triton", "hop", "torch"]:
    m = LIFNode(backend=be).to(dev)
    x = torch.rand(8, 4, 16, device=dev) * 2
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad():
        with torch.cuda.stream(s):
            for _ in range(3):
                m(x)                      # warm-up as the docs show, no reset between
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with warnings.catch_warnings(record=True) as ws:
            with torch.cuda.graph(g):
                out = m(x)
        m.reset()
        diffs = []
        for i in range(3):
            x.copy_(torch.rand(8, 4, 16, device=dev) * 2)
            g.replay()
            ref = LIFNode(backend="torch").to(dev)
            want = ref(x)
            diffs.append(float((out - want).abs().max()))
            m.reset()
    print(json.dumps(dict(backend=be, diffs=diffs, warnings=[str(w.message)[:200] for w in ws])))
