"""Compiled scan kernels and their launch configuration."""

from __future__ import annotations

import functools
import operator
import threading
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import torch
import triton

from flexsn_trace.env import env_flag
from flexsn_codegen import compile_triton_code_str, interpreter_enabled, load_launch_config, store_launch_config

__all__ = [
    "Alt", "ENV_DIRECT_LAUNCH", "KERNEL_DTYPES", "NO_ALT", "RECOMPUTE_PER_THREAD", "ScanKernel", "current_raw_stream", "elements_per_thread",
    "kernels_usable", "ncl_bucket", "jit_kwargs", "tensor_problem",
]

#: Set to 0 to launch every call through ``JITFunction.__getitem__`` (no cached launchers).
ENV_DIRECT_LAUNCH = "FLEXSN_DIRECT_LAUNCH"


def _find_raw_stream() -> Callable[[int], int]:
    try:  # what Triton's own driver uses: no torch.cuda.Stream object per call
        from torch._C import _cuda_getCurrentRawStream

        return _cuda_getCurrentRawStream  # type: ignore[no-any-return, unused-ignore]
    except ImportError:  # pragma: no cover - a torch without it
        return lambda index: int(torch.cuda.current_stream(index).cuda_stream)


_raw_stream = _find_raw_stream()


def current_raw_stream(index: int) -> int:
    """The ``cudaStream_t`` (as an int) of CUDA device ``index``'s current stream."""
    return int(_raw_stream(index))


_current_device: Callable[[], int] = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def _source_has(fn: Any, *parts: str) -> bool:
    """Whether ``fn``'s source, whitespace removed, contains every one of ``parts`` (``False`` without source)."""
    try:
        import inspect

        src = "".join(inspect.getsource(fn).split())
    except Exception:  # noqa: BLE001 - no source (frozen install): treat as unknown
        return False
    return all(part in src for part in parts)


def _run_signature_known() -> bool:
    """Whether ``CompiledKernel.__getitem__``'s runner calls ``self.run`` the way :func:`_direct_launcher` does.

    Checked once against Triton's source (3.4 to 3.6 and later share it), so
    an unknown Triton keeps the runner it returns instead.
    """
    try:
        from triton.compiler.compiler import CompiledKernel
    except ImportError:  # pragma: no cover - a Triton without it
        return False
    return _source_has(
        CompiledKernel.__getitem__,
        "self.run(grid[0],grid[1],grid[2],stream,self.function,self.packed_metadata,launch_metadata,",
    )


_RUN_KNOWN: list[bool] = []

#: ``CudaLauncher.__call__`` of Triton 3.4-3.6, whitespace removed: it only
#: allocates scratch (none when both sizes are 0) and forwards to ``launch``.
_LAUNCHER_CALL = (
    "def__call__(self,gridX,gridY,gridZ,stream,function,*args):",
    "self.launch(gridX,gridY,gridZ,stream,function,self.launch_cooperative_grid,self.launch_pdl,"
    "global_scratch,profile_scratch,*args)",
)
_LAUNCHER_KNOWN: dict[type, bool] = {}


def _raw_launch(run: Any) -> Callable[..., None] | None:
    """The C ``launch`` behind a driver launcher ``run`` when calling it directly is what ``run`` does.

    That holds for a launcher class whose ``__call__`` is Triton 3.4-3.6's
    (checked against its source once per class) and a kernel that needs no
    global or profile scratch memory; otherwise ``None``.
    """
    cls = type(run)
    known = _LAUNCHER_KNOWN.get(cls)
    if known is None:
        known = _LAUNCHER_KNOWN[cls] = _source_has(cls.__call__, *_LAUNCHER_CALL)
    scratch: int = getattr(run, "global_scratch_size", 1) or getattr(run, "profile_scratch_size", 1)
    if not known or scratch:
        return None
    raw: Callable[..., None] | None = getattr(run, "launch", None)
    return raw


try:  # Triton >= 3.4 keeps launch hooks here (older ones on CompiledKernel: runner path)
    from triton import knobs as _knobs

    _runtime_knobs: Any = _knobs.runtime
