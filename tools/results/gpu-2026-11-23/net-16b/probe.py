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
            if os.environ.get("KEEP_CODE"):
                _, codes = run_and_get_code(step)
                for k, c in enumerate(codes):
                    (out / f"{what}_{impl}_inductor_{k}.py").write_text(c)
            else:
                step()
            for _ in range(3): step()
            torch.cuda.synchronize()
            acts = [torch.profiler.ProfilerActivity.CUDA] + ([torch.profiler.ProfilerActivity.CPU] if os.environ.get("CPU_PROFILE") else [])
            with torch.profiler.profile(activities=acts) as prof:
                for _ in range(5): step()
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=70)
            if os.environ.get("CPU_PROFILE"):
                table += "\n" + prof.key_averages().table(sort_by="cpu_time_total", row_limit=40, max_name_column_width=70)
            ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize(); t0 = __import__("time").perf_counter(); ev[0].record()
            for _ in range(10): step()
            ev[1].record(); t1 = __import__("time").perf_counter(); torch.cuda.synchronize()
            table += f"\nhost {1e3 * (t1 - t0) / 10:.3f} ms/step (launch side), gpu {ev[0].elapsed_time(ev[1]) / 10:.3f} ms/step\n"
            (out / f"{what}_{impl}_profile.txt").write_text(table)
            print(what, impl); print(table[-6000:])
        except Exception:
            (out / f"{what}_{impl}_error.txt").write_text(traceback.format_exc())
            print(what, impl, "ERROR"); print(traceback.format_exc()[-3000:])
