"""Every environment variable FlexSN reads: its name, default and meaning, in one place.

Each package reads its settings through :func:`env_flag` / :func:`env_value`
at call time (never at import), so a variable set after import takes effect
at the next call that consults it. Booleans follow one rule everywhere:
``1``, ``true``, ``yes``, ``on`` (any case, surrounding spaces ignored) mean
true; ``0``, ``false``, ``no``, ``off`` mean false; unset or empty means the
default; anything else warns once and means the default.

The README's table of environment variables is :func:`markdown_table`'s
output (a test keeps the two equal).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Literal

__all__ = ["ENV_VARS", "EnvVar", "env_flag", "env_value", "markdown_table"]

_TRUE = frozenset(("1", "true", "yes", "on"))
_FALSE = frozenset(("0", "false", "no", "off"))


@dataclass(frozen=True)
class EnvVar:
    """One environment variable.

    Attributes:
        name: the variable's name.
        kind: ``"flag"`` (a boolean, read by :func:`env_flag`) or ``"path"``
            (a string, read by :func:`env_value`).
        default: the value used when it is unset (``"1"`` / ``"0"`` for flags,
            ``""`` for "no value").
        meaning: one sentence for the README table.
    """

    name: str
    kind: Literal["flag", "path"]
    default: str
    meaning: str


#: Every variable FlexSN reads, in README order.
ENV_VARS: tuple[EnvVar, ...] = (
    EnvVar(
        "FLEXSN_CACHE_DIR",
        "path",
        "",
        "where generated kernel sources and traced kernels are cached (default `$XDG_CACHE_HOME/flexsn`, "
        "else `~/.cache/flexsn`)",
    ),
    EnvVar("XDG_CACHE_HOME", "path", "", "the base of the default cache directory when `FLEXSN_CACHE_DIR` is unset"),
    EnvVar(
        "TRITON_INTERPRET",
        "flag",
        "0",
        "Triton's own switch: run the kernels in Triton's CPU interpreter (on CPU tensors); unset on CUDA",
    ),
    EnvVar(
        "FLEXSN_TRACE_CACHE",
        "flag",
        "1",
        "`0`: do not reuse traced kernels across processes (every construction traces the core again)",
    ),
    EnvVar(
        "FLEXSN_HOP_FUSED",
        "flag",
        "1",
        "`0`: `flex_sn_scan` stays on the eager / unrolled loop instead of the fused kernels "
        "(`flexsn_hop.enable_fused_kernels(False)` does the same and takes precedence)",
    ),
    EnvVar(
        "FLEXSN_FUSE_NEIGHBOURS",
        "flag",
        "1",
        "`0`: under `torch.compile` (Inductor), pointwise ops that feed a FlexSN scan (BatchNorm's "
        "normalisation, scaling, bias, residual adds) are never absorbed into its step (by default they are where "
        "Inductor captures CUDA graphs; `flexsn_hop.enable_neighbour_fusion(True)` always; read when a graph is compiled)",
    ),
    EnvVar(
        "FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP",
        "flag",
        "0",
        '`backend="hop"`: calls that need no gradient run through `lowerable_while_loop_scan` '
        "(PyTorch's `while_loop` operator; wins over the next one when both are set)",
    ),
    EnvVar(
        "FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_SCAN",
        "flag",
        "0",
        '`backend="hop"`: calls that need no gradient run through `lowerable_scan` (PyTorch\'s `scan` operator)',
    ),
    EnvVar(
        "FLEXSN_DIRECT_LAUNCH",
        "flag",
        "1",
        "`0`: every CUDA launch goes through Triton's `JITFunction` instead of the cached launcher of its "
        "specialisation (for debugging; costs about 5-10 µs per launch)",
    ),
    EnvVar(
        "FLEXSN_PREWARM",
        "flag",
        "1",
        "`0`: a CUDA training call's first backward kernel is compiled when the backward runs, not on a "
        "background thread while the first forward compiles (`flexsn_runtime.prewarm`; first-step time only)",
    ),
    EnvVar(
        "FLEXSN_CARRIER",
        "flag",
        "1",
        "`0` (experiments): training kernels traced afterwards never save one float32 carrier in place of "
        "several sequences (`flexsn_trace.carrier`; bf16/fp16 calls never use it, they run the pair traced "
        "without it; where the steps are recomputed, `flexsn_trace.recompute`, no carrier is saved either); with "
        "`FLEXSN_RECOMPUTE=0` slower for PLIF-like neurons on fp32 (part of the trace-cache key)",
    ),
    EnvVar(
        "FLEXSN_RECOMPUTE",
        "flag",
        "1",
        "`0` (experiments): training kernels traced afterwards save per-step values for the backward instead of "
        "storing the states every few steps and recomputing the steps between (`flexsn_trace.recompute`; "
        "part of the trace-cache key)",
    ),
    EnvVar(
        "FLEXSN_PREFETCH",
        "flag",
        "1",
        "`0` (experiments): kernels rendered afterwards do not prefetch step `t + 1`'s inputs "
        "(part of the trace-cache key)",
    ),
)

_BY_NAME = {v.name: v for v in ENV_VARS}
_warned: set[tuple[str, str]] = set()


def _declared(name: str, kind: str) -> EnvVar:
    var = _BY_NAME.get(name)
    if var is None or var.kind != kind:
        raise KeyError(f"{name!r} is not a declared FlexSN {kind} variable (flexsn_trace.env.ENV_VARS)")
    return var


def env_flag(name: str) -> bool:
    """The boolean value of the declared flag ``name`` under the module's one rule.

    Raises:
        KeyError: ``name`` is not declared in :data:`ENV_VARS` as a flag.
    """
    var = _declared(name, "flag")
    raw = os.environ.get(name, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    if raw and (name, raw) not in _warned:
        _warned.add((name, raw))
        warnings.warn(
            f"FlexSN: {name}={raw!r} is not one of 1/true/yes/on or 0/false/no/off; using the default "
            f"{var.default}",
            RuntimeWarning,
            stacklevel=2,
        )
    return var.default in _TRUE


def env_value(name: str) -> str | None:
    """The string value of the declared path variable ``name``; ``None`` when unset or empty.

    Raises:
        KeyError: ``name`` is not declared in :data:`ENV_VARS` as a path.
    """
    _declared(name, "path")
    return os.environ.get(name) or None


def markdown_table() -> str:
    """README's table of environment variables, generated from :data:`ENV_VARS`."""
    rows = ["| variable | default | effect |", "| --- | --- | --- |"]
    for v in ENV_VARS:
        default = f"`{v.default}`" if v.default else "unset"
        rows.append(f"| `{v.name}` | {default} | {v.meaning} |")
    return "\n".join(rows)
