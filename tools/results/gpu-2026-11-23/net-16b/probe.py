"""#16 probe: per-kernel GPU time of the compiled convnet step, neighbour pass on / off (torch.profiler)."""
import os, sys, json, traceback
from pathlib import Path
import torch
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import bench_net as bn  # noqa: E402
import flexsn_hop
from torch._inductor.utils import run_and_get_code

out = Path(os.environ["OUT"])
dev = torch.device("cuda")
make = bn.makers()
x = torch.randn(8, 64, 3, 32, 32, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
for what in sys.argv[1].split(","):
    for impl in sys.argv[2].split(","):
        net, fwd = bn.setup(impl, make, dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        def step():
            bn.reset(net)
            if what == "infer":
                with torch.no_grad():
                    fwd(x)
                return
            loss = torch.nn.functional.cross_entropy(fwd(x), labels)
            opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
        try:
            _, codes = run_and_get_code(step)
            for k, c in enumerate(codes):
                (out / f"{what}_{impl}_inductor_{k}.py").write_text(c)
            for _ in range(3): step()
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                for _ in range(5): step()
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=70)
            (out / f"{what}_{impl}_profile.txt").write_text(table)
            print(what, impl); print(table[:3000])
        except Exception:
            (out / f"{what}_{impl}_error.txt").write_text(traceback.format_exc())
            print(what, impl, "ERROR"); print(traceback.format_exc()[-3000:])
