"""Compiled scan kernels and their launch configuration."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
import triton

from flexsn_codegen import compile_triton_code_str, interpreter_enabled, load_launch_config, store_launch_config

__all__ = ["ENV_DIRECT_LAUNCH", "ScanKernel", "current_raw_stream", "kernels_usable", "ncl_bucket"]

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


_SMALL, _MEDIUM, _LARGE, _XLARGE = 1 << 12, 1 << 17, 1 << 20, 1 << 23


def ncl_bucket(ncl: int) -> int:
    """Bucket the per-step element count ``NCL`` (seed 000's backward buckets).

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


def kernels_usable(device: torch.device) -> bool:
    """Whether generated kernels can run on tensors of ``device``.

    CUDA tensors run compiled kernels; CPU tensors only run when
    ``TRITON_INTERPRET=1`` enables Triton's interpreter.
    """
    if device.type == "cuda":
        return True
    return device.type == "cpu" and interpreter_enabled()


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


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
    """

    code: str
    name: str
    kind: str
    final_state: "ScanKernel | None" = None
    _fns: dict[bool, Any] = field(default_factory=dict, repr=False)
    _fast: dict[tuple[int | None, torch.dtype, int], dict[str, int]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: specialisation key -> (CompiledKernel launcher, its BLOCK_NCL)
    _direct: dict[tuple[Any, ...], tuple[Callable[..., Any], int]] = field(default_factory=dict, repr=False)
    _direct_off: bool = field(default=False, repr=False)

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
        del element_size
        full = 1024
        # small layers: narrower programs so at least ~2 land on every SM
        block = max(128, min(full, _next_pow2(max(1, ncl // 264))))
        return {"BLOCK_NCL": block, "num_warps": max(1, block // 256)}

    def persist_config(self, ref: torch.Tensor, ncl: int, config: dict[str, int]) -> None:
        """Store ``config`` as the launch configuration for ``ref``'s device/dtype and NCL bucket."""
        self._fast[(ref.device.index, ref.dtype, ncl_bucket(ncl))] = dict(config)
        with self._lock:
            self._direct.clear()  # cached launchers carry the old block size
        store_launch_config(self.code, self._config_key(ref, ncl), config)

    def launch(self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor) -> None:
        """Launch over ``ncl`` elements per step for ``T`` steps.

        On CUDA, the first launch of each specialisation goes through
        ``JITFunction`` (compiling if needed); later launches with the same
        device, ``T``, ``NCL``, argument dtypes and 16-byte alignments call
        the returned ``CompiledKernel``'s launcher directly, skipping
        Triton's argument binding and cache-key hashing (tens of
        microseconds per call, as much as a small kernel). The key holds
        everything Triton specialises on for these signatures, so the
        cached launcher is the one ``JITFunction`` would pick.
        ``FLEXSN_DIRECT_LAUNCH=0`` turns this off.

        Args:
            args: tensor arguments in the kernel's calling convention
                (contiguous, same device).
            T: number of time steps (> 0).
            ncl: elements per step (> 0).
            ref: a tensor whose device/dtype select the configuration.
        """
        if ref.device.type != "cuda":
            cfg = self.config(ref, ncl)
            block = cfg["BLOCK_NCL"]
            # The interpreter evaluates both sides of tl.where with NumPy; the
            # unselected side may divide by zero, which is not an error here.
            with np.errstate(all="ignore"):
                self.jit_function()[(triton.cdiv(ncl, block),)](*args, T, ncl, BLOCK_NCL=block, num_warps=cfg["num_warps"])
            return
        index = ref.device.index
        if index is not None and index != torch.cuda.current_device():
            with torch.cuda.device(ref.device):  # Triton launches on the current device's stream
                self._launch_cuda(args, T, ncl, ref, index)
        else:
            self._launch_cuda(args, T, ncl, ref, torch.cuda.current_device())

    def _launch_cuda(self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor, device: int) -> None:
        key = (device, ref.dtype, T, ncl, *[(a.dtype, a.data_ptr() % 16 == 0) for a in args])
        hit = self._direct.get(key)
        if hit is not None:
            runner, cached_block = hit
            try:
                runner(*args, T, ncl, cached_block, stream=_raw_stream(device))
                return
            except Exception:  # noqa: BLE001 - a launcher convention we do not know: JIT path from now on
                self._direct_off = True
                with self._lock:
                    self._direct.clear()
        cfg = self.config(ref, ncl)
        block, warps = cfg["BLOCK_NCL"], cfg["num_warps"]
        grid = (triton.cdiv(ncl, block),)
        compiled = self.jit_function()[grid](*args, T, ncl, BLOCK_NCL=block, num_warps=warps)
        if self._direct_off or os.environ.get(ENV_DIRECT_LAUNCH, "1") == "0" or interpreter_enabled():
            return
        try:
            direct = compiled[(grid[0], 1, 1)]  # CompiledKernel's runner reads all three dimensions
        except Exception:  # noqa: BLE001 - a Triton without CompiledKernel.__getitem__: keep the JIT path
            return
        with self._lock:
            if len(self._direct) >= 64:  # many shapes: start over rather than grow without bound
                self._direct.clear()
            self._direct[key] = (direct, block)
