#!/usr/bin/env python3
"""A spiking convnet step end to end: FlexSN fused with its neighbours under ``torch.compile``, and its peers.

The network of ``../shared/bench/probe_net.py`` (CIFAR-sized ``[T, B, 3, 32, 32]``;
three ``Conv2d -> BatchNorm2d -> LIF`` blocks with max pooling, a linear layer and a
spiking readout averaged over ``T``), timed per step (CUDA events around
``reset`` + forward (+ backward + SGD step), median of ``--rep``; and ``--rep`` steps back to back,
``b2b_ms``, where the host's time before a step hides behind the step before), training and
inference (``no_grad`` forward; ``--what eval``: after ``net.eval()``, BatchNorm on its
running statistics). Implementations (``--impls``):

* ``flexsn``: ``FlexSN(lif, backend="triton")`` eagerly;
* ``flexsn_compile``: compiled with Inductor, the neighbour pass on (the default,
  ``enable_neighbour_fusion(True)``: BatchNorm's normalisation runs inside each
  neuron's scan, ``flexsn_hop.fuse_neighbours``);
* ``flexsn_compile_nofuse``: the same with the pass off (``enable_neighbour_fusion(False)``);
* ``flexsn_ro`` / ``flexsn_ro_nofuse``: ``mode="reduce-overhead"`` (CUDA graphs), the pass
  as by default (on) / off;
* ``loop_compile`` / ``loop_ro``: the plain Python time loop (``backend="torch"``)
  compiled by Inductor, default / ``reduce-overhead`` (the peers the issue names);
* ``sj_lif``: SpikingJelly's ``LIFNode`` (its default backend, as in ``probe_net.py``), eagerly.

``--template``: the compiled FlexSN impls lower inference scans to Inductor templates
(``flexsn_hop.enable_template_lowering``, experimental).

GPU::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python3 tools/bench_net.py --out OUT

Writes ``net.json`` and, with ``--kernels``, the Inductor output code of the
compiled steps and the fused scan kernels' Triton sources under ``OUT/kernels/``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_per_call import back_to_back, per_call as per_step  # noqa: E402  (median ms of a call timed alone)

ROWS: list[dict[str, Any]] = []
IMPLS = ("flexsn", "flexsn_compile", "flexsn_compile_nofuse", "flexsn_ro", "flexsn_ro_nofuse", "loop_compile", "loop_ro", "sj_lif")


def log(**row: Any) -> None:
    ROWS.append(row)
    print(json.dumps(row), flush=True)


class Net(nn.Module):
    """``[T, B, 3, 32, 32]`` -> 3 x (conv, BN, neuron, pool) -> linear -> neuron -> mean over ``T``."""

    def __init__(self, make_neuron: Callable[[], nn.Module], channels: int = 128) -> None:
        super().__init__()
        self.body = nn.ModuleList()
        cin = 3
        for _ in range(3):
            self.body.append(nn.ModuleList([nn.Conv2d(cin, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), make_neuron()]))
            cin = channels
        self.fc = nn.Linear(channels * 4 * 4, 10)
        self.out = make_neuron()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T, B = x.shape[:2]
        for conv, bn, sn in self.body:  # type: ignore[misc]
            y = bn(conv(x.flatten(0, 1)))
            y = sn(y.view(T, B, *y.shape[1:]))
            x = nn.functional.max_pool2d(y.flatten(0, 1), 2)
            x = x.view(T, B, *x.shape[1:])
        out: torch.Tensor = self.out(self.fc(x.flatten(2))).mean(0)
        return out


def makers() -> dict[str, Callable[[], nn.Module]]:
    from flexsn_nn import FlexSN
    from flexsn_nn.surrogate import Sigmoid

    spike = Sigmoid()

    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = spike(h - 1.0)
        return s, h * (1.0 - s)

    found: dict[str, Callable[[], nn.Module]] = {
        "triton": lambda: FlexSN(lif, 1, 1, 1, step_mode="m", backend="triton"),
        "torch": lambda: FlexSN(lif, 1, 1, 1, step_mode="m", backend="torch"),
    }
    try:
        from spikingjelly.activation_based import neuron as sjn, surrogate as sjs

        # as ../shared/bench/probe_net.py: its default backend
        found["sj"] = lambda: sjn.LIFNode(tau=2.0, surrogate_function=sjs.Sigmoid(alpha=4.0), step_mode="m", detach_reset=False)
    except ImportError:
        pass
    return found


def setup(
    impl: str, make: dict[str, Callable[[], nn.Module]], dev: torch.device, channels_last: bool = False
) -> tuple[nn.Module, Callable[..., Any]]:
    """The network of ``impl`` and how it is called (``channels_last``: its convolutions' weights in that memory format)."""
    import flexsn_hop

    flexsn_hop.enable_neighbour_fusion(False if impl.endswith("_nofuse") else None)  # None: the default (on)
    torch._dynamo.reset()
    kind = "torch" if impl.startswith("loop") else "sj" if impl == "sj_lif" else "triton"
    torch.manual_seed(0)
    net = Net(make[kind]).to(dev)
    if channels_last:
        net = net.to(memory_format=torch.channels_last)
    if impl in ("flexsn", "sj_lif"):
        return net, net
    mode = "reduce-overhead" if "_ro" in impl else None
    return net, torch.compile(net, mode=mode)


def reset(net: nn.Module) -> None:
    for m in net.modules():
        if m is not net and hasattr(m, "reset"):
            m.reset()


WHATS = ("train", "infer", "eval")


def make_step(net: nn.Module, fwd: Callable[..., Any], x: torch.Tensor, labels: torch.Tensor, what: str) -> Callable[[], None]:
    """One step of ``net`` called through ``fwd``: ``"train"`` (reset, forward, cross-entropy, backward, SGD),
    ``"infer"`` (reset, a ``no_grad`` forward, BatchNorm on batch statistics as in training) or ``"eval"`` (the same
    after ``net.eval()``: BatchNorm on its running statistics, as a deployed network runs)."""
    if what not in WHATS:
        raise ValueError(f"make_step: what must be one of {WHATS}, got {what!r}")
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    net.train(what != "eval")

    def train() -> None:
        reset(net)
        loss = nn.functional.cross_entropy(fwd(x), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def infer() -> None:
        reset(net)
        with torch.no_grad():
            fwd(x)

    return train if what == "train" else infer


def _batch(args: argparse.Namespace, B: int, dev: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Random inputs ``[T, B, 3, 32, 32]`` and labels ``[B]`` of batch size ``B``."""
    x = torch.randn(args.T, B, 3, 32, 32, device=dev)
    if args.channels_last:  # the [T * B, 3, 32, 32] batch the first convolution reads, channels-last
        x = x.flatten(0, 1).contiguous(memory_format=torch.channels_last).view(x.shape)
    return x, torch.randint(0, 10, (B,), device=dev)


def bench(impl: str, make: dict[str, Callable[[], nn.Module]], args: argparse.Namespace, dev: torch.device) -> None:
    x, labels = _batch(args, args.B, dev)
    for what in args.what:
        net, fwd = setup(impl, make, dev, args.channels_last)
        step = make_step(net, fwd, x, labels, what)
        B = args.B
        try:
            if args.second_B:  # compile (and run) the first shape's graph, then time the one Dynamo makes for a second B
                step()
                B = args.second_B
                step = make_step(net, fwd, *_batch(args, B, dev), what)
            t0 = time.perf_counter()
            if args.kernels and impl == "flexsn_compile":
                dump_kernels(step, Path(args.out) / "kernels" / what)
            else:
                step()
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            ms = per_step(step, args.warm, args.rep)
            log(case="net", what=what, impl=impl, T=args.T, B=B, channels_last=args.channels_last, ms=ms,
                b2b_ms=back_to_back(step, 0, args.rep), first_s=first, peak_gb=torch.cuda.max_memory_allocated() / 1e9,
                after_B=args.B if args.second_B else None)
        except Exception as exc:  # noqa: BLE001 - a peer that fails is a result too
            traceback.print_exc()
            log(case="net_error", what=what, impl=impl, err=repr(exc)[:400])
        torch.cuda.reset_peak_memory_stats()


def dump_kernels(step: Callable[[], None], where: Path) -> None:
    """Run ``step`` once, keeping Inductor's output code and the fused scans' Triton sources."""
    from torch._inductor.utils import run_and_get_code

    from flexsn_runtime import lookup_flexsn_kernel_handle, registered_handles

    before = set(registered_handles())
    _, codes = run_and_get_code(step)
    where.mkdir(parents=True, exist_ok=True)
    for k, code in enumerate(codes):
        (where / f"inductor_{k}.py").write_text(code)
    for h in sorted(set(registered_handles()) - before):
        bundle = lookup_flexsn_kernel_handle(h)
        for name in ("inference_kernel", "inference_final_state_kernel", "forward_kernel", "backward_kernel"):
            kernel = getattr(bundle, name)
            if kernel is not None:
                (where / f"scan_{h}_{name}.py").write_text(kernel.code)
                final = getattr(kernel, "final_state", None)  # the training kernels' final-state variants
                if final is not None:
                    (where / f"scan_{h}_{name}_final_state.py").write_text(final.code)


def table() -> str:
    lines = ["| what | impl | ms per step (per call) | vs best plain-loop compile | ms back to back | vs best plain loop |",
             "| --- | --- | --- | --- | --- | --- |"]
    for what in WHATS:
        rows = [r for r in ROWS if r.get("case") == "net" and r["what"] == what]
        peers = [r for r in rows if r["impl"] in ("loop_compile", "loop_ro")]
        best = min(r["ms"] for r in peers) if peers else None
        best_b2b = min(r["b2b_ms"] for r in peers) if peers else None
        for r in rows:
            speed = f"{best / r['ms']:.2f}x" if best else "-"
            speed_b2b = f"{best_b2b / r['b2b_ms']:.2f}x" if best_b2b else "-"
            lines.append(f"| {what} | {r['impl']} | {r['ms']:.3f} | {speed} | {r['b2b_ms']:.3f} | {speed_b2b} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--T", type=int, default=8)
    ap.add_argument("--B", type=int, default=64)
    ap.add_argument("--second-B", type=int, default=0,
                    help="time the steps at this batch size, after one at --B: the graph Dynamo compiles for a second "
                         "batch size (symbolic), as an epoch's last batch or evaluation at another size meets it")
    ap.add_argument("--impls", default=",".join(IMPLS), help=f"comma-separated, from {IMPLS}")
    ap.add_argument("--what", default="train,infer", help=f"comma-separated, from {WHATS} (eval: infer after net.eval())")
    ap.add_argument("--warm", type=int, default=3)
    ap.add_argument("--rep", type=int, default=15)
    ap.add_argument("--channels-last", action="store_true",
                    help="the network and its input in torch.channels_last (every impl; Inductor may pick it anyway)")
    ap.add_argument("--kernels", action="store_true", help="keep the generated sources of flexsn_compile")
    ap.add_argument("--template", action="store_true",
                    help="compiled impls lower FlexSN's inference scans to Inductor templates "
                         "(flexsn_hop.enable_template_lowering, experimental; training graphs are not lowered)")
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    args.what = args.what.split(",")
    if any(w not in WHATS for w in args.what):
        raise SystemExit(f"unknown --what {args.what}; choose from {WHATS}")
    if not torch.cuda.is_available():
        raise SystemExit("bench_net.py needs a CUDA device")
    dev = torch.device("cuda")
    if args.template:
        import flexsn_hop

        if not flexsn_hop.enable_template_lowering(True):
            raise SystemExit("--template: the template lowering could not be registered with this Inductor")
    make = makers()
    impls = [i for i in args.impls.split(",") if i]
    unknown = [i for i in impls if i not in IMPLS]
    if unknown:
        raise SystemExit(f"unknown --impls {unknown}; choose from {IMPLS}")
    for impl in impls:
        if impl == "sj_lif" and "sj" not in make:
            log(case="net_skip", impl=impl, why="SpikingJelly is not importable")
            continue
        bench(impl, make, args, dev)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "net.json").write_text(json.dumps(ROWS, indent=1))
    print(table())


if __name__ == "__main__":
    main()
