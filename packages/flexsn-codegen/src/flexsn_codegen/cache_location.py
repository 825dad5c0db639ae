"""Where the code cache lives, and whether it may be trusted.

Cache entries are Python sources that get imported, so the folder must be
private, as pip and the XDG base-directory convention keep theirs: created
``0700``, owned by the current user, writable by nobody else. A folder that
fails these checks (group- or world-writable, owned by another user) or that
cannot be written (a read-only file system, a path through a file) is not
used: FlexSN warns once, naming ``FLEXSN_CACHE_DIR``, and caches in a private
temporary folder of this process instead (removed at exit).
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
import warnings
from pathlib import Path

from flexsn_trace.env import env_value

__all__ = ["cache_dir", "requested_cache_dir"]

_LOCK = threading.Lock()
#: requested folder -> the folder used (itself, or the private fallback)
_RESOLVED: dict[Path, Path] = {}
_FALLBACK: list[Path] = []


def requested_cache_dir() -> Path:
    """The folder asked for: ``$FLEXSN_CACHE_DIR``, else ``$XDG_CACHE_HOME/flexsn``, else ``~/.cache/flexsn``."""
    env = env_value("FLEXSN_CACHE_DIR")
    if env:
        return Path(env)
    base = env_value("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "flexsn"


def _refusal(path: Path) -> str | None:
    """Why ``path`` cannot hold the cache, or ``None``; creates it ``0700`` when missing."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError as exc:
        return f"it cannot be created ({exc.strerror or exc})"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        return f"it is owned by uid {st.st_uid}, not by this user (uid {getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"it is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    try:  # a real write: permission bits do not show a read-only file system (or bind root)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".flexsn-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"it is not writable ({exc.strerror or exc})"
    return None


def _private_fallback() -> Path:
    if not _FALLBACK:
        path = Path(tempfile.mkdtemp(prefix="flexsn-cache-"))  # 0700, ours
        atexit.register(shutil.rmtree, path, True)
        _FALLBACK.append(path)
    return _FALLBACK[0]


def cache_dir() -> Path:
    """The folder that holds generated sources, launch configurations and traced kernels.

    :func:`requested_cache_dir` when it is private and writable (created
    ``0700`` if missing); otherwise a private temporary folder, after one
    ``RuntimeWarning`` that names ``FLEXSN_CACHE_DIR`` and the reason.
    Checked once per requested folder and process.
    """
    path = requested_cache_dir()
    used = _RESOLVED.get(path)
    if used is not None:
        return used
    with _LOCK:
        used = _RESOLVED.get(path)
        if used is None:
            reason = _refusal(path)
            if reason is None:
                used = path
            else:
                used = _private_fallback()
                warnings.warn(
                    f"FlexSN: the kernel cache folder {path} is not used: {reason}. Kernels are cached in the "
                    f"private temporary folder {used} for this process; set FLEXSN_CACHE_DIR to a folder only "
                    "you can write (mode 0700) to keep them across processes",
                    RuntimeWarning,
                    stacklevel=3,
                )
            _RESOLVED[path] = used
    return used
