#!/usr/bin/env python3
"""``tools/bench.py``'s report: the tables printed at the end, the plot, the progress line.

Split from ``tools/bench.py``. The tables and the plot read a run's results
(:class:`bench_measure.Bench`); the compact ones come last in stdout, which is what the GPU
runner returns.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Iterator

from bench_measure import RATIO_TARGETS, Bench, evaluate_targets
from plotting import pyplot


def _fmt_ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.4g}"


def cell(r: dict[str, Any] | None, compact: bool) -> str:
    """One measurement as a table cell: ``ratio@ms`` (``compact``) or ``ms ratio``; ``!`` marks an eager fallback."""
    if r is None:
        return "-"
    if r["status"] != "ok":
        return "cut" if r["status"] == "running" else str(r["status"])
    ratio = r.get("copy_ratio")
    rs = "-" if ratio is None else (f"{ratio:.2f}" if ratio >= 0.01 else f"{ratio:.1e}")
    flag = "!" if "FALLBACK" in r.get("note", "") else ""
    if compact:
        return f"{rs}@{_fmt_ms(r['ms'])}{flag}"
    return f"{_fmt_ms(r['ms']):>8} ms {rs:>7}{flag}"


def _rows(b: Bench) -> Iterator[tuple[str, str, int]]:
    for case in b.opts.cases:
        for d in b.opts.dtypes:
            for T in b.opts.T:
                yield case, d, T


def results_table(b: Bench, compact: bool) -> str:
    """The results table (``compact``: one short line per case/dtype/T, ``ratio@ms``)."""
    impls = [i for i in b.opts.impls if i != "clone"]
    lines: list[str] = []
    if compact:
        w = 15
        short = {"lif-inference": "lif-inf", "lif-training": "lif-train", "2x2-inference": "2x2-inf", "2x2-training": "2x2-train"}
        lines.append("COMPACT copy ratio @ ms  (ratio = clone ms / impl ms; ! = eager fallback)")
        lines.append(f"{'case':<9} {'dt':<4} {'T':>3} {'clone ms':>8} | " + " | ".join(f"{i:<{w}}" for i in impls))
        for case, d, T in _rows(b):
            cells = [cell(b.find(case, d, T, i), True) for i in impls]
            lines.append(f"{short.get(case, case):<9} {d:<4} {T:>3} {_fmt_ms(b.clone_ms.get((d, T))):>8} | " + " | ".join(f"{c:<{w}}" for c in cells))
        return "\n".join(lines)
    w = 20
    lines.append(f"{'case':<14} {'dtype':<5} {'T':>4} {'clone ms':>9} | " + " | ".join(f"{i + ' ms / ratio':>{w}}" for i in impls))
    for case, d, T in _rows(b):
        cells = [cell(b.find(case, d, T, i), False) for i in impls]
        lines.append(f"{case:<14} {d:<5} {T:>4} {_fmt_ms(b.clone_ms.get((d, T))):>9} | " + " | ".join(f"{c:>{w}}" for c in cells))
    apis = b.meta.get("triton_api")
    if apis:
        lines.append("triton impl: " + ", ".join(f"{k} via {v}" for k, v in apis.items()) + f"; surrogate: {b.meta.get('surrogate')}")
    notes = [r for r in b.results if r.get("note")]
    if notes:
        lines.append("notes:")
        for r in notes:
            lines.append(f"  {r['case']} {r['dtype']} T={r['T']} {r['impl']}: {r['status']}: {r['note']}")
    return "\n".join(lines)


def memory_table(b: Bench) -> str:
    """Training memory per impl (CUDA only), in [T, NCL] units."""
    rows = [r for r in b.results if r.get("memory")]
    if not rows:
        return "memory: not measured (needs CUDA)"
    lines = ["MEMORY of one training step in [T, NCL] tensors (inputs, output grads excluded; saved = held after "
             "forward - outputs - final states, target <= states; ideal peak = outputs + states + input grads)",
             f"{'case':<13} {'dt':<4} {'T':>3} {'impl':<8} {'saved':>6} {'held@fwd':>8} {'peak':>6} {'ideal':>5} {'io':>3} {'states':>6}"]
    for r in sorted(rows, key=lambda r: (r["case"], r["dtype"], r["T"], r["impl"])):
        m = r["memory"]
        lines.append(f"{r['case']:<13} {r['dtype']:<4} {r['T']:>3} {r['impl']:<8} {m['saved_units']:>6.2f} "
                     f"{m['held_after_forward_units']:>8.2f} {m['peak_units']:>6.2f} {m['ideal_peak_units']:>5} {m['io_tensors']:>3} {m['state_seqs']:>6}")
    return "\n".join(lines)


def compact_memory(b: Bench) -> str:
    """One line per training case and dtype: the triton impl's saved/peak units per T (CUDA only)."""
    lines: list[str] = []
    for case in b.opts.cases:
        if not case.endswith("training"):
            continue
        for d in b.opts.dtypes:
            cells = []
            for T in b.opts.T:
                r = b.find(case, d, T, "triton")
                m = (r or {}).get("memory")
                if m:
                    cells.append(f"T{T} {m['saved_units']:.2f}/{m['peak_units']:.2f}")
            if cells:
                lines.append(f"{case:<13} {d:<4} " + "  ".join(cells))
    if not lines:
        return "MEM triton: not measured (needs CUDA)"
    return "MEM triton saved/peak in [T,NCL] units (target saved <= states: lif 1, 2x2 2)\n" + "\n".join(lines)


