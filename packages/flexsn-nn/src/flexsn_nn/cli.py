"""The ``flexsn`` console command: ``flexsn explain module:function`` (see :func:`flexsn_nn.explain`).

Example::

    flexsn explain my_neurons:lif --num-inputs 1 --num-states 1 --num-outputs 1

prints whether the core runs fused, the op and line that stop it and what to
write instead, the traced step, the kernel sources' cache paths and the
bytes a step moves. ``python -m flexsn_nn.cli`` runs the same command.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Sequence

from .explain import explain

__all__ = ["main"]


def _load(target: str) -> Any:
    """``module:attribute`` (``a.b:c.d`` walks attributes) -> the object."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"flexsn explain: expected module:function, got {target!r}")
    sys.path.insert(0, ".")  # a module next to where the command runs, as python -m does
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the command; returns the exit status (0, or 1 when the core does not lower)."""
    parser = argparse.ArgumentParser(prog="flexsn", description="FlexSN developer commands")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("explain", help="why a core runs fused or not, and what it moves")
    ex.add_argument("target", help="module:function of the single-step core")
    ex.add_argument("--num-inputs", type=int, default=1)
    ex.add_argument("--num-states", type=int, default=1)
    ex.add_argument("--num-outputs", type=int, default=1)
    ex.add_argument("--num-static", type=int, default=0, help="static inputs after the states")
    ex.add_argument("--element-size", type=int, default=4, help="bytes per element (4: fp32, 2: bf16)")
    args = parser.parse_args(argv)
    core = _load(args.target)
    report = explain(core, args.num_inputs, args.num_states, args.num_outputs, num_static=args.num_static,
                     element_size=args.element_size)
    print(report)
    return 0 if report.lowers else 1


if __name__ == "__main__":
    raise SystemExit(main())
