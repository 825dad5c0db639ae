"""Compile-and-cache of generated Triton source on disk.

Source strings are written once to the cache folder
(:func:`flexsn_codegen.cache_location.cache_dir`: ``$FLEXSN_CACHE_DIR``,
default ``$XDG_CACHE_HOME/flexsn`` or ``~/.cache/flexsn``, private and
checked) under the SHA-256 of their text, with an atomic rename so concurrent
processes never see a half-written file, compared byte for byte with the
source, then imported as a module. Triton's ``@jit`` needs the
source on disk (it reads it with ``inspect``), which is also why we do not
``exec`` strings. A second build of the same source reuses the file and,
within one process, the module.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import triton.language as tl

from flexsn_trace.env import env_flag

from .cache_location import cache_dir
from .lowering import ROUND_BY_HAND

__all__ = [
    "atomic_write",
    "cache_dir",
    "compile_triton_code_str",
    "interpreter_enabled",
    "load_launch_config",
    "source_path",
    "store_launch_config",
]

_MODULES: dict[tuple[str, bool], ModuleType] = {}
_LOCK = threading.Lock()


def interpreter_enabled() -> bool:
    """Whether ``TRITON_INTERPRET`` asks Triton to interpret kernels on the CPU."""
    return env_flag("TRITON_INTERPRET")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_path(code: str) -> Path:
    """Path at which ``code`` is (or will be) cached."""
    return cache_dir() / f"flexsn_{_digest(code)[:32]}.py"


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: a temporary file in the same folder, then ``os.replace``.

    Readers see the old file or the new one, never a partial write.

    Raises:
        OSError: the folder is not writable (the temporary file is removed).
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _holds(path: Path, text: str) -> bool:
    """Whether ``path`` holds exactly ``text`` (UTF-8); ``False`` for a missing or unreadable file."""
    try:
        return path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def compile_triton_code_str(
    triton_code: str,
    kernel_name: str,
    verbose: bool = False,
    name_space: dict[str, Any] | None = None,
) -> Any:
    """Compile a Triton source string through the disk cache.

    Args:
        triton_code: a complete module source (as produced by
            :func:`flexsn_codegen.generate_triton_code_str`).
        kernel_name: the ``@triton.jit`` function to return.
        verbose: print whether the cached file was written or reused.
        name_space: optional dict updated with the module's globals (so
            callers can reach helper functions defined next to the kernel).

    A module defining ``FLEXSN_ROUND_BY_HAND`` (generated sources do) gets it
    set to ``tl.constexpr(interpreted)`` on loading: ``flexsn_to_storage``
    then rounds bfloat16 by hand only in Triton's interpreter, whose casts
    truncate; compiled casts round to nearest even natively.

    Returns:
        The ``triton.JITFunction`` (an interpreted function when
        ``TRITON_INTERPRET=1`` is set at the time of the first compile of
        this source in the process).

    Raises:
        TypeError: ``triton_code`` or ``kernel_name`` is not a string.
        ValueError: the module defines no ``kernel_name``.
        SyntaxError: the source is not valid Python.
    """
    if not isinstance(triton_code, str) or not isinstance(kernel_name, str):
        raise TypeError(
            f"compile_triton_code_str expects (str, str), got ({type(triton_code).__name__}, "
            f"{type(kernel_name).__name__})"
        )
    interp = interpreter_enabled()
    key = (_digest(triton_code), interp)
    with _LOCK:
        module = _MODULES.get(key)
        if module is None:
            path = source_path(triton_code)
            # verified byte for byte before it is imported: a damaged or foreign file is rewritten
            if _holds(path, triton_code):
                if verbose:
                    print(f"[flexsn] reusing cached Triton source {path}")
            else:
                atomic_write(path, triton_code)
                if verbose:
                    print(f"[flexsn] wrote Triton source {path}")
            mod_name = f"flexsn_generated_{key[0][:32]}_{'i' if interp else 'c'}"
            spec = importlib.util.spec_from_file_location(mod_name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(mod_name, None)
                raise
            if hasattr(module, ROUND_BY_HAND):
                # read when kernels compile: by-hand bfloat16 rounding only where casts truncate
                setattr(module, ROUND_BY_HAND, tl.constexpr(interp))
            _MODULES[key] = module
    fn = getattr(module, kernel_name, None)
    if fn is None:
        raise ValueError(f"the generated module {module.__file__} defines no '{kernel_name}'")
    if name_space is not None:
        name_space.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return fn


def _config_path(code: str) -> Path:
    return cache_dir() / f"flexsn_{_digest(code)[:32]}.launch.json"


def load_launch_config(code: str, key: str) -> dict[str, int] | None:
    """Return the launch configuration persisted for ``code`` under ``key``.

    ``key`` encodes device, dtype and size bucket. Returns ``None`` when
    nothing was stored or the file is unreadable.
    """
    try:
        data = json.loads(_config_path(code).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    cfg = data.get(key) if isinstance(data, dict) else None
    if isinstance(cfg, dict) and all(isinstance(v, int) for v in cfg.values()):
        return {str(k): int(v) for k, v in cfg.items()}
    return None


def store_launch_config(code: str, key: str, config: dict[str, int]) -> None:
    """Persist a launch configuration next to the cached source (atomic)."""
    path = _config_path(code)
    with _LOCK:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[key] = dict(config)
        atomic_write(path, json.dumps(data, indent=1, sort_keys=True))
