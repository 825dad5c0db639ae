"""The ``flexsn`` console command: ``flexsn explain module:target`` (see :func:`flexsn_nn.explain`).

Examples::

    flexsn explain my_neurons:lif --num-inputs 1 --num-states 1 --num-outputs 1
    flexsn explain my_neurons:lif --num-states 1      # SpikingJelly 2.0's form: the other counts found
    flexsn explain my_net:model.sn1                    # a built neuron: its own counts and static inputs
    flexsn explain flexsn_nn:ParametricLIFNode         # a neuron class: built with its defaults
    flexsn explain my_net:model                        # a network: each of its neurons (explain_network)

prints whether the core runs fused, the op and line that stop it and what to
write instead, the traced step, the kernel sources' cache paths and the
bytes a step moves. ``python -m flexsn_nn`` and ``python -m flexsn_nn.cli`` run the same command.

Exit status: 0 when the core lowers to the kernels (a network: every neuron, as set up), 1 when it does not (the
report says why), 2 for a target that cannot be loaded or explained (a message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Callable, Sequence

from .explain import explain, explain_network, is_network
from .module import FlexSN

__all__ = ["main"]

#: a core function given no count at all: the one-input, one-state, one-output neuron (the command's first form)
_DEFAULT_COUNTS = (1, 1, 1)


class TargetError(Exception):
    """A target that cannot be loaded or explained; its message is what the command prints."""


def _load(target: str) -> Any:
    """``module:attribute`` (``a.b:c.d`` walks attributes) -> the object.

    Raises:
        TargetError: not of that form, a module that does not import, or an attribute it does not have.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise TargetError(f"expected module:function (or module:neuron), got {target!r}")
    if "." not in sys.path:  # a module next to where the command runs, as python -m does (once: main may run again)
        sys.path.insert(0, ".")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r}: {exc} (run the command where the module lies, or set PYTHONPATH)") from exc
    walked = module_name
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise TargetError(f"{walked} has no attribute {part!r}")
        obj, walked = getattr(obj, part), f"{walked}.{part}"
    return obj


def _explain_target(obj: Any, args: argparse.Namespace) -> Any:
    """:func:`flexsn_nn.explain` of a core function, a built neuron, or a neuron class built with its defaults;
    :func:`flexsn_nn.explain_network` of a network holding neurons.

    Raises:
        TargetError: counts given for a neuron, an object that is neither, or what :func:`~flexsn_nn.explain`
            raises (a core that does not trace with the counts given, ...), with its message.
    """
    counts: tuple[int | None, int | None, int | None] = (args.num_inputs, args.num_states, args.num_outputs)
    if isinstance(obj, type) and issubclass(obj, FlexSN):
        build: Callable[[], Any] = obj  # a neuron class of the zoo: every argument has a default (FlexSN itself has not)
        try:
            obj = build()
        except (TypeError, ValueError) as exc:
            raise TargetError(f"{obj.__name__} cannot be built without arguments ({exc}); name a built neuron instead") from exc
    network = counts == (None, None, None) and is_network(obj)
    if isinstance(obj, FlexSN) or network:
        if counts != (None, None, None) or args.num_static:
            raise TargetError("a built neuron holds its own counts and static inputs: drop --num-inputs/--num-states/"
                              "--num-outputs/--num-static")
    elif not callable(obj):
        raise TargetError(f"expected a single-step core function or a FlexSN neuron, got {type(obj).__name__}")
    elif counts == (None, None, None):
        counts = _DEFAULT_COUNTS
    try:
        if network:
            return explain_network(obj, element_size=args.element_size)
        if isinstance(obj, FlexSN):
            return explain(obj, element_size=args.element_size)
        return explain(obj, *counts, num_static=args.num_static, element_size=args.element_size)
    except (TypeError, ValueError) as exc:
        raise TargetError(str(exc)) from exc


def _count(text: str) -> int:
    """An argparse type: a count of tensors, ``>= 0``."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count >= 0, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the command; returns the exit status (module docstring)."""
    parser = argparse.ArgumentParser(prog="flexsn", description="FlexSN developer commands")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("explain", help="why a core runs fused or not, and what it moves",
                        description="Explain how FlexSN runs a single-step core function, a built neuron or a neuron class.")
    ex.add_argument("target", help="module:function of the single-step core, or module:name of a FlexSN neuron (or "
                    "class), or of a network holding neurons")
    ex.add_argument("--num-inputs", type=_count, default=None, help="input sequences of the core (default 1)")
    ex.add_argument("--num-states", type=_count, default=None,
                    help="states of the core (default 1; alone: the other counts found, as SpikingJelly 2.0's FlexSN does)")
    ex.add_argument("--num-outputs", type=_count, default=None, help="outputs of the core (default 1)")
    ex.add_argument("--num-static", type=_count, default=0, help="static inputs after the states")
    ex.add_argument("--element-size", type=int, choices=(2, 4), default=4, help="bytes per element (4: fp32, 2: bf16/fp16)")
    args = parser.parse_args(argv)
    try:
        report = _explain_target(_load(args.target), args)
    except TargetError as exc:
        print(f"flexsn explain: {exc}", file=sys.stderr)
        return 2
    print(report)
    return 0 if report.lowers else 1


if __name__ == "__main__":
    raise SystemExit(main())
