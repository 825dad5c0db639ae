"""Which NumPy scalars Dynamo guards when traced code reads one and turns it into a Python number.

For each kind and each conversion (``.item()``, ``float()``), a compiled function reads a dict's scalar, converts
it and compares it with the value it was compiled with; the dict's value is then changed. "guarded": the change
made Dynamo compile again (the comparison then raised in the new compile). Anything else is printed as it came.
Backs ``flexsn_runtime.compile_time.guarded_by_dynamo``. Run: ``python numpy_guard.py`` (CPU is enough).
"""

import functools
import json
import operator

import numpy as np
import torch

out = {"torch": torch.__version__}
for conv in ("item", "float"):
    for kind in (np.float64, np.float32, np.float16, np.int64, np.bool_):
        held = {"a": kind(1)}
        read = functools.partial(operator.getitem, held, "a")

        def f(x: torch.Tensor) -> torch.Tensor:
            v = read()
            c = (v.item() if conv == "item" else float(v)) if type(v).__module__ == "numpy" else v
            if (c,) != (1,):
                raise ValueError("changed")
            return x + 1

        torch._dynamo.reset()
        cf = torch.compile(f, fullgraph=True, backend="eager")
        try:
            cf(torch.ones(2))
            held["a"] = kind(0)
            cf(torch.ones(2))
            result = "not guarded (stale)"
        except Exception as e:  # noqa: BLE001 - the probe reports what happened
            result = "guarded" if "Observed exception" in str(e) or isinstance(e, ValueError) else f"{type(e).__name__}: {str(e)[:80]}"
        out[f"{conv} {kind.__name__}"] = result
print(json.dumps(out, indent=1))
