"""Every ```python block of the READMEs runs as written, on the kernels.

The quick start alone ran before (``test_wheels.py``, from built wheels); the other examples (static inputs,
each package's own README) could go stale unseen. Each README's blocks run in order in one namespace, as a reader
pastes them; a FlexSN fallback warning fails the test (an example that runs the eager loop shows nothing the
text promises), and a ``print(...)  # value`` comment must be what the line printed.

The examples are written for CPU tensors with ``TRITON_INTERPRET=1``, as the READMEs say; on a CUDA host without
the interpreter their CPU tensors fall back by design (and Triton's compiler wants ``@triton.jit`` sources in a
file), so there the test is skipped (the GPU suite runs the same calls on CUDA in the package tests).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", *sorted(ROOT.glob("packages/*/README.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
#: a print whose comment states the printed value (``print(w.grad.shape)  # torch.Size([16, 1])``)
_PRINTED = re.compile(r"^\s*print\(.*\)\s+#\s*(torch\.Size\(\[[\d, ]*\]\)|-?\d[\d.e+-]*|True|False|\([\d, ]*\))\s*$")


def blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown text, each with the line its code starts on."""
    return [(text[: m.start(1)].count("\n") + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_blocks_are_found_with_their_lines() -> None:
    text = "# X\n\n```bash\nls\n```\n\n```python\nprint(1)\n```\n\ntext\n```python\na = 2\nb = 3\n```\n"
    assert blocks(text) == [(8, "print(1)\n"), (13, "a = 2\nb = 3\n")]


def _run_block(code: str, where: str, namespace: dict[str, object]) -> list[str]:
    """Run one block as a module in ``namespace``; returns what it printed, one entry per printed line."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), namespace)  # noqa: S102 - the README's own example
    return out.getvalue().splitlines()


@pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1", reason="the examples' CPU tensors run on the kernels only in Triton's interpreter"
)
@pytest.mark.parametrize("readme", READMES, ids=[str(p.relative_to(ROOT)) for p in READMES])
def test_the_readme_examples_run_on_the_kernels(readme: Path) -> None:
    found = blocks(readme.read_text(encoding="utf-8"))
    if not found:
        pytest.skip(f"{readme.relative_to(ROOT)} has no ```python block")
    namespace: dict[str, object] = {"__name__": "__readme__"}
    torch._dynamo.reset()
    try:
        for line, code in found:
            where = f"{readme.relative_to(ROOT)}:{line}"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                printed = _run_block(code, where, namespace)
            fallbacks = [str(w.message) for w in caught if str(w.message).startswith("FlexSN")]
            assert not fallbacks, f"{where}: the example warned {fallbacks}"
            promised = [m.group(1).strip() for m in map(_PRINTED.match, code.splitlines()) if m]
            for value in promised:
                assert value in printed, f"{where}: the comment says {value!r}, the example printed {printed}"
    finally:
        torch._dynamo.reset()


def test_only_value_comments_are_promises() -> None:
    assert _PRINTED.match("print(w.grad.shape)  # torch.Size([16, 1])").group(1) == "torch.Size([16, 1])"  # type: ignore[union-attr]
    assert _PRINTED.match("print(n)  # 3").group(1) == "3"  # type: ignore[union-attr]
    assert _PRINTED.match("print(training.bwd)  # [*saved, *tangents] -> [grad_x, grad_v]") is None
    assert _PRINTED.match("y = f(x)  # torch.Size([2])") is None
