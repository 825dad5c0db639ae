"""Exported programs that carry their FlexSN kernels: run a saved program on a machine that never built its neurons.

A program from ``torch.export.export`` names each FlexSN neuron's kernels by
handle (the ``flexsn::*`` ops' first argument, :mod:`flexsn_runtime.registry`).
Saved with plain ``torch.export.save``, it runs in a new process only where
the kernels can be found: neurons of the same trace built there, or this
machine's trace cache (:func:`flexsn_runtime.tracecache.key_by_prefix`).
:func:`save_program` also writes the trace-cache entries of every kernel the
program names into the saved file (one extra file, :data:`KERNELS_FILE`, through
``torch.export.save``'s ``extra_files``), and :func:`load_program` registers them
before the program runs, so the file runs by itself wherever the same torch,
Triton and FlexSN are installed: another machine, an emptied cache,
``FLEXSN_TRACE_CACHE=0`` at load time.

The carried entries are generated Triton source, which loading compiles and
runs. Like ``torch.export.load`` itself (pickle under the hood; PyTorch's
documentation: never load data from an untrusted source), load only files you
trust.
"""

from __future__ import annotations

import errno
import json
import os
from typing import IO, Any, Iterator, Union

import torch

from .kernel_build import bundle_from_builds
from .registry import bundle_of_fingerprint, ensure_training_kernels, fingerprint_prefix, lookup_flexsn_kernel_handle
from .tracecache import build_versions, decode_entry, key_by_prefix, read_entry

__all__ = ["KERNELS_FILE", "load_program", "program_handles", "save_program"]

#: the extra file of a saved program that holds its FlexSN kernels
KERNELS_FILE = "flexsn_kernels.json"
_FORMAT = 1
_TRAINING_OPS = ("training", "backward")
File = Union[str, "os.PathLike[str]", IO[bytes]]


def _graphs(module: torch.nn.Module) -> Iterator[torch.fx.Graph]:
    for sub in module.modules():  # the program's graph module and every subgraph (higher-order operators' bodies)
        graph = getattr(sub, "graph", None)
        if isinstance(graph, torch.fx.Graph):
            yield graph


def program_handles(program: torch.export.ExportedProgram) -> dict[int, bool]:
    """The FlexSN kernel handles ``program`` calls, each with whether a call needs the training kernels.

    Raises:
        TypeError: ``program`` is not a ``torch.export.ExportedProgram``.
    """
    if not isinstance(program, torch.export.ExportedProgram):
        raise TypeError(f"expected a torch.export.ExportedProgram, got {type(program).__name__}")
    handles: dict[int, bool] = {}
    for graph in _graphs(program.graph_module):
        for node in graph.nodes:
            target = node.target
            if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload) or target.namespace != "flexsn":
                continue
            handle = node.args[0] if node.args else node.kwargs.get("handle")
            if not isinstance(handle, int) or isinstance(handle, bool):
                raise TypeError(f"FlexSN op {target} in the program has handle {handle!r}; expected an int constant")
            handles[handle] = handles.get(handle, False) or target.__name__.split(".")[0] in _TRAINING_OPS  # "training.default"
    return handles


def _entries(handle: int, training: bool) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """The trace-cache key and entries (inference; training or ``None``) of ``handle``'s kernels, for saving."""
    prefix = fingerprint_prefix(handle)
    if prefix is None:
        raise ValueError(
            f"FlexSN kernel handle {handle} has no trace fingerprint (its neuron was built with FLEXSN_TRACE_CACHE=0, or its "
            "core closes over something the fingerprint cannot hash), so its kernels cannot be written with the program; "
            "build the neuron with the trace cache on, export again, or use torch.export.save and build the neurons where "
            "the program is loaded"
        )
    lookup_flexsn_kernel_handle(handle)  # raises the registry's error for a handle nothing here answers
    key = key_by_prefix(prefix)
    inference = read_entry(key, "inference") if key is not None else None
    if key is None or inference is None:
        raise ValueError(
            f"FlexSN's trace cache holds no entry for kernel handle {handle} (fingerprint {prefix}...): it was emptied, "
            "turned off (FLEXSN_TRACE_CACHE=0) or moved (FLEXSN_CACHE_DIR) since the neuron was built; build the neuron "
            "again in this process with the cache on, then save"
        )
    entry = read_entry(key, "training")
    if entry is None and training:
        ensure_training_kernels(handle)  # traced now and written to the cache (the program trains through this neuron)
        entry = read_entry(key, "training")
    return key, inference, entry