def startup_table(b: Bench) -> str:
    """Cold/warm construction-to-first-result per neuron."""
    if not b.startup:
        return "startup: not measured (--no-startup)"
    lines = ["STARTUP construction-to-first-result (fresh process; import and first training step shown apart)",
             f"{'neuron':<6} {'run':<5} {'first':>7} {'construct':>9} {'import':>7} {'train1':>7} {'proc':>6}  api"]
    for name, s in b.startup.items():
        for label in ("cold", "warm"):
            e = s.get(label, {})
            if "error" in e:
                lines.append(f"{name:<6} {label:<5} ERROR {e['error']}")
                continue
            lines.append(f"{name:<6} {label:<5} {e.get('first_result_s', 0):>7.2f} {e.get('construct_s', 0):>9.2f} "
                         f"{e.get('import_s', 0):>7.2f} {e.get('first_training_step_s', 0):>7.2f} {e.get('process_wall_s', 0):>6.1f}  "
                         f"{e.get('api', '')}{'' if e.get('uses_kernels', True) else ' (EAGER FALLBACK)'}")
    return "\n".join(lines)


def targets_table(b: Bench) -> str:
    """The compact PASS/FAIL targets table."""
    lines = ["TARGETS (triton impl)"]
    for t in evaluate_targets(b):
        v = t["value"]
        vs = "-" if v is None else f"{v:.3g}"
        lines.append(f"{t['status']:<4} {t['target']:<40} {vs}")
    return "\n".join(lines)


def plot(b: Bench) -> Path | None:
    """Copy ratio vs T, one panel per case, one line per impl and dtype; writes ``bench.png``."""
    plt = pyplot()
    if plt is None:
        return None
    cases = b.opts.cases
    ncols = 2 if len(cases) > 1 else 1
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.4 * ncols, 4.2 * nrows), squeeze=False)
    colors = {"triton": "tab:red", "torch": "tab:blue", "compile": "tab:green", "clone": "black"}
    styles = {"fp32": "-", "bf16": "--"}
    markers = {"fp32": "o", "bf16": "s"}
    legend: dict[str, Any] = {}
    for ax, case in zip(axes.flat, cases):
        if any(b.find(case, d, T, "clone") for d in b.opts.dtypes for T in b.opts.T):
            legend.setdefault("clone (= 1)", ax.axhline(1.0, color="black", linewidth=1.0))
        for impl in b.opts.impls:
            if impl == "clone":
                continue
            for d in b.opts.dtypes:
                pts = [(T, r["copy_ratio"]) for T in b.opts.T if (r := b.find(case, d, T, impl)) and r.get("copy_ratio")]
                if pts:
                    xs, ys = zip(*pts)
                    (line,) = ax.plot(xs, ys, marker=markers.get(d, "^"), color=colors.get(impl), linestyle=styles.get(d, ":"))
                    legend.setdefault(f"{impl} {d}", line)
        for tc, T, lim in RATIO_TARGETS:
            if tc == case and T in b.opts.T:
                legend.setdefault("target", ax.scatter([T], [lim], marker="_", s=400, color="tab:red", zorder=5))
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_xticks(list(b.opts.T))
        ax.set_xticklabels([str(T) for T in b.opts.T])
        ax.set_title(f"{case}  (NCL={b.opts.ncl:,}, {b.meta.get('device_name', '')})", fontsize=9)
        ax.set_xlabel("T")
        ax.set_ylabel("copy ratio (clone ms / impl ms)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    fig.suptitle("FlexSN benchmark: copy ratio vs T (higher is better; 1 = copy bandwidth)", fontsize=10)
    fig.tight_layout(rect=(0.0, 0.06, 1.0, 1.0))
    if legend:
        fig.legend(list(legend.values()), list(legend.keys()), loc="lower center", ncol=min(len(legend), 8), fontsize=8)
    path = b.opts.out / "bench.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


class Progress:
    """tqdm when installed and stderr is a terminal, else one printed line per step."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.n, self.desc = total, 0, desc
        self.bar: Any = None
        if sys.stderr.isatty():  # a captured log gets plain lines, not carriage-return redraws
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)
            except Exception:
                self.bar = None

    def step(self, label: str, result: str = "") -> None:
        """Mark one item done."""
        self.n += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{label} {result}", refresh=False)
            self.bar.update(1)
        else:
            print(f"[{self.desc} {self.n}/{self.total}] {label} {result}", flush=True)

    def close(self) -> None:
        """Finish the bar."""
        if self.bar is not None:
            self.bar.close()
