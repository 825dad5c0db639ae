#!/usr/bin/env python3
"""FlexSN benchmark: our Triton scan next to the torch loop, ``torch.compile`` and ``x.clone()``.

One process, one device. For a LIF neuron (1 input, 1 state, 1 output) and
an adaptive-threshold LIF with 2 inputs, 2 states and 2 outputs ("2x2"),
each in inference and training (forward + backward with random output
gradients), over ``T`` and dtypes, it times:

* ``triton``  -- FlexSN's generated kernels (``flexsn_nn.FlexSN`` when that
  layer is importable and passes a numerical check, else
  ``flexsn_runtime.FlexSNKernel``), final states only (no state sequences);
* ``torch``   -- the eager Python loop over ``T`` calling the same core;
* ``compile`` -- ``torch.compile`` of that loop (one compile per case);
* ``clone``   -- ``x.clone()`` of one ``[T, NCL]`` input: the bandwidth
  floor (read once, write once).

The copy ratio of an impl is ``time(x.clone()) / time(impl)`` in the same
dtype and ``T``; 1.0 for LIF inference means copy bandwidth.

Also measured: construction-to-first-result time in fresh processes (cold:
empty ``FLEXSN_CACHE_DIR`` and ``TRITON_CACHE_DIR``; warm: the same folders
again), and, on CUDA, the memory one training step holds (in units of one
``[T, NCL]`` tensor).

Results go to ``--out``: ``bench.json`` (rewritten after every measurement,
so a run cut short keeps what it had) and ``bench.png``. The last lines of
stdout are a compact results table and a PASS/FAIL targets table.

GPU::

    PYTHONPATH=$(ls -d packages/*/src | tr '\\n' ':') python3 tools/bench.py --out OUT

A run keeps to ``--budget-s`` (measurements that would overrun it are
skipped, ``torch.compile`` ones last and first to go) and stops at
``--deadline-s`` in any case, reporting what it has. Where compile
measurements get skipped, measure them in a second command:
``--impls compile clone --no-startup``.

CPU (Triton interpreter, tiny)::

    TRITON_INTERPRET=1 python3 tools/bench.py --out OUT --ncl 300 --T 4 \\
        --dtypes fp32 --impls triton torch clone --warmup 0 --rep 1
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import torch

# the parts live beside this script, one concern each (measurement, neurons, report, startup)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_measure import CASES, DTYPES, IMPLS, Bench, Options, check_numerics, measure, stopping  # noqa: E402
from bench_neurons import NEURONS, case_parts, set_surrogate  # noqa: E402
from bench_report import (  # noqa: E402
    Progress, cell, compact_memory, memory_table, plot, results_table, startup_table, targets_table,
)
from bench_startup import measure_startup  # noqa: E402

DEFAULT_T = (4, 8, 32, 128)
QUICK_T = (8, 32)
DEFAULT_NCL = 4_194_304


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Parse the command line into :class:`Options`."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--T", type=int, nargs="+", default=None, help="time steps (default 4 8 32 128; --quick: 8 32)")
    p.add_argument("--ncl", type=int, default=DEFAULT_NCL, help="elements per time step (default 4194304)")
    p.add_argument("--dtypes", nargs="+", choices=sorted(DTYPES), default=["fp32", "bf16"])
    p.add_argument("--impls", nargs="+", choices=IMPLS, default=list(IMPLS))
    p.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    p.add_argument("--warmup", type=int, default=None, help="warm-up ms per measurement (default 25; --quick 5)")
    p.add_argument("--rep", type=int, default=None, help="timed ms per measurement (default 100; --quick 25)")
    p.add_argument("--out", type=Path, required=True, help="folder for bench.json and bench.png")
    p.add_argument("--no-startup", action="store_true", help="skip the fresh-process startup measurements")
    p.add_argument("--quick", action="store_true", help="T 8 32 and shorter timing unless given")
    p.add_argument("--max-gb", type=float, default=None, help="skip a measurement whose memory estimate exceeds this (default 85%% of the GPU, 8 on CPU)")
    p.add_argument("--budget-s", type=float, default=480.0, help="wall-clock budget; measurements that would exceed it (compile runs last) are skipped (default 480)")
    p.add_argument("--deadline-s", type=float, default=555.0,
                   help="hard stop: report what was measured and exit at this many seconds (0: never; default 555)")
    p.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    p.add_argument("--api", choices=["auto", "nn", "kernel"], default="auto", help="triton impl through flexsn_nn.FlexSN (auto: when it works) or FlexSNKernel")
    p.add_argument("--surrogate", choices=["auto", "nn", "own"], default="auto", help="spike surrogate: flexsn_nn.surrogate.Sigmoid or the built-in one")
    p.add_argument("--rotate-mb", type=float, default=512.0, help="rotate up to 3 input sets while they fit in this many MB (default 512)")
    p.add_argument("--startup-timeout-s", type=float, default=120.0, help="limit for each fresh startup process")
    p.add_argument("--startup-neurons", nargs="+", choices=sorted(NEURONS), default=None,
                   help="neurons whose startup is measured (default: those of --cases)")
    a = p.parse_args(argv)
    device = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if a.max_gb is None:
        a.max_gb = torch.cuda.get_device_properties(device).total_memory * 0.85 / 2**30 if device.type == "cuda" else 8.0
    T = a.T or list(QUICK_T if a.quick else DEFAULT_T)
    warmup = a.warmup if a.warmup is not None else (5 if a.quick else 25)
    rep = a.rep if a.rep is not None else (25 if a.quick else 100)
    return Options(T=sorted(set(T)), ncl=a.ncl, dtypes=a.dtypes, impls=a.impls, cases=a.cases, warmup=warmup, rep=rep,
                   out=a.out, startup=not a.no_startup, max_gb=a.max_gb, budget_s=a.budget_s, device=device,
                   api=a.api, surrogate=a.surrogate, rotate_mb=a.rotate_mb, startup_timeout_s=a.startup_timeout_s,
                   deadline_s=a.deadline_s, startup_neurons=a.startup_neurons or list(dict.fromkeys(case_parts(c)[0].name for c in a.cases)))


def _meta(opts: Options) -> dict[str, Any]:
    import triton

    dev = opts.device
    return {
        "argv": sys.argv,
        "device": str(dev),
        "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "triton_interpret": os.environ.get("TRITON_INTERPRET", ""),
        "ncl": opts.ncl, "T": opts.T, "dtypes": opts.dtypes, "impls": opts.impls, "cases": opts.cases,
        "warmup_ms": opts.warmup, "rep_ms": opts.rep, "max_gb": opts.max_gb, "budget_s": opts.budget_s,
        "timer": "triton.testing.do_bench median (CUDA events)" if dev.type == "cuda" else "time.perf_counter median",
        "copy_ratio": "clone ms of one [T, NCL] input in that dtype / impl ms",
        "triton_impl": "final states only (store_state_seqs=False); training = forward + backward of output seqs with random grads",
        "startup": "fresh python -c process; cold = empty FLEXSN_CACHE_DIR and TRITON_CACHE_DIR (Triton driver stubs "
                   "built by a no-op kernel before timing), warm = both reused; "
                   "first_result_s = construction start to first inference result (CUDA context excluded)",
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (0 even when targets fail)."""
    opts = parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    if opts.device.type == "cpu" and os.environ.get("TRITON_INTERPRET", "0") in ("", "0"):
        print("note: CPU without TRITON_INTERPRET=1: the triton impl runs FlexSN's eager fallback", flush=True)
    meta = _meta(opts)
    meta["surrogate"] = set_surrogate(opts.surrogate)
    b = Bench(opts, meta)
    _install_stoppers(b)
    print(f"FlexSN bench on {meta['device_name']} ({opts.device}), torch {meta['torch']}, triton {meta['triton']}, "
          f"NCL={opts.ncl:,}, T={opts.T}, dtypes={opts.dtypes}, surrogate={meta['surrogate']}", flush=True)

    # 1. Startup first: the fresh processes get the GPU before this one allocates on it.
    if opts.startup and "triton" in opts.impls:
        for name in opts.startup_neurons:
            print(f"startup: {name} (cold, warm) ...", flush=True)
            b.startup[name] = measure_startup(b, name)
            b.save()
        print(startup_table(b), flush=True)

    # 2. Everything but compile, then compile (slowest to set up; first to go when the budget runs out).
    plan = [(c, d, T, i) for c in opts.cases for d in opts.dtypes for T in opts.T for i in opts.impls if i != "compile"]
    if "compile" in opts.impls:
        plan += [(c, d, T, "compile") for T in opts.T for c in opts.cases for d in opts.dtypes]
    prog = Progress(len(plan), "bench")
    checked: set[tuple[str, str]] = set()
    try:
        for case, d, T, impl in plan:
            _park_if_stopping()
            neuron, _ = case_parts(case)
            if impl == "triton" and (neuron.name, d) not in checked:
                checked.add((neuron.name, d))
                check_numerics(b, neuron, d)
            r = measure(b, case, d, T, impl)
            b.save()
            prog.step(f"{case} {d} T={T} {impl}", cell(r, True))
            if r["status"] not in ("ok",):
                print(f"  {case} {d} T={T} {impl}: {r['status']} {r['note']}", flush=True)
    except BaseException as exc:
        prog.close()
        finish(b, f"{type(exc).__name__}")
        raise
    prog.close()
    finish(b)
    return 0


