#!/usr/bin/env python3
"""Multi-GPU scaling of a FlexSN training step: the spiking convnet under ``DistributedDataParallel``.

    torchrun --nproc_per_node=N tools/scale_ddp.py [--T 8] [--batch-size 64] [--steps 30] [--compile MODE]
        [--neuron triton|torch] --out OUT

The network of ``tools/bench_net.py`` (three conv-BN-LIF blocks with pooling, a spiking readout;
``FlexSN(backend="triton")`` neurons) on random CIFAR-sized ``[T, B, 3, 32, 32]`` data, one
process per GPU (NCCL), ``--batch-size`` samples per process (weak scaling, as data-parallel
training is used). Each step: ``reset`` + forward + cross entropy + backward (DDP averages the
gradients while the backward runs) + SGD. Rank 0 times ``--steps`` steps after ``--warm`` (CUDA
events between two barriers) and appends ``{"gpus", "samples_per_s", ...}`` to ``OUT/scaling.json``;
run it with N = 1 and N = 2 and read the efficiency as ``samples_per_s(2) / samples_per_s(1)``.
``--compile default`` / ``reduce-overhead`` runs the step's forward through ``torch.compile`` of the DDP module in
that mode (Dynamo's DDP optimizer splits the graph at the gradient buckets; FlexSN's neighbour pass fuses the
BatchNorms into the scans, as in ``tools/bench_net.py``); the row records the mode, the host's time per step and how
the step compiled (graphs, graph breaks, CUDA-graph skips). ``--compile-inner`` compiles the network inside DDP instead
(``DistributedDataParallel(torch.compile(net))``: DDP's own forward stays eager Python, where compiling the DDP module
breaks its graph at DDP's logger call); ``--ddp-optimizer`` picks Dynamo's handling of DDP (a graph per gradient bucket, one
graph, or DDP's reducer traced by compiled autograd), ``--no-broadcast-buffers`` turns off DDP's broadcast of
buffers, and ``--cprofile K`` writes where rank 0's host time goes. Rank 0 draws ``OUT/scaling.png`` from every row
(:func:`plot`); ``--plot-only`` draws it from ``OUT/scaling.json`` without a GPU. ``--neuron torch`` builds the
same network on ``FlexSN(backend="torch")``, the plain Python time loop (``tools/bench_net.py``'s ``loop``): the
reference for how well a network without FlexSN's kernels scales in each mode. ``--profile K`` records K more
steps on rank 0 with ``torch.profiler`` and adds to the row where their GPU time went (:func:`gpu_timeline`):
time some compute kernel ran, time only NCCL's kernels ran (communication not hidden behind compute), and time no
kernel ran (the GPU waiting for the host).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch
import torch.distributed as dist
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_net import Net, make_step, makers  # noqa: E402
from plotting import pyplot  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=64, help="per process")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--compile", choices=("none", "default", "reduce-overhead"), default="none",
                    help="torch.compile the DDP module in this mode (none: eager)")
    ap.add_argument("--neuron", choices=("triton", "torch"), default="triton",
                    help="FlexSN's fused kernels (triton) or the plain Python time loop (torch)")
    ap.add_argument("--compile-inner", action="store_true",
                    help="compile the network inside DDP (DistributedDataParallel(torch.compile(net))), not the DDP module")
    ap.add_argument("--ddp-optimizer", choices=("split", "none", "python_reducer"), default="split",
                    help="torch._dynamo.config.optimize_ddp: split (True: a graph per gradient bucket), none (False: one "
                    "graph) or python_reducer (DDP's reducer traced by compiled autograd)")
    ap.add_argument("--cprofile", type=int, default=0, metavar="K",
                    help="cProfile K more steps on rank 0, the top functions by own time to OUT/cprofile_*.txt")
    ap.add_argument("--no-broadcast-buffers", action="store_true",
                    help="DistributedDataParallel(broadcast_buffers=False): no broadcast of buffers before each forward")
    ap.add_argument("--profile", type=int, default=0, metavar="K", help="profile K more steps on rank 0 (0: none)")
    ap.add_argument("--out", type=Path, default=Path("out/scale"))
    ap.add_argument("--plot-only", action="store_true",
                    help="draw OUT/scaling.png from OUT/scaling.json and stop (no GPU needed)")
    args = ap.parse_args()
    if args.plot_only:
        rows = json.loads((args.out / "scaling.json").read_text()) if (args.out / "scaling.json").exists() else []
        if not rows:
            raise SystemExit(f"scale_ddp.py --plot-only: no rows in {args.out / 'scaling.json'}")
        print(plot(rows, args.out / "scaling.png"))
        return
    if not torch.cuda.is_available():
        raise SystemExit("scale_ddp.py needs CUDA devices (one per process)")
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    if world > 1:
        dist.init_process_group("nccl", device_id=dev)
    torch.manual_seed(0)
    net = Net(makers()[args.neuron]).to(dev)
    torch._dynamo.config.optimize_ddp = {"split": True, "none": False}.get(args.ddp_optimizer, args.ddp_optimizer)
    if args.ddp_optimizer == "python_reducer":
        torch._dynamo.config.compiled_autograd = True
    ddp = {"device_ids": [local], "broadcast_buffers": not args.no_broadcast_buffers}
    mode = None if args.compile == "default" else args.compile
    inner = torch.compile(net, mode=mode) if args.compile != "none" and args.compile_inner else net
    model = nn.parallel.DistributedDataParallel(inner, **ddp) if world > 1 else inner
    g = torch.Generator(device=dev).manual_seed(1 + rank)  # each rank its own shard of random data
    x = torch.randn(args.T, args.batch_size, 3, 32, 32, device=dev, generator=g)
    labels = torch.randint(0, 10, (args.batch_size,), device=dev, generator=g)
    fwd = model if args.compile == "none" or args.compile_inner else torch.compile(model, mode=mode)
    step = make_step(model, fwd, x, labels, "train")  # resets the neurons inside the DDP wrapper too

    for _ in range(args.warm):
        step()
    torch.cuda.synchronize()
    if world > 1:
        dist.barrier()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    host_ms = (time.perf_counter() - t0) * 1000.0 / args.steps  # the host's time per step, where it ran ahead
    end.record()
    torch.cuda.synchronize()
    if world > 1:
        dist.barrier()
    ms = start.elapsed_time(end) / args.steps
    if rank == 0:
        row = {
            "gpus": world, "compile": args.compile, "neuron": args.neuron, "T": args.T, "batch_per_gpu": args.batch_size,
            "ms_per_step": ms, "host_ms_per_step": host_ms, "ddp_optimizer": args.ddp_optimizer,
            "compile_inner": args.compile_inner, "broadcast_buffers": not args.no_broadcast_buffers, **_dynamo_counts(),
            "samples_per_s": world * args.batch_size * 1000.0 / ms, "device": torch.cuda.get_device_name(dev),
        }
    if args.cprofile:
        cprofiled(step, args.cprofile, rank, args.out / f"cprofile_{args.neuron}_{args.compile}_{world}gpu.txt")
    if args.profile:
        timeline = profiled(step, args.profile, rank)
        if rank == 0:
            row.update(timeline)
    if rank == 0:
        print(json.dumps(row), flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "scaling.json"
        rows = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps([*rows, row], indent=1))
        plot([*rows, row], args.out / "scaling.png")
    if world > 1:
        dist.destroy_process_group()


def label(row: dict[str, Any]) -> str:
    """A configuration's name in the plot: the neuron, the mode and each setting off its default."""
    parts = ["FlexSN" if row.get("neuron", "triton") == "triton" else "loop", row.get("compile", "none")]
    if row.get("batch_per_gpu", 64) != 64:
        parts.append(f"B={row['batch_per_gpu']}")
    if row.get("compile_inner"):
        parts.append("inner")
    if row.get("ddp_optimizer", "split") != "split":
        parts.append(f"ddp_opt={row['ddp_optimizer']}")
    if not row.get("broadcast_buffers", True):
        parts.append("no bcast")
    return " ".join(parts)


