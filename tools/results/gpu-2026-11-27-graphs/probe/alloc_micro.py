import timeit, torch
def t(stmt, g, n=20000):
    return min(timeit.repeat(stmt, number=n, repeat=7, globals=g)) / n * 1e6
for dev in ("cuda", "cpu"):
    x = torch.randn(8, 4096, device=dev)
    xr = x.clone().requires_grad_()
    step = x.shape[1:]
    g = dict(torch=torch, x=x, xr=xr, step=step, dt=torch.float32, dev=x.device)
    rows = {}
    for name, stmt in [("empty_like(x)", "torch.empty_like(x)"), ("empty_like(xr)", "torch.empty_like(xr)"),
                       ("x.new_empty(*step)", "x.new_empty(*step)"), ("xr.new_empty(*step)", "xr.new_empty(*step)"),
                       ("torch.empty(shape)", "torch.empty((8, 4096), dtype=dt, device=dev)"),
                       ("xr.data_ptr", "xr.data_ptr()"), ("x.data_ptr", "x.data_ptr()"),
                       ("xr.is_contiguous", "xr.is_contiguous()")]:
        rows[name] = round(t(stmt, g), 3)
        with torch.no_grad():
            rows[name + " no_grad"] = round(t(stmt, g), 3)
    print(dev, rows, flush=True)
