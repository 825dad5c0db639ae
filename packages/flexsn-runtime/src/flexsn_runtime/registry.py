"""Kernel-handle registry with owner and active reference counts.

Custom ops cannot take Python objects, so kernels live here and ops take an
integer ``handle``. A handle has *owner* references (a ``FlexSNKernel`` and
its deep copies) and *active* references (autograd contexts waiting for
their backward). It is removed, and its kernels' ``close`` called if they
have one, when both counts reach zero. All counts change under one lock.

Training kernels may be left for later: a bundle registered with a
``training_builder`` gets them on the first :func:`ensure_training_kernels`
(the first call that needs gradients), so a process that only runs
inference never traces the backward pass.

Handles outlive the process in one place: ``torch.compile`` bakes them into
graphs as constants, and Inductor's on-disk FX-graph and AOTAutograd caches
key on the graph's text. A handle therefore names what was traced, not the
order of registration: :func:`register_flexsn_kernel_handle` takes the
bundle's ``identity`` (the trace fingerprint, :func:`flexsn_runtime.fingerprint.core_fingerprint`)
and builds the handle from it, so a graph compiled in another process is
reused only for the same neuron; a bundle without one gets a handle salted
per process, which never matches another process's. (Counting from 1 let a
graph compiled for one neuron be served, with its output dtypes baked in, to
an edited neuron in the next run.) Bundles of one fingerprint hold the same
kernels, so a handle no longer registered is answered by a live bundle of its
fingerprint (:func:`lookup_flexsn_kernel_handle`): a program saved by
``torch.export.save`` in a process that had built that neuron several times
runs in a process that built it once. A process that built none asks the
bundle loader (:func:`set_bundle_loader`: the trace cache's entry of that
fingerprint, :mod:`flexsn_runtime.kernel_build`) before it gives up.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
import secrets
from typing import Any, Callable, NamedTuple

import torch

from flexsn_trace import Constants, FlexSNInfo

from .scan_kernel import ScanKernel



class TrainingKernels(NamedTuple):
    """One BPTT kernel pair and the calling convention they share.

    Attributes:
        forward: the training forward kernel (``.final_state``: its final-state variant).
        backward: the reverse-time backward kernel (``.final_state`` likewise).
        info: what the forward saves and the backward reads.
    """

    forward: ScanKernel
    backward: ScanKernel
    info: FlexSNInfo


#: what a training builder returns: the training pair (``None``: none), why there is none,
#: and the pair for 16-bit sequences when it differs (``FlexSNKernelHandle.half_training``)
TrainingBuild = tuple["TrainingKernels | None", "str | None", "TrainingKernels | None"]


@dataclass
class FlexSNKernelHandle:
    """Kernels and metadata behind one handle.

    Any kernel may be ``None`` when that path was not built (for example the
    training kernels of a core with no differentiable output).
    """

    inference_kernel: ScanKernel | None
    inference_info: FlexSNInfo | None
    inference_final_state_kernel: ScanKernel | None
    inference_final_state_info: FlexSNInfo | None
    #: the BPTT pair (``None``: not built, or left for later: ``training_builder``)
    training: TrainingKernels | None
    owner_refs: int = 1
    active_refs: int = 0
    #: builds ``TrainingBuild`` (``training``, ``training_unsupported``, ``half_training``) on first need, then ``None``
    training_builder: "Callable[[], TrainingBuild] | None" = field(default=None, repr=False)
    #: why calls that need gradients run the eager loop although inference is fused (known once built)
    training_unsupported: str | None = None
    #: the training pair for float16 / bfloat16 sequences when it differs from the one above: without the
    #: float32 carrier (``flexsn_trace.carrier``), which moves more bytes than the 16-bit sequences it replaces
    half_training: TrainingKernels | None = None
    _build_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: per-call bookkeeping worked out once (``flexsn_runtime.training_plan``), keyed by its user
    plans: dict[Any, Any] = field(default_factory=dict, repr=False)
    #: the step function the kernels were traced from (captured tensors taken as trailing static
    #: inputs), when known: graph passes compose it with neighbouring ops (``flexsn_hop.neighbours``)
    step_fn: "Callable[..., Any] | None" = field(default=None, repr=False)
    #: the numbers the kernels were traced with as literals (:func:`flexsn_trace.find_constants` at the trace),
    #: checked by the forward ops (:func:`check_traced_constants`); ``None``: none known
    constants: "Constants | None" = field(default=None, repr=False)

    @property
    def arity_info(self) -> FlexSNInfo | None:
        """An info that tells the ops' arity (counts of inputs, states, outputs, statics): inference's, else training's."""
        return self.inference_info or (self.training.info if self.training is not None else None)