def save_program(program: torch.export.ExportedProgram, f: File, *, extra_files: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """``torch.export.save(program, f)`` with the FlexSN kernels the program calls written into the file.

    Args:
        program: from ``torch.export.export`` of a network with FlexSN neurons, in this process.
        f: a path or a writable binary file, as ``torch.export.save`` takes.
        extra_files: further extra files, as ``torch.export.save`` takes (the name :data:`KERNELS_FILE` is taken).
        kwargs: passed on to ``torch.export.save`` (``opset_version``, ``pickle_protocol``).

    Raises:
        TypeError: ``program`` is not an ``ExportedProgram``.
        ValueError: ``extra_files`` names :data:`KERNELS_FILE`; a handle has no trace fingerprint or no trace-cache
            entry (the message says which and what to do).
        RuntimeError: a handle no live neuron or cache entry answers.
    """
    handles = program_handles(program)
    extra = dict(extra_files or {})
    if KERNELS_FILE in extra:
        raise ValueError(f"extra_files may not name {KERNELS_FILE!r}: save_program writes the FlexSN kernels there")
    # layers of one trace (two LIFNode(tau=2.0) of a network) hold handles of one fingerprint: read its entries once
    by_trace: dict[str | None, tuple[int, bool]] = {}
    for handle, training in sorted(handles.items()):
        first, needed = by_trace.get(fingerprint_prefix(handle), (handle, False))
        by_trace[fingerprint_prefix(handle)] = (first, needed or training)
    entries: dict[str, dict[str, Any]] = {}
    for handle, training in by_trace.values():
        key, inference, train = _entries(handle, training)
        entries[key] = {"inference": inference, "training": train}
    extra[KERNELS_FILE] = json.dumps({"format": _FORMAT, "versions": build_versions(), "entries": entries})
    torch.export.save(program, f, extra_files=extra, **kwargs)


def _versions_differ(saved: object) -> str:
    names = ("torch", "Triton", "FlexSN's build sources")
    here = build_versions().split("|")
    there = str(saved).split("|")
    if len(there) != len(here):
        return f"recorded versions {saved!r} are not readable"
    return "; ".join(f"{n} {a!r} there, {b!r} here" for n, a, b in zip(names, there, here) if a != b)


def _register(payload: str) -> int:
    """Register the carried kernels no live neuron here answers; how many bundles were registered.

    Raises:
        ValueError: a damaged kernels file, or one written under other versions (named).
    """
    try:
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("entries"), dict):
            raise ValueError(f"expected an object of format {_FORMAT} with 'entries'")
    except ValueError as exc:
        raise ValueError(f"the program's FlexSN kernels ({KERNELS_FILE}) are damaged or of another format: {exc}") from None
    entries: dict[str, Any] = data["entries"]
    todo = [key for key in entries if not (isinstance(key, str) and len(key) >= 10 and bundle_of_fingerprint(key) is not None)]
    if todo and data.get("versions") != build_versions():
        raise ValueError(
            f"the program's FlexSN kernels were written under other versions ({_versions_differ(data.get('versions'))}); "
            "install the versions it was saved with, or build its neurons in this process first"
        )
    for key in todo:
        parts = entries[key]
        try:
            if not isinstance(parts, dict):
                raise ValueError("expected an object of parts")
            inference = decode_entry(parts.get("inference"), key, "inference")
            training = decode_entry(parts["training"], key, "training") if parts.get("training") is not None else None
            if inference is None:
                raise ValueError("an entry of another format")
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"the program's FlexSN kernels ({KERNELS_FILE}) hold a damaged entry {str(key)[:10]}...: {exc}") from None
        bundle_from_builds(key, inference, training)
    return len(todo)


def load_program(f: File, *, extra_files: dict[str, Any] | None = None, **kwargs: Any) -> torch.export.ExportedProgram:
    """``torch.export.load(f)``, with the FlexSN kernels :func:`save_program` wrote registered first.

    Kernels that a live neuron of the same trace already answers are left as they are. A file written by plain
    ``torch.export.save`` carries none; it loads as ``torch.export.load`` loads it.

    Args:
        f: a path or a readable binary file, as ``torch.export.load`` takes.
        extra_files: as ``torch.export.load`` takes: names to read, filled in place.
        kwargs: passed on to ``torch.export.load`` (``expected_opset_version``).

    Returns:
        The program; its FlexSN ops run the carried kernels.

    Raises:
        ValueError: the carried kernels are damaged, or were written under another torch, Triton or FlexSN (named).
    """
    if isinstance(f, (str, os.PathLike)) and not os.path.isfile(f):  # before torch.export.load logs a traceback for it
        raise FileNotFoundError(errno.ENOENT, "load_program: no such file", os.fspath(f))
    extra: dict[str, Any] = dict(extra_files or {})
    extra[KERNELS_FILE] = ""
    program = torch.export.load(f, extra_files=extra, **kwargs)
    payload = extra.pop(KERNELS_FILE)
    if extra_files is not None:
        extra_files.update(extra)
    if payload:
        _register(payload.decode("utf-8") if isinstance(payload, bytes) else str(payload))
    return program
