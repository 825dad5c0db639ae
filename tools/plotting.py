"""Matplotlib for the tools' figures: one place that picks the file-only backend.

The tools write PNG files on machines without a display (CI, the GPU host), so they use
matplotlib's ``Agg`` backend (``matplotlib.use("Agg")``, matplotlib's API), selected before
``matplotlib.pyplot`` is first imported.
"""

from __future__ import annotations

from types import ModuleType


def pyplot(required: bool = False) -> ModuleType | None:
    """``matplotlib.pyplot`` on the ``Agg`` backend, or ``None`` (with a note) when matplotlib cannot be set up.

    Args:
        required: raise instead of returning ``None`` (a tool whose output is the figure).

    Raises:
        ImportError: matplotlib is missing and ``required`` is set (or whatever else setting it up raised).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:  # noqa: BLE001  # a figure is optional output: a broken install skips it, as a missing one
        if required:
            raise
        print(f"note: no plot ({exc})", flush=True)
        return None
    return plt
