"""``tools/guard_probe.py``: a compiled network's guards on FlexSN's watched numbers are on the numbers' places.

A compiled call checks every guard Dynamo installed before it runs. The numbers a core reads are guarded so
that a change compiles again (``flexsn_trace.Constants.current``); reading them through the objects that
describe how to read them (the ``Constant`` items, their ``functools.partial`` readers) made Dynamo guard those
objects too, about 25 guards per number. They are read from an anchor along a constant path now
(``flexsn_trace.anchors``): no guard may sit on the readers, while the numbers themselves stay guarded (the
tests of changed numbers under ``torch.compile`` check that a change compiles again).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import guard_probe  # noqa: E402


def test_the_guards_watch_the_numbers_places_not_their_readers() -> None:
    fused, tree = guard_probe.probe("triton", channels=2, rounds=1, number=1)
    loop, _ = guard_probe.probe("torch", channels=2, rounds=1, number=1)
    sources = re.findall(r"source=(.+?), accessed_by", tree)
    on_readers = [s for s in sources if ".constants.items" in s or ".read." in s or s.endswith(".read")]
    assert not on_readers, on_readers[:3]
    # the numbers of the surrogate the cores read through a closure cell are guarded where they live
    assert re.search(r"_anchors\[0\]\.cell_contents\.\w+ == ", tree)
    # and the count stays near the loop's, whose guards Dynamo installs while tracing the core itself
    assert fused["leaf_guards"] < 1.5 * loop["leaf_guards"], (fused["leaf_guards"], loop["leaf_guards"])