def plot(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """Samples/s on one GPU and on two per configuration, with the two-GPU scaling written above (left), and, for
    rows with a ``--profile``, each step's GPU time split into compute, NCCL only and idle (right); writes ``path``
    (PNG) and returns it, or ``None`` without matplotlib. The last row of each configuration and GPU count counts."""
    plt = pyplot()
    if plt is None:
        return None
    last = {(label(r), r["gpus"]): r for r in rows}
    names = list(dict.fromkeys(name for name, _ in last))
    profiled = [(f"{name}, {g} GPU", r) for (name, g), r in last.items() if "compute_us" in r]
    fig, axes = plt.subplots(1, 2 if profiled else 1, figsize=(13 if profiled else 7, 0.5 * len(names) + 2.5),
                             squeeze=False)
    ax = axes[0][0]
    for k, g in enumerate((1, 2)):
        ys = [last[(n, g)]["samples_per_s"] if (n, g) in last else 0.0 for n in names]
        ax.barh([i + 0.4 * k for i in range(len(names))], ys, height=0.4, label=f"{g} GPU{'s' if g > 1 else ''}")
    for i, n in enumerate(names):
        if (n, 1) in last and (n, 2) in last:
            two = last[(n, 2)]["samples_per_s"]
            ax.text(two, i + 0.4, f" {two / last[(n, 1)]['samples_per_s']:.2f}x", va="center", fontsize=8)
    ax.set_xlim(0, 1.15 * max(r["samples_per_s"] for r in last.values()))  # room for the scaling labels
    ax.set_yticks([i + 0.2 for i in range(len(names))], names, fontsize=8)
    ax.set_xlabel("samples / s (higher is better)")
    ax.set_title("DDP training step: samples/s and two-GPU scaling")
    ax.legend(fontsize=8)
    if profiled:
        ax = axes[0][1]
        left = [0.0] * len(profiled)
        for key, color in (("compute_us", "tab:blue"), ("nccl_only_us", "tab:orange"), ("idle_us", "tab:gray")):
            widths = [r[key] / 1000.0 for _, r in profiled]
            ax.barh(range(len(profiled)), widths, left=left, color=color, label=key.removesuffix("_us").replace("_", " "))
            left = [a + b for a, b in zip(left, widths)]
        ax.set_yticks(range(len(profiled)), [n for n, _ in profiled], fontsize=8)
        ax.set_xlabel("ms per profiled step (GPU time on rank 0)")
        ax.set_title("where the GPU time goes (idle: waiting for the host)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _dynamo_counts() -> dict[str, Any]:
    """How the compiled step ran: the graphs Dynamo made, its graph breaks (reason: count) and how many graphs CUDA
    graphs skipped (``TORCH_LOGS=perf_hints`` says why)."""
    from torch._dynamo.utils import counters

    return {
        "graphs": counters["stats"].get("unique_graphs", 0),
        "graph_breaks": dict(counters["graph_break"]),
        "cudagraph_skips": counters["inductor"].get("cudagraph_skips", 0),
    }


def cprofiled(step: Callable[[], None], k: int, rank: int, path: Path) -> None:
    """Run ``k`` steps, under ``cProfile`` on rank 0, and write its top 60 functions by own time to ``path``."""
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    if rank == 0:
        prof.enable()
    for _ in range(k):
        step()
    torch.cuda.synchronize()
    if rank == 0:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(60)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{k} steps\n" + text.getvalue())


def profiled(step: Callable[[], None], k: int, rank: int) -> dict[str, float]:
    """Run ``k`` steps under ``torch.profiler`` (rank 0 records; every rank steps, as DDP needs) and return
    :func:`gpu_timeline` of them, per step (the trace itself, tens of MB, is not kept)."""
    import tempfile

    from torch.profiler import ProfilerActivity, profile

    if rank != 0:
        for _ in range(k):
            step()
        torch.cuda.synchronize()
        return {}
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(k):
            step()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(trace))
        return {key: v / k for key, v in gpu_timeline(json.loads(trace.read_text())).items()}


def gpu_timeline(trace: dict[str, Any]) -> dict[str, float]:
    """Where the GPU time of a Chrome trace (``torch.profiler``'s export) went, in µs: ``compute_us`` (some kernel
    other than NCCL's ran), ``nccl_only_us`` (only NCCL's kernels ran: communication not hidden), ``idle_us`` (no
    kernel ran, between the first kernel's start and the last one's end) and ``span_us``."""
    kernels = [e for e in trace.get("traceEvents", []) if e.get("cat") == "kernel" and "dur" in e]
    if not kernels:
        return {}
    nccl = [(e["ts"], e["ts"] + e["dur"]) for e in kernels if "nccl" in e["name"].lower()]
    compute = [(e["ts"], e["ts"] + e["dur"]) for e in kernels if "nccl" not in e["name"].lower()]
    start, end = min(e["ts"] for e in kernels), max(e["ts"] + e["dur"] for e in kernels)
    busy, any_busy = _union(compute), _union(compute + nccl)
    return {"span_us": end - start, "compute_us": busy, "nccl_only_us": any_busy - busy, "idle_us": end - start - any_busy}


def _union(spans: list[tuple[float, float]]) -> float:
    """The length of the union of the intervals ``spans``."""
    total, reach = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b <= reach:
            continue
        total += b - max(a, reach)
        reach = b
    return total


if __name__ == "__main__":
    main()
