"""Shared setup for the flexsn_nn tests: the test device and ``nn_reference`` on sys.path.

Kernels run on CPU tensors through Triton's interpreter (``TRITON_INTERPRET=1``,
set by hatch; set here too when unset and no GPU is present). With a GPU and
the interpreter off, the same tests run on CUDA tensors.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