except (ImportError, AttributeError):  # pragma: no cover - older Triton
    _runtime_knobs = None


def _hooks_idle() -> bool:
    """No launch hooks are installed (a profiler such as Proton adds some)."""
    rt = _runtime_knobs
    if rt is None:
        return False
    for hook in (rt.launch_enter_hook, rt.launch_exit_hook):
        if hook is not None and getattr(hook, "calls", True):
            return False
    return True


#: a launch's second memory order: ``(ALT mask, alt_inner, alt_mid)`` (:func:`flexsn_runtime.layout.fit_orders`);
#: ``NO_ALT`` reads every tensor in the launch's order
Alt = tuple[int, int, int]
NO_ALT: Alt = (0, 1, 1)


def _direct_key(
    device: int, dtype: torch.dtype, T: int, ncl: int, dims: tuple[int, ...], zero_init: bool, reds: tuple[int, ...],
    args: list[tuple[torch.dtype, bool]], alt: Alt = NO_ALT,
) -> tuple[Any, ...]:
    """The key of a cached launcher: everything Triton specialises the launch on (per argument its dtype and 16-byte alignment)."""
    return (device, dtype, T, ncl, dims, zero_init, reds, alt, *args)


def _or(ints: list[int]) -> int:
    return functools.reduce(operator.or_, ints, 0)


def jit_kwargs(cfg: dict[str, int], zero_init: bool, reds: Sequence[int], alt: Alt = NO_ALT) -> dict[str, Any]:
    """The keyword arguments of a ``JITFunction`` call: block size, ``ZERO_INIT``, warps, the backward's ``RED{k}``,
    and the second memory order's ``ALT``, ``alt_inner``, ``alt_mid`` (:func:`flexsn_codegen.addressing._offsets`).

    What Triton specialises a launch on besides the positional ``(*tensors, T, ncl, *dims)``: every
    compile of a kernel (:meth:`ScanKernel.launch`, :func:`flexsn_runtime.prewarm.start_compile`) takes them from here.
    """
    return {"BLOCK_NCL": cfg["BLOCK_NCL"], "ZERO_INIT": zero_init, "num_warps": cfg["num_warps"],
            **{f"RED{k}": r for k, r in enumerate(reds)}, "ALT": alt[0], "alt_inner": alt[1], "alt_mid": alt[2]}


class DirectLaunch:
    """A launch bound to one ``CompiledKernel`` and grid: ``self(stream, pointers, T, ncl)``.

    It takes the tensor arguments as device pointers (``data_ptr()`` ints): the driver launcher
    reads an int pointer as it is, where a tensor costs it a method call and a
    ``cuPointerGetAttribute``. Callers guarantee the pointers are device memory of the
    specialisation the kernel was compiled for (same dtypes, same 16-byte alignment).

    While no launch hook is installed it calls ``call``: ``compiled.run`` (the driver's
    launcher), or the C ``launch`` behind it (:func:`_raw_launch`), as ``call(grid_x, 1, 1,
    stream, *head, *pointers, T, ncl, *tail)``. The runner ``CompiledKernel[grid]`` returns
    builds launch metadata for the hooks on every call, and ``run`` defines and calls scratch
    allocators, a few microseconds each that show in host-bound steps. With hooks, or a Triton
    whose runner we do not recognise (``call`` is ``None``), it goes through that ``runner``.
    ``tail`` holds the static inputs' ints, the constexprs ``(BLOCK_NCL, ZERO_INIT, *RED, ALT)``
    and ``alt_inner, alt_mid``, in the kernel's parameter order (part of the caller's cache key,
    so fixed for this launch; a launcher takes constexprs as arguments too).
    """

    __slots__ = ("runner", "call", "grid_x", "head", "tail", "__name__")

    def __init__(self, runner: Callable[..., Any], call: Callable[..., Any] | None, grid_x: int, head: tuple[Any, ...],
                 tail: tuple[int | bool, ...], name: str) -> None:
        self.runner, self.call, self.grid_x, self.head, self.tail = runner, call, grid_x, head, tail
        self.__name__ = name  # tools/host_probe.py reports which path runs

    def __call__(self, stream: int, args: list[int], T: int, ncl: int) -> None:
        call = self.call
        if call is not None and _hooks_idle():
            call(self.grid_x, 1, 1, stream, *self.head, *args, T, ncl, *self.tail)
        else:
            self.runner(*args, T, ncl, *self.tail, stream=stream)


