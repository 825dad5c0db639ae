"""Values derived from a scan body (a body rewritten for the fused path), made once per body object.

Dynamo makes one body (``torch.fx.GraphModule``) per compilation and passes that same object at every
call, so a copy derived from it is kept while it lives and dropped with it (weak keys).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Generic, Hashable, TypeVar

__all__ = ["PerBody"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class PerBody(Generic[K, V]):
    """A cache of values per body object and key, each made once (under a lock: one build per body)."""

    def __init__(self) -> None:
        self._values: weakref.WeakKeyDictionary[Any, dict[K, V]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, body: Any, key: K, make: Callable[[], V]) -> V:
        """The value for ``(body, key)``, made by ``make()`` the first time."""
        with self._lock:
            per_body = self._values.setdefault(body, {})
            if key not in per_body:
                per_body[key] = make()
            return per_body[key]
