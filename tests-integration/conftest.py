"""Shared setup for the cross-package tests: this folder on ``sys.path`` for their helpers (``random_cores``)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
