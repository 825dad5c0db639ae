"""What ``flexsn_hop`` registers with ``torch.compile``, registered when torch's compiler is imported.

``flex_sn_scan`` needs two registrations to compile well: its Dynamo variable
(:func:`flexsn_hop.install_dynamo_support`) and the neighbour pass in
Inductor's config (:func:`flexsn_hop.install_neighbour_pass`). Each imports
``torch._dynamo`` or ``torch._inductor.config``, which costs about a second
(several where torch's bytecode is not compiled yet), a cost a program that
never calls ``torch.compile`` should not pay when it imports FlexSN.

So each registration runs right after its torch module is imported (at once
when it already is), through wrapt's post-import hooks
(``wrapt.register_post_import_hook``; we use wrapt rather than our own
``sys.meta_path`` finder because it is the maintained implementation of
exactly this). ``torch.compile`` imports both before it traces anything, so
no compiled call misses them. Without wrapt they run at once, as before.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

__all__ = ["install_when_imported"]


def install_when_imported(module: str, install: Callable[[], object]) -> None:
    """Call ``install()`` once ``module`` is imported: now when it is, else right after its import.

    ``install`` must not raise (the registrations warn and return ``False``);
    it runs at once when wrapt is not installed.
    """
    if module in sys.modules:
        install()
        return
    try:
        import wrapt
    except ImportError:
        install()
        return

    def hook(_module: Any) -> None:
        install()

    wrapt.register_post_import_hook(hook, module)
