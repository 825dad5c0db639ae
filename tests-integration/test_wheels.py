"""The built wheels work when installed, outside the source tree.

Each test builds a fresh virtual environment, installs some of the five wheels
into it with ``pip install --no-deps``, and runs a script there.  torch,
triton and the other third-party packages come from the test environment: a
``.pth`` file appends its site-packages folders to the new environment's
``sys.path`` (as plain paths, so the editable FlexSN installs of the test
environment, which are themselves ``.pth`` files, stay invisible).
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import release

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    built = release.build(tmp_path_factory.mktemp("wheels"), wheel_only=True)
    return dict(zip(release.PACKAGES, built, strict=True))


class Venv:
    def __init__(self, path: Path, wheels: list[Path]) -> None:
        self.path = path
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
        self.python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        self.run_checked(["-m", "pip", "install", "--no-deps", "--no-index", *map(str, wheels)])
        purelib = self.run_checked(["-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
        # After installing, so that pip never sees (or touches) the test environment's packages.
        parent = [p for p in site.getsitepackages() if Path(p).is_dir()]
        (Path(purelib) / "_flexsn_test_parent_env.pth").write_text("\n".join(parent) + "\n")

    def run(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["TRITON_INTERPRET"] = "1"
        env["FLEXSN_CACHE_DIR"] = str(self.path / "flexsn-cache")  # compiled sources from this venv only
        return subprocess.run(
            [str(self.python), *args], cwd=self.path, env=env, capture_output=True, text=True
        )

    def run_checked(self, args: list[str]) -> str:
        result = self.run(args)
        assert result.returncode == 0, f"{args} failed in {self.path}:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def run_script(self, name: str, source: str) -> str:
        script = self.path / name
        script.write_text(source)  # a real file: triton.jit reads kernel source with inspect
        return self.run_checked([str(script)])


CODEGEN_ALONE = """
import sys

import torch
import triton
import triton.language as tl

import flexsn_codegen
import flexsn_trace
from flexsn_codegen import compile_triton_code_str, generate_triton_code_str
from flexsn_trace import generate_inference_graph

for module in (flexsn_trace, flexsn_codegen):
    assert module.__file__.startswith(sys.prefix), f"{module.__name__} not from the wheel: {module.__file__}"


def f(x, y):  # any elementwise function: no neuron, no state
    return torch.sigmoid(x) * y + torch.abs(x - 0.5) * 2.0


x = torch.randn(100)
y = torch.randn(100)
graph = generate_inference_graph(f, (x, y))
code, name = generate_triton_code_str(graph, "fn")
fn = compile_triton_code_str(code, name)


@triton.jit
def kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(x_ptr + offsets, mask=mask)
    b = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, fn(a, b), mask=mask)


out = torch.empty_like(x)
kernel[(triton.cdiv(x.numel(), 64),)](x, y, out, x.numel(), BLOCK=64)
torch.testing.assert_close(out, f(x, y))
print("codegen alone: ok")
"""


def test_codegen_wheel_works_without_the_upper_layers(tmp_path: Path, wheels: dict[str, Path]) -> None:
    venv = Venv(tmp_path / "venv", [wheels["flexsn-trace"], wheels["flexsn-codegen"]])
    assert "codegen alone: ok" in venv.run_script("codegen_alone.py", CODEGEN_ALONE)
    for upper in release.PACKAGES[2:]:
        result = venv.run(["-c", f"import {release.import_name(upper)}"])
        assert result.returncode != 0 and "ModuleNotFoundError" in result.stderr, (
            f"{upper} is importable without its wheel:\n{result.stdout}\n{result.stderr}"
        )


def quick_start_snippet(readme: str) -> str | None:
    """The first ```python block under the 'Quick start' heading of a README, if any."""
    lines = readme.splitlines()
    for i, line in enumerate(lines):
        heading = re.match(r"^(#+)\s+quick start\s*$", line.strip(), re.IGNORECASE)
        if heading:
            break
    else:
        return None
    level = len(heading.group(1))
    block: list[str] | None = None
    for line in lines[i + 1 :]:
        if block is None:
            other = re.match(r"^(#+)\s", line)
            if other and len(other.group(1)) <= level:
                return None
            if line.strip() == "```python":
                block = []
        elif line.strip() == "```":
            return textwrap.dedent("\n".join(block)) + "\n"
        else:
            block.append(line)
    return None


def test_quick_start_snippet_extraction() -> None:
    readme = "# X\n\n## Quick start\n\ntext\n\n```bash\nls\n```\n\n```python\nprint(1)\n```\n\n```python\nprint(2)\n```\n"
    assert quick_start_snippet(readme) == "print(1)\n"
    assert quick_start_snippet("## Quick start\n\nnothing yet\n\n## Next\n\n```python\nprint(3)\n```\n") is None
    assert quick_start_snippet("# Other\n```python\nprint(4)\n```\n") is None


def test_readme_quick_start_runs_from_the_wheels(tmp_path: Path, wheels: dict[str, Path]) -> None:
    snippet = quick_start_snippet((REPO / "README.md").read_text(encoding="utf-8"))
    if snippet is None:
        pytest.skip("README.md has no ```python block under a 'Quick start' heading yet")
    venv = Venv(tmp_path / "venv", list(wheels.values()))
    venv.run_script("quick_start.py", snippet)