def _direct_launcher(
    compiled: Any, grid_x: int, constexprs: tuple[int | bool, ...], dims: tuple[int, ...] = ()
) -> DirectLaunch | None:
    """The :class:`DirectLaunch` of ``compiled`` over ``grid_x`` programs, or ``None`` (a Triton without ``CompiledKernel[grid]``).

    ``dims`` are the static inputs' ints and ``constexprs`` the kernel's
    arguments after them: ``(BLOCK_NCL, ZERO_INIT, *RED, ALT, alt_inner, alt_mid)``.
    """
    try:
        runner = compiled[(grid_x, 1, 1)]  # the runner reads all three grid dimensions
    except Exception:  # noqa: BLE001 - a Triton without CompiledKernel.__getitem__: keep the JIT path
        return None
    if not _RUN_KNOWN:
        _RUN_KNOWN.append(_runtime_knobs is not None and _run_signature_known())
    run = getattr(compiled, "run", None)
    tail = (*dims, *constexprs)
    if not _RUN_KNOWN[0] or run is None:
        return DirectLaunch(runner, None, grid_x, (), tail, "launch_runner")
    function, metadata = compiled.function, compiled.packed_metadata
    raw = _raw_launch(run)
    # what follows the stream in each call: run(...) takes the packed metadata
    # and the (absent) launch metadata and hooks; the C launch first takes the
    # cooperative-grid and PDL flags and the (absent) scratch buffers
    if raw is not None:
        head: tuple[Any, ...] = (function, run.launch_cooperative_grid, run.launch_pdl, None, None, metadata, None, None, None)
        return DirectLaunch(runner, raw, grid_x, head, tail, "launch_raw")
    return DirectLaunch(runner, run, grid_x, (function, metadata, None, None, None), tail, "launch_run")


#: Triton's interpreter is not thread-safe: interpreted launches are serialized.
_INTERPRETER_LOCK = threading.Lock()

_SMALL, _MEDIUM, _LARGE, _XLARGE = 1 << 12, 1 << 17, 1 << 20, 1 << 23


def ncl_bucket(ncl: int) -> int:
    """Bucket the per-step element count ``NCL`` (the NCL buckets of SpikingJelly's ``flexsn_backward_ncl_bucket``).

    Returns an int in ``[0, 4]``: ``<= 4096``, ``<= 131072``,
    ``<= 1048576``, ``<= 8388608``, larger.
    """
    if ncl <= _SMALL:
        return 0
    if ncl <= _MEDIUM:
        return 1
    if ncl <= _LARGE:
        return 2
    if ncl <= _XLARGE:
        return 3
    return 4


#: Storage dtypes the generated kernels take (numerics are fp32 in-kernel).
KERNEL_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def kernels_usable(device: torch.device) -> bool:
    """Whether generated kernels can run on tensors of ``device``.

    CUDA tensors run compiled kernels; CPU tensors only run when
    ``TRITON_INTERPRET=1`` enables Triton's interpreter.
    """
    if device.type == "cuda":
        return True
    return device.type == "cpu" and interpreter_enabled()


def tensor_problem(x: torch.Tensor) -> tuple[type[Exception], str] | None:
    """Why the kernels cannot take tensors like ``x`` (dtype, device), as ``(error type, message)``; else ``None``.

    The one dtype and device test: :func:`flexsn_runtime.call_reason` reports
    the message as a fallback reason, the custom ops raise it.
    """
    if x.dtype not in KERNEL_DTYPES:
        return TypeError, f"dtype {x.dtype}: the kernels take {[str(d) for d in KERNEL_DTYPES]}"
    if kernels_usable(x.device):
        return None
    if x.device.type == "cpu":
        return ValueError, f"tensors on {x.device} need CUDA, or TRITON_INTERPRET=1 to run the kernels in Triton's CPU interpreter"
    mode = "interpreted (TRITON_INTERPRET=1 is set)" if interpreter_enabled() else "compiled"
    return ValueError, f"the kernels run on CUDA tensors, or interpreted on CPU tensors; these are on {x.device} ({mode})"


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


