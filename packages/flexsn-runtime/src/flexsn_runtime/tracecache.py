"""Reuse traced kernels across processes: a fingerprint of the core -> kernel sources.

Tracing a core dominates start-up; :func:`~flexsn_runtime.fingerprint.core_fingerprint`
names what a trace would produce (``None``: the core is traced as usual).

Entries are JSON files next to the generated sources in ``cache_dir()``,
written atomically, one per part of a build: ``"inference"`` (traced when
the kernel is built) and ``"training"`` (traced on the first call that
needs gradients, so a process that only infers never pays for it).
``FLEXSN_TRACE_CACHE=0`` turns the cache off.

An entry also names the versions it was written under (torch, Triton, FlexSN's
build sources): :func:`key_by_prefix` finds an entry from a kernel handle's
fingerprint prefix alone (a program saved by ``torch.export.save``, loaded in
a process that built no neuron), and takes only an entry these versions wrote.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import torch

from flexsn_codegen import atomic_write, cache_dir
from flexsn_trace import FlexSNInfo, SavedSource
from flexsn_trace.env import env_flag

from .fingerprint import build_sources, build_versions, core_fingerprint

__all__ = [
    "BUILD_KERNELS", "BUILD_PARTS", "build_sources", "build_versions", "core_fingerprint", "decode_entry", "key_by_prefix",
    "load_build", "read_entry", "store_build",
]


def _path(key: str, part: str) -> Path:
    if part not in BUILD_PARTS:
        raise ValueError(f"a trace-cache part is one of {sorted(BUILD_PARTS)}, got {part!r}")
    return cache_dir() / (f"trace_{key[:40]}.json" if part == "inference" else f"trace_{key[:40]}.{part}.json")


def _info_to_json(info: FlexSNInfo | None) -> Any:
    if info is None:
        return None
    d = info._asdict()
    d["saved_sources"] = [list(s) for s in info.saved_sources]
    return d


def _info_from_json(d: Any) -> FlexSNInfo | None:
    if d is None:
        return None
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    fields["saved_sources"] = tuple(SavedSource(str(k), int(i)) for k, i in d["saved_sources"])  # type: ignore[arg-type]
    fields["reaches"] = tuple(tuple(int(a) for a in r) for r in d.get("reaches", ()))
    return FlexSNInfo(**fields)


_TRAINING = ("forward", "forward_final_state", "backward", "backward_final_state")
#: part -> (the kernels it holds, each ``[source, function name]`` or ``None``; its reason field; its info
#: fields). ``half_*``: the pair for 16-bit sequences when it differs (``FlexSNKernelHandle.half_training``).
BUILD_PARTS: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "inference": (("inference", "inference_final_state"), "unsupported", ("inference_info",)),
    "training": ((*_TRAINING, *(f"half_{k}" for k in _TRAINING)), "training_unsupported", ("training_info", "half_training_info")),
}
#: every kernel of a build, inference part first
BUILD_KERNELS = tuple(name for kernels, _, _ in BUILD_PARTS.values() for name in kernels)
#: the kernels an entry written before formats held (no half_* pair yet)
_PRE_FORMAT_KERNELS = ("inference", "inference_final_state", *_TRAINING)
_FORMAT = 8  # entries of another format are rebuilt quietly (an upgrade, not damage)
_WARNED: set[str] = set()


def store_build(key: str, build: dict[str, Any], part: str = "inference") -> None:
    """Persist one part of a build (kernel sources and infos, see :data:`BUILD_PARTS`) under ``key``; errors are ignored (a cache)."""
    data: dict[str, Any] = {"format": _FORMAT, "key": key, "part": part, "versions": build_versions()}
    for name, value in build.items():
        if isinstance(value, FlexSNInfo) or (value is None and name.endswith("info")):
            data[name] = _info_to_json(value)
        else:
            data[name] = value
    try:
        atomic_write(_path(key, part), json.dumps(data))
    except OSError:
        pass


def decode_entry(data: Any, key: str, part: str) -> dict[str, Any] | None:
    """The build part in a decoded entry (JSON as :func:`store_build` writes it); ``None`` for another format.

    Also how a saved program's carried entries are read (:mod:`flexsn_runtime.programs`).

    Raises:
        ValueError: a damaged entry (wrong structure, or another key or part).
    """
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}")
    kernels, reason, infos = BUILD_PARTS[part]
    if data.get("format") != _FORMAT:
        old = "format" not in data and all(name in data for name in _PRE_FORMAT_KERNELS)
        if isinstance(data.get("format"), int) or old:
            return None
        raise ValueError("it has no kernel entries")
    if data.get("key") != key or data.get("part") != part:
        raise ValueError("it belongs to another key or part")
    build: dict[str, Any] = {}
    for name in kernels:
        entry = data[name]
        if entry is not None and not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry)):
            raise ValueError(f"{name!r} is not [source, name] or null")
        build[name] = entry
    if not (data[reason] is None or isinstance(data[reason], str)):
        raise ValueError(f"{reason!r} is not a string or null")
    build[reason] = data[reason]
    for info in infos:
        build[info] = _info_from_json(data[info])
    if part == "inference":
        dtypes = data["output_dtypes"]
        if dtypes is not None and not (
            isinstance(dtypes, list) and all(d is None or isinstance(getattr(torch, str(d), None), torch.dtype) for d in dtypes)
        ):
            raise ValueError("'output_dtypes' is not a list of torch dtype names")
        build["output_dtypes"] = dtypes
    return build


def load_build(key: str, part: str = "inference") -> dict[str, Any] | None:
    """The build part stored under ``key``, or ``None`` (missing, of an older format, or damaged).

    A damaged entry (not UTF-8, not JSON, wrong structure, key or part) is
    deleted and reported once with a ``RuntimeWarning``; the caller then
    traces again.
    """
    path = _path(key, part)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        return decode_entry(json.loads(raw.decode("utf-8")), key, part)
    except Exception as exc:  # noqa: BLE001 - whatever is wrong with it, it is rebuilt
        if str(path) not in _WARNED:
            _WARNED.add(str(path))
            warnings.warn(
                f"FlexSN: discarded a damaged trace-cache entry {path} ({type(exc).__name__}: {exc}); tracing again",
                RuntimeWarning,
                stacklevel=3,
            )
        try:
            path.unlink()
        except OSError:
            pass
        return None


def read_entry(key: str, part: str) -> dict[str, Any] | None:
    """The JSON object stored under ``key`` for ``part`` as written (unchecked), or ``None`` (missing or unreadable)."""
    try:
        data = json.loads(_path(key, part).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def key_by_prefix(prefix: str) -> str | None:
    """The key of the one inference entry whose key starts with hex ``prefix`` and that these versions wrote, or ``None``.

    ``None`` as well when two entries match (the prefix does not decide) or the cache is off. What a
    process that never built the neuron can learn from a kernel handle (:mod:`flexsn_runtime.registry`).
    """
    if not env_flag("FLEXSN_TRACE_CACHE") or not prefix or not all(c in "0123456789abcdef" for c in prefix):
        return None
    found: list[str] = []
    try:
        paths = sorted(cache_dir().glob(f"trace_{prefix}*.json"))
    except OSError:
        return None
    for path in paths:
        if path.name.count(".") != 1:  # trace_<key>.json only: a part's entry is trace_<key>.<part>.json
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        key = data.get("key") if isinstance(data, dict) else None
        if isinstance(key, str) and key.startswith(prefix) and data.get("versions") == build_versions() and data.get("part") == "inference":
            found.append(key)
    return found[0] if len(found) == 1 else None
