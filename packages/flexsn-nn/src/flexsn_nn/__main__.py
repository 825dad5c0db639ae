"""``python -m flexsn_nn explain ...``: the ``flexsn`` console command (:mod:`flexsn_nn.cli`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
