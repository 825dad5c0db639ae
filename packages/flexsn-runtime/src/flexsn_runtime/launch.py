"""Compiled scan kernels and their launch configuration."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import triton

from flexsn_codegen import compile_triton_code_str, interpreter_enabled, load_launch_config, store_launch_config

__all__ = ["ScanKernel", "kernels_usable", "ncl_bucket"]

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
        store_launch_config(self.code, self._config_key(ref, ncl), config)

    def launch(self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor) -> None:
        """Launch over ``ncl`` elements per step for ``T`` steps.

        Args:
            args: tensor arguments in the kernel's calling convention
                (contiguous, same device).
            T: number of time steps (> 0).
            ncl: elements per step (> 0).
            ref: a tensor whose device/dtype select the configuration.
        """
        cfg = self.config(ref, ncl)
        block, warps = cfg["BLOCK_NCL"], cfg["num_warps"]
        grid = (triton.cdiv(ncl, block),)
        fn = self.jit_function()
        if ref.device.type == "cuda":
            if ref.device.index is None or ref.device.index == torch.cuda.current_device():
                fn[grid](*args, T, ncl, BLOCK_NCL=block, num_warps=warps)
            else:
                # Triton launches on the current device's stream
                with torch.cuda.device(ref.device):
                    fn[grid](*args, T, ncl, BLOCK_NCL=block, num_warps=warps)
        else:
            # The interpreter evaluates both sides of tl.where with NumPy; the
            # unselected side may divide by zero, which is not an error here.
            with np.errstate(all="ignore"):
                fn[grid](*args, T, ncl, BLOCK_NCL=block, num_warps=warps)