_FINISH_LOCK = threading.Lock()
_finished = False


def _park_if_stopping() -> None:
    """Once an early stop has begun, the main thread waits here for the process to exit."""
    while stopping.is_set() and threading.current_thread() is threading.main_thread():
        time.sleep(3600)


def finish(b: Bench, why: str = "") -> None:
    """Save JSON and PNG, then print the tables (compact ones last); runs once per process.

    Called at the normal end, or early (``why``) by the ``--deadline-s``
    watchdog or on SIGTERM, in which case an unfinished measurement is
    marked ``cut``.
    """
    global _finished
    if why:
        stopping.set()
    with _FINISH_LOCK:
        if _finished:
            return
        _finished = True
        for r in list(b.results):
            if r["status"] == "running":
                r.update(status="cut", note=f"run stopped early: {why}")
        if why:
            print(f"\nSTOPPING EARLY ({why}) after {b.elapsed():.0f} s; reporting what was measured", flush=True)
        png: Path | None = None
        try:
            b.save(final=True)
            png = plot(b)
        except Exception as exc:  # noqa: BLE001 - still print the tables
            print(f"note: could not write results ({type(exc).__name__}: {exc})", flush=True)
        opts = b.opts
        print()
        print(results_table(b, compact=False))
        print()
        print(memory_table(b))
        print()
        print(startup_table(b))
        print()
        print(f"wrote {opts.out / 'bench.json'}" + (f" and {png}" if png else "") + f" in {b.elapsed():.0f} s")
        print()
        print(results_table(b, compact=True))
        print(compact_memory(b))
        print()
        print(targets_table(b), flush=True)
        sys.stderr.flush()


def _install_stoppers(b: Bench) -> None:
    """Report and exit at ``--deadline-s`` (watchdog thread) or on SIGTERM, whatever is running."""

    def stop(why: str) -> None:
        try:
            finish(b, why)
        finally:
            os._exit(0)

    if b.opts.deadline_s > 0:
        timer = threading.Timer(max(0.0, b.opts.deadline_s - b.elapsed()), stop, args=(f"--deadline-s {b.opts.deadline_s:.0f}",))
        timer.daemon = True
        timer.start()
    try:
        signal.signal(signal.SIGTERM, lambda signum, frame: stop("SIGTERM"))
    except ValueError:  # not the main thread (e.g. imported and called from a worker)
        pass


if __name__ == "__main__":
    sys.exit(main())