#: elements per thread of a recomputing backward (flexsn_trace.recompute): its chunk of steps stays in
#: registers, ``chunk * (inputs + states + gradients)`` values per element
RECOMPUTE_PER_THREAD = 1  # H200, tools/results/gpu-2026-12-04/run2: 1 best or tied with 2 and 4


def elements_per_thread(kind: str, chunk: int) -> int:
    """Elements per thread of a kernel's default CUDA configuration: 8, or for a recomputing backward
    (``chunk > 1``) :data:`RECOMPUTE_PER_THREAD`."""
    return RECOMPUTE_PER_THREAD if chunk > 1 and "backward" in kind else 8


@dataclass
class ScanKernel:
    """A generated scan kernel: its module source, name and launch policy.

    The ``triton.JITFunction`` is loaded through the disk cache on first use
    in each execution mode (compiled or interpreted), so one object serves
    both. ``launch`` picks ``BLOCK_NCL``/``num_warps`` per device, dtype and
    NCL bucket, persisting a chosen configuration next to the source.

    Attributes:
        code: the full module source.
        name: the kernel function's name in it.
        kind: ``"inference"``, ``"inference_final_state"``, ``"forward"``,
            ``"forward_final_state"``, ``"backward"`` or
            ``"backward_final_state"`` (used in config keys and messages).
        final_state: for training kernels, the variant used when state
            sequences are not stored.
        output_dtypes: see :meth:`output_dtype`.
    """

    code: str
    name: str
    kind: str
    final_state: "ScanKernel | None" = None
    #: per output sequence: the dtype it is stored in, or ``None`` for the input's
    #: (a core's floating outputs follow its inputs; a bool spike or an int count keeps its dtype)
    output_dtypes: tuple[torch.dtype | None, ...] = ()
    _fns: dict[bool, Any] = field(default_factory=dict, repr=False)
    _fast: dict[tuple[int | None, torch.dtype, int], dict[str, int]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: specialisation key -> launch(stream, pointers, T, ncl) of the CompiledKernel
    _direct: dict[tuple[Any, ...], DirectLaunch] = field(default_factory=dict, repr=False)
    _direct_off: bool = field(default=False, repr=False)
    #: bumped whenever ``_direct`` is cleared: a launch from :meth:`prepared` checks it
    _generation: int = field(default=0, repr=False)
    #: this kernel's compile on a worker thread (:mod:`flexsn_runtime.prewarm`), until a launch waited for it
    warming: "Future[None] | None" = field(default=None, repr=False)
    #: a first backward's compile was tried ahead (once per kernel)
    prewarmed: bool = field(default=False, repr=False)
    #: elements per thread of the default CUDA configuration (:func:`elements_per_thread`)
    per_thread: int = 8

    def output_dtype(self, k: int, like: torch.Tensor) -> torch.dtype:
        """The dtype of output sequence ``k`` for inputs like ``like``."""
        dt = self.output_dtypes[k] if k < len(self.output_dtypes) else None
        return like.dtype if dt is None else dt

    def jit_function(self) -> Any:
        """The ``triton.JITFunction`` for the current execution mode."""
        interp = interpreter_enabled()
        fn = self._fns.get(interp)
        if fn is None:
            fn = compile_triton_code_str(self.code, self.name)
            self._fns[interp] = fn
        return fn

    def config(self, ref: torch.Tensor, ncl: int) -> dict[str, int]:
        """Launch configuration for sequences like ``ref`` with ``ncl`` elements per step."""
        if ref.device.type != "cuda" or interpreter_enabled():
            # The interpreter pays per program, not per element: few, wide programs.
            return {"BLOCK_NCL": min(max(_next_pow2(ncl), 16), 8192), "num_warps": 4}
        fast_key = (ref.device.index, ref.dtype, ncl_bucket(ncl))
        cfg = self._fast.get(fast_key)
        if cfg is None:
            key = self._config_key(ref, ncl)
            cfg = load_launch_config(self.code, key)
            if cfg is None:
                cfg = self._default_cuda_config(ncl, ref.element_size())
                # persisted so a warm start reuses the configuration without deciding again
                store_launch_config(self.code, key, cfg)
            self._fast[fast_key] = cfg
        return cfg

    def _config_key(self, ref: torch.Tensor, ncl: int) -> str:
        return f"{torch.cuda.get_device_name(ref.device)}|{ref.dtype}|{self.kind}|b{ncl_bucket(ncl)}"

    def _default_cuda_config(self, ncl: int, element_size: int = 4) -> dict[str, int]:
        # 8 elements per thread, 4 warps. Measured on an H200 (tools/gpu_check.py,
        # tools/bench.py): 1024 was best or tied for fp32 and for bf16; 2048
        # for bf16 (32 bytes per thread) was slower (0.86 vs 0.87-0.89 of clone).
        # A recomputing backward holds a chunk per element: fewer (elements_per_thread).
        del element_size
        per = self.per_thread
        full = 128 * per
        # small layers: narrower programs so at least ~2 land on every SM
        block = max(min(full, 128), min(full, _next_pow2(max(1, ncl // 264))))
        return {"BLOCK_NCL": block, "num_warps": max(1, block // (32 * per))}

    def persist_config(self, ref: torch.Tensor, ncl: int, config: dict[str, int]) -> None:
        """Store ``config`` as the launch configuration for ``ref``'s device/dtype and NCL bucket."""
        self._fast[(ref.device.index, ref.dtype, ncl_bucket(ncl))] = dict(config)
        self._clear_direct()  # cached launchers carry the old block size
        store_launch_config(self.code, self._config_key(ref, ncl), config)

    def launch(
        self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor, dims: Sequence[int] = (), zero_init: bool = False,
        reds: Sequence[int] = (), alt: Alt = NO_ALT,
    ) -> None:
        """Launch over ``ncl`` elements per step for ``T`` steps.

        On CUDA, the first launch of each specialisation goes through ``JITFunction`` (compiling
        if needed); later launches with the same device, ``T``, ``NCL``, argument dtypes and
        16-byte alignments call the returned ``CompiledKernel``'s launcher directly (with raw
        device pointers, see :func:`_direct_launcher`), skipping Triton's argument binding and
        cache-key hashing (tens of microseconds per call, as much as a small kernel). The key
        holds everything Triton specialises on for these signatures, so the cached launcher is
        the one ``JITFunction`` would pick. ``FLEXSN_DIRECT_LAUNCH=0`` turns this off.

        Args:
            args: tensor arguments in the kernel's calling convention (dense, same device).
            T: number of time steps (> 0).
            ncl: elements per step (> 0).
            ref: a tensor whose device/dtype select the configuration.
            dims: the static inputs' ``inner, mid`` ints (:func:`flexsn_runtime.statics.static_dims`).
            zero_init: the kernel's ``ZERO_INIT``: start from zero states made in registers (the
                initial-state pointers are not read).
            reds: the backward kernel's ``RED{k}`` per static input (:func:`flexsn_runtime.statics.partial_modes`
                for this configuration's ``BLOCK_NCL``); empty for the other kernels.
            alt: the tensors of ``args`` in the launch's second memory order and its two ints
                (:func:`flexsn_runtime.layout.fit_orders`); :data:`NO_ALT`: none.
        """
        if not ref.is_cuda:
            cfg = self.config(ref, ncl)
            # The interpreter evaluates both sides of tl.where with NumPy; the
            # unselected side may divide by zero, which is not an error here.
            # It also keeps per-launch state in module globals: one launch at a time.
            with _INTERPRETER_LOCK, np.errstate(all="ignore"):
                self.jit_function()[(triton.cdiv(ncl, cfg["BLOCK_NCL"]),)](*args, T, ncl, *dims, **jit_kwargs(cfg, zero_init, reds, alt))
            return
        index = ref.get_device()
        if index != _current_device():
            with torch.cuda.device(index):  # Triton launches on the current device's stream
                self._launch_cuda(args, T, ncl, ref, index, tuple(dims), zero_init, tuple(reds), alt)
        else:
            self._launch_cuda(args, T, ncl, ref, index, tuple(dims), zero_init, tuple(reds), alt)

    def _launch_cuda(
        self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor, device: int, dims: tuple[int, ...] = (),
        zero_init: bool = False, reds: tuple[int, ...] = (), alt: Alt = NO_ALT,
    ) -> None:
        ptrs = [a.data_ptr() for a in args]
        key = _direct_key(device, ref.dtype, T, ncl, dims, zero_init, reds, [(a.dtype, p & 15 == 0) for a, p in zip(args, ptrs)], alt)
        hit = self._direct.get(key)
        if hit is not None:
            try:
                # raw pointers: the launcher takes ints as they are, where a tensor
                # costs it a data_ptr() call and a cuPointerGetAttribute per argument
                hit(_raw_stream(device), ptrs, T, ncl)
                return
            except Exception:  # noqa: BLE001 - a launcher convention we do not know: JIT path from now on
                self._direct_off = True
                self._clear_direct()
        warming, self.warming = self.warming, None
        if warming is not None:  # compiling on a worker thread: wait for it rather than compile it twice
            wait([warming])
        cfg = self.config(ref, ncl)
        block = cfg["BLOCK_NCL"]
        grid = (triton.cdiv(ncl, block),)
        compiled = self.jit_function()[grid](*args, T, ncl, *dims, **jit_kwargs(cfg, zero_init, reds, alt))
        if self._direct_off or not env_flag(ENV_DIRECT_LAUNCH) or interpreter_enabled():
            return
        direct = _direct_launcher(compiled, grid[0], (block, zero_init, *reds, *alt), dims)
        if direct is None:
            return
        if len(self._direct) >= 64:  # many shapes: start over rather than grow without bound
            self._clear_direct()
        with self._lock:
            self._direct[key] = direct

    def _clear_direct(self) -> None:
        with self._lock:
            self._direct.clear()
            self._generation += 1

    def prepared(
        self, dtypes: Sequence[torch.dtype], ref: torch.Tensor, T: int, ncl: int, dims: Sequence[int] = (), zero_init: bool = False,
        reds: Sequence[int] = (), alt: Alt = NO_ALT,
    ) -> "Callable[[list[torch.Tensor]], bool] | None":
        """The launch of one specialisation, for later calls whose tensors are like the ones it was made for.

        For :class:`flexsn_runtime.launch_plan.LaunchPlan`: ``dtypes`` are the
        launch's tensor arguments' dtypes (:meth:`launch`'s ``args``), ``ref``
        a tensor of the launch's device and input dtype (``launch``'s ``ref``), ``dims``,
        ``zero_init``, ``reds`` and ``alt`` as :meth:`launch` takes them. On CUDA the result
        calls the cached launcher :meth:`launch` made for this key, all
        pointers 16-byte aligned, with the new tensors' pointers; it returns
        ``False`` without launching when a pointer is not so aligned, the
        current device is not the tensors', or the cached launchers were
        dropped since (then the caller launches through :meth:`launch`).
        ``None`` when no such launcher exists (yet). In Triton's interpreter
        it is :meth:`launch` itself (the interpreter has no launcher to skip).
        """
        if not ref.is_cuda:
            ref = ref.new_empty(0)  # its device and dtype, not the call's memory, for as long as the plan lives

            def interpreted(tensors: list[torch.Tensor]) -> bool:
                self.launch(tensors, T, ncl, ref, dims, zero_init, reds, alt)
                return True

            return interpreted
        device, generation = ref.get_device(), self._generation
        key = _direct_key(device, ref.dtype, T, ncl, tuple(dims), zero_init, tuple(reds), [(d, True) for d in dtypes], alt)
        direct = self._direct.get(key)
        if direct is None:
            return None

        def launch(tensors: list[torch.Tensor]) -> bool:
            ptrs = [t.data_ptr() for t in tensors]
            if _or(ptrs) & 15 or self._generation != generation or _current_device() != device:
                return False
            direct(_raw_stream(device), ptrs, T, ncl)
            return True

        return launch
