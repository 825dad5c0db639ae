"""Trace on a thread of its own: what a tracer running on the caller's thread set up stays out.

A FlexSN trace (:mod:`flexsn_trace.recorder`'s dispatch mode) may be asked for while the
caller is itself being traced: a ``flex_sn_scan`` lowered while Dynamo and
AOTAutograd trace the enclosing program, or a training trace built on the
first call that needs gradients, which may come inside ``torch.compile``.
The fake, proxy and functional tensor modes, Dynamo's frame hook and its
compile metrics are all thread-local state of the caller's thread; a fresh
thread sees none of them, so the trace there is the same one a plain
process would make.
"""

from __future__ import annotations

import threading
import warnings
from typing import Callable, TypeVar

__all__ = ["run_isolated"]

_R = TypeVar("_R")


def run_isolated(fn: Callable[[], _R], name: str = "flexsn-trace") -> _R:
    """Run ``fn()`` on a fresh thread and return its result; its warnings are issued again here.

    The caller's thread waits (nothing runs concurrently). Warnings ``fn``
    raised are re-issued on the caller's thread, in order, so filters,
    ``pytest.warns`` and ``warnings.catch_warnings`` there see them.

    Returns:
        What ``fn`` returned.

    Raises:
        Whatever ``fn`` raised, re-raised on the caller's thread.
    """
    result: dict[str, object] = {}

    def work() -> None:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result["value"] = fn()
            result["warnings"] = list(caught)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            result["error"] = exc

    worker = threading.Thread(target=work, name=name)
    worker.start()
    worker.join()
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    for w in result.get("warnings", []):  # type: ignore[attr-defined]
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result["value"]  # type: ignore[return-value]