_REGISTRY: dict[int, FlexSNKernelHandle] = {}
_LOCK = threading.Lock()
#: handle = (40 bits naming the bundle << 20) | its number among bundles of that name in this process
_NAME_BITS, _SERIAL_BITS = 40, 20
_PROCESS_SALT = secrets.randbits(_NAME_BITS)
_SERIALS: dict[int, int] = {}


def _next_handle(identity: str | None) -> int:
    """A new handle for a bundle of trace fingerprint ``identity`` (hex), or salted per process; call under ``_LOCK``."""
    name = int(identity[: _NAME_BITS // 4], 16) if identity else _PROCESS_SALT
    serial = _SERIALS.get(name, 0)
    if serial >= 1 << _SERIAL_BITS:
        raise RuntimeError(f"FlexSN: more than {1 << _SERIAL_BITS} kernel bundles of one neuron registered in this process")
    _SERIALS[name] = serial + 1
    return (name << _SERIAL_BITS) | serial


def _live(key: int) -> int | None:
    """``key`` if registered, else a registered handle of the same trace fingerprint (the same kernels), else ``None``."""
    if key in _REGISTRY:
        return key
    name = key >> _SERIAL_BITS
    if name == _PROCESS_SALT:  # salted handles name no trace: two of them are different neurons
        return None
    # a miss only (a graph saved by another process, or one that outlived its neuron); list(): one C-level copy
    return next((other for other in list(_REGISTRY) if other >> _SERIAL_BITS == name), None)


def fingerprint_prefix(handle: Any) -> str | None:
    """The hex prefix of the trace fingerprint ``handle`` was built from; ``None`` for a salted handle (no fingerprint).

    Raises:
        TypeError: ``handle`` is not int-like.
    """
    name = _normalize(handle) >> _SERIAL_BITS
    return None if name == _PROCESS_SALT else format(name, f"0{_NAME_BITS // 4}x")


def bundle_of_fingerprint(identity: str) -> int | None:
    """A registered handle of trace fingerprint ``identity`` (hex; its first digits decide), or ``None`` (also for non-hex)."""
    try:
        name = int(identity[: _NAME_BITS // 4], 16)
    except ValueError:
        return None
    return None if name == _PROCESS_SALT else _live(name << _SERIAL_BITS)


def _normalize(handle: Any) -> int:
    if isinstance(handle, bool):
        raise TypeError("a FlexSN kernel handle must be an int, got bool")
    if isinstance(handle, int):
        return handle
    if isinstance(handle, torch.Tensor):
        if handle.numel() != 1:
            raise TypeError(f"a FlexSN kernel handle tensor must have one element, got shape {tuple(handle.shape)}")
        return int(handle.item())
    try:
        return int(handle)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"unsupported FlexSN kernel handle type: {type(handle).__name__}") from exc


def register_flexsn_kernel_handle(
    *,
    inference_kernel: ScanKernel | None,
    inference_info: FlexSNInfo | None,
    inference_final_state_kernel: ScanKernel | None,
    inference_final_state_info: FlexSNInfo | None,
    training: TrainingKernels | None,
    training_builder: "Callable[[], TrainingBuild] | None" = None,
    step_fn: "Callable[..., Any] | None" = None,
    identity: str | None = None,
    constants: "Constants | None" = None,
) -> int:
    """Register a kernel bundle and return its new integer handle (one owner reference).

    ``training_builder``: leaves the training kernels for later (``training``
    is then ``None``); :func:`ensure_training_kernels` calls it once.
    ``step_fn``: the function the kernels were traced from, kept for graph
    passes that compose it with its neighbours (``None``: not composable).
    ``constants``: the numbers the kernels were traced with (:func:`check_traced_constants`).
    ``identity``: a hex digest of everything the kernels were traced from
    (:func:`flexsn_runtime.fingerprint.core_fingerprint`), or ``None`` when it
    cannot be known; the handle is built from it (module docstring).

    Raises:
        ValueError: ``identity`` is not a hex digest of at least 10 digits.
    """
    if identity is not None and (len(identity) < _NAME_BITS // 4 or not all(c in "0123456789abcdef" for c in identity.lower())):
        raise ValueError(f"a kernel bundle's identity is a hex digest of at least {_NAME_BITS // 4} digits, got {identity!r}")
    with _LOCK:
        handle = _next_handle(identity)
        _REGISTRY[handle] = FlexSNKernelHandle(
            inference_kernel,
            inference_info,
            inference_final_state_kernel,
            inference_final_state_info,
            training,
            training_builder=training_builder,
            step_fn=step_fn,
            constants=constants,
        )
    return handle


#: fingerprint name (a handle's top bits) -> whether the loader registered a bundle of it (asked once per name)
_LOADED: dict[int, bool] = {}
_LOADER: "Callable[[str], bool] | None" = None


def set_bundle_loader(loader: "Callable[[str], bool] | None") -> None:
    """Install what a lookup of an unknown handle asks, with the fingerprint's hex prefix, to register a bundle of it.

    :mod:`flexsn_runtime.kernel_build` installs one that reads the trace cache; it returns whether it registered one.
    """
    global _LOADER
    _LOADER = loader
    _LOADED.clear()


def _load(key: int) -> int | None:
    """A bundle of ``key``'s fingerprint registered by the loader (once per fingerprint and process), or ``None``."""
    name = key >> _SERIAL_BITS
    loader = _LOADER
    # not while Dynamo traces this code (file reads and a lock); a fake implementation's lookup while
    # torch.compile builds a graph (a loaded program compiled first) runs as plain Python and may load
    if loader is None or name == _PROCESS_SALT or torch.compiler.is_dynamo_compiling():
        return None
    if name not in _LOADED:
        _LOADED[name] = loader(format(name, f"0{_NAME_BITS // 4}x"))
    return _live(key) if _LOADED[name] else None


def lookup_flexsn_kernel_handle(handle: Any) -> FlexSNKernelHandle:
    """Return the bundle for ``handle``, or a live one of its trace fingerprint when it is no longer registered.

    Bundles of one fingerprint hold the same kernels (module docstring). Its training kernels may still be left for later (``None`` with a
    ``training_builder``): :func:`ensure_training_kernels` returns the bundle
    with them built.

    Raises:
        TypeError: ``handle`` is not int-like.
        RuntimeError: the handle is unknown (never registered or released) and no
            bundle of its fingerprint is alive.
    """
    key = _normalize(handle)
    # one dict read is atomic (no lock: torch.compile traces this when a compiled call falls back, and
    # Dynamo cannot enter a lock)
    bundle = _REGISTRY.get(key)
    if bundle is None:
        live = _live(key)
        if live is None:
            live = _load(key)
        bundle = _REGISTRY.get(live) if live is not None else None
    if bundle is None:
        raise RuntimeError(
            f"unknown FlexSN kernel handle {key} (released, or never registered). A graph saved by "
            "torch.export.save or by torch.compile's caches names FlexSN kernels by handle, and the handles "
            "live in the process that builds the kernels, as long as their neurons do; FlexSN's trace cache "
            "(FLEXSN_CACHE_DIR) has no entry of this neuron written by this FlexSN, torch and Triton either, from "
            "which a new process loads them by itself. In a new process, build the "
            "same neurons first and keep them (construct the model and run it once as the saved graph was made: "
            "eagerly for backend='triton' or 'inductor', exported or compiled for backend='hop'), then run the "
            "loaded graph"
        )
    return bundle


def ensure_training_kernels(handle: Any) -> FlexSNKernelHandle:
    """The bundle of ``handle`` with its training kernels built, if they were left for later.

    The first caller runs the bundle's ``training_builder`` (others wait for
    it); after that the bundle's ``training``, ``half_training`` and
    ``training_unsupported`` are final.

    Raises:
        TypeError / RuntimeError: as :func:`lookup_flexsn_kernel_handle`;
        whatever the builder raises (the bundle keeps its builder).
    """
    bundle = lookup_flexsn_kernel_handle(handle)
    if bundle.training_builder is None:
        return bundle
    with bundle._build_lock:
        builder = bundle.training_builder
        if builder is not None:
            bundle.training, bundle.training_unsupported, bundle.half_training = builder()
            bundle.training_builder = None
    return bundle


def training_kernels(bundle: FlexSNKernelHandle, dtype: torch.dtype) -> TrainingKernels | None:
    """The training pair that runs sequences of ``dtype``: the one place that choice is made.

    ``bundle.half_training`` for float16 / bfloat16 when it has one, else
    ``bundle.training``; ``None`` when it has no training kernels (or they
    are still left for later: :func:`ensure_training_kernels` first).
    """
    if bundle.half_training is not None and dtype.itemsize < 4:
        return bundle.half_training
    return bundle.training


def registered_handles() -> list[int]:
    """Handles currently alive (for tests and diagnostics)."""
    with _LOCK:
        return sorted(_REGISTRY)


def _change(handle: Any, owner: int, active: int) -> None:
    key = _normalize(handle)
    with _LOCK:
        live = _live(key)
        key = key if live is None else live
        bundle = _REGISTRY.get(key)
        if bundle is None:
            if owner > 0 or active > 0:
                raise RuntimeError(f"unknown FlexSN kernel handle {key} (released, or never registered)")
            return
        bundle.owner_refs = max(0, bundle.owner_refs + owner)
        bundle.active_refs = max(0, bundle.active_refs + active)
        dead = bundle.owner_refs == 0 and bundle.active_refs == 0
        if dead:
            del _REGISTRY[key]
    if dead:
        # a plan keeps its bundle (for a retained graph to revive it) and the bundle its plans: a cycle
        # that only the cyclic GC would free, at any later allocation, a CUDA-graph capture's included,
        # where unloading the kernels' modules (Triton's CompiledKernel.__del__) is a forbidden call
        bundle.plans.clear()
        pairs = [pair for pair in (bundle.training, bundle.half_training) if pair is not None]
        for kernel in (bundle.inference_kernel, bundle.inference_final_state_kernel, *(k for pair in pairs for k in pair[:2])):
            closer = getattr(kernel, "close", None)
            if callable(closer):
                closer()


def retain_flexsn_kernel_handle(handle: int) -> None:
    """Add an active reference (an autograd context awaiting backward)."""
    _change(handle, 0, 1)


def revive_flexsn_kernel_handle(handle: int, bundle: FlexSNKernelHandle) -> None:
    """Add an active reference, registering ``bundle`` again under ``handle`` if it was released.

    For an autograd graph that runs its backward again (``retain_graph=True``)
    after the kernels' owner is gone: handles are never reused, so the bundle
    comes back under its own number.
    """
    key = _normalize(handle)
    with _LOCK:
        if key not in _REGISTRY:
            bundle.owner_refs, bundle.active_refs = 0, 0
            _REGISTRY[key] = bundle
        _REGISTRY[key].active_refs += 1


def retain_owner_flexsn_kernel_handle(handle: int) -> None:
    """Add an owner reference (e.g. a deep copy of a ``FlexSNKernel``)."""
    _change(handle, 1, 0)


def release_flexsn_kernel_handle(handle: int) -> None:
    """Drop an owner reference; frees the handle when no reference is left. Unknown handles are ignored."""
    _change(handle, -1, 0)


def release_active_flexsn_kernel_handle(handle: int) -> None:
    """Drop an active reference; frees the handle when no reference is left. Unknown handles are ignored."""
    _change(handle, 0, -1)


def attach_flexsn_handle_finalizer(owner: object, handle: int) -> "weakref.finalize[[int], object]":
    """Release one owner reference of ``handle`` when ``owner`` is garbage-collected."""
    return weakref.finalize(owner, release_flexsn_kernel_handle, handle)
