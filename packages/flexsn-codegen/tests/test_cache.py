"""``compile_triton_code_str`` and the on-disk cache.

Each test compiles a source made unique with a random comment: the
compiled modules are also cached in memory for the process, keyed by the
source text, so a fresh source is the only way to observe the disk.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import torch

import flexsn_codegen
from flexsn_codegen import (
    cache_dir,
    compile_triton_code_str,
    interpreter_enabled,
    load_launch_config,
    source_path,
    store_launch_config,
)

KERNEL = """import triton
import triton.language as tl

# {tag}


@triton.jit
def helper(x):
    return x * 2.0


@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, helper(tl.load(x_ptr + offs, mask=mask)), mask=mask)
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "flexsn-cache"
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(path))
    return path


def fresh_source() -> str:
    return KERNEL.format(tag=uuid.uuid4().hex)


def test_writes_the_source_into_flexsn_cache_dir(cache: Path, device: torch.device) -> None:
    code = fresh_source()
    fn = compile_triton_code_str(code, "double_kernel")
    files = list(cache.glob("*.py"))
    assert files == [source_path(code)]
    assert files[0].read_text(encoding="utf-8") == code
    x = torch.arange(37, dtype=torch.float32, device=device)
    y = torch.empty_like(x)
    fn[(3,)](x, y, 37, BLOCK=16)
    torch.testing.assert_close(y, x * 2)


def test_second_build_reuses_the_file(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = fresh_source()
    first = compile_triton_code_str(code, "double_kernel")
    path = source_path(code)
    os.utime(path, (1_000_000_000, 1_000_000_000))  # an old mtime: a rewrite could not go unnoticed
    assert compile_triton_code_str(code, "double_kernel") is first  # same process: the loaded module
    # The other execution mode loads the module again, from the existing file.
    monkeypatch.setenv("TRITON_INTERPRET", "0" if interpreter_enabled() else "1")
    other = compile_triton_code_str(code, "double_kernel", verbose=True)
    assert other is not first
    assert path.stat().st_mtime == 1_000_000_000
    assert len(list(cache.iterdir())) == 1


def test_verbose_says_written_or_reused(cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code = fresh_source()
    compile_triton_code_str(code, "double_kernel", verbose=True)
    assert "wrote" in capsys.readouterr().out
    monkeypatch.setenv("TRITON_INTERPRET", "0" if interpreter_enabled() else "1")
    compile_triton_code_str(code, "double_kernel", verbose=True)
    assert "reusing" in capsys.readouterr().out


def test_a_stale_file_with_other_content_is_replaced(cache: Path) -> None:
    code = fresh_source()
    path = source_path(code)
    path.write_text("half-written garbage", encoding="utf-8")
    compile_triton_code_str(code, "double_kernel")
    assert path.read_text(encoding="utf-8") == code


def test_atomic_write_leaves_no_temporary_files(cache: Path) -> None:
    for _ in range(3):
        compile_triton_code_str(fresh_source(), "double_kernel")
    names = sorted(p.name for p in cache.iterdir())
    assert len(names) == 3
    assert all(n.startswith("flexsn_") and n.endswith(".py") for n in names), names


def test_failed_write_cleans_up_and_raises(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(flexsn_codegen.cache.os, "replace", broken_replace)
    code = fresh_source()
    with pytest.raises(OSError, match="disk full"):
        compile_triton_code_str(code, "double_kernel")
    assert list(cache.iterdir()) == []


def test_concurrent_builds_share_one_file(cache: Path) -> None:
    code = fresh_source()
    results: list[Any] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            results.append(compile_triton_code_str(code, "double_kernel"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 8 and all(r is results[0] for r in results)
    assert [p.name for p in cache.iterdir()] == [source_path(code).name]


def test_name_space_gets_the_module_globals(cache: Path) -> None:
    ns: dict[str, Any] = {"unrelated": 1}
    fn = compile_triton_code_str(fresh_source(), "double_kernel", name_space=ns)
    assert ns["double_kernel"] is fn
    assert "helper" in ns and "tl" in ns and "triton" in ns
    assert ns["unrelated"] == 1
    assert not any(k.startswith("__") for k in ns)


def test_missing_kernel_name_is_a_value_error(cache: Path) -> None:
    with pytest.raises(ValueError, match="defines no 'no_such_kernel'"):
        compile_triton_code_str(fresh_source(), "no_such_kernel")


def test_non_string_arguments_are_type_errors() -> None:
    with pytest.raises(TypeError, match=r"expects \(str, str\)"):
        compile_triton_code_str(b"import triton", "k")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"expects \(str, str\)"):
        compile_triton_code_str(fresh_source(), None)  # type: ignore[arg-type]


def test_invalid_source_is_a_syntax_error(cache: Path) -> None:
    with pytest.raises(SyntaxError):
        compile_triton_code_str(f"def broken(:\n  # {uuid.uuid4().hex}\n", "broken")


def test_cache_dir_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FLEXSN_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "flexsn"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "flexsn"
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path / "explicit" / "nested"))
    assert cache_dir() == tmp_path / "explicit" / "nested"
    assert cache_dir().is_dir()  # created on demand


def test_source_path_depends_on_the_text_only(cache: Path) -> None:
    a, b = fresh_source(), fresh_source()
    assert source_path(a) == source_path(a)
    assert source_path(a) != source_path(b)
    assert source_path(a).parent == cache


@pytest.mark.parametrize("value, enabled", [("1", True), ("true", True), (" ON ", True), ("yes", True), ("0", False),
                                            ("", False), ("off", False)])
def test_interpreter_enabled(value: str, enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", value)
    assert interpreter_enabled() is enabled


def test_interpreter_disabled_when_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert interpreter_enabled() is False


def test_launch_config_round_trip(cache: Path) -> None:
    code = fresh_source()
    assert load_launch_config(code, "gpu|float32|b0") is None
    store_launch_config(code, "gpu|float32|b0", {"BLOCK_NCL": 256, "num_warps": 2})
    store_launch_config(code, "gpu|bfloat16|b1", {"BLOCK_NCL": 1024, "num_warps": 4})
    assert load_launch_config(code, "gpu|float32|b0") == {"BLOCK_NCL": 256, "num_warps": 2}
    assert load_launch_config(code, "gpu|bfloat16|b1") == {"BLOCK_NCL": 1024, "num_warps": 4}
    assert load_launch_config(fresh_source(), "gpu|float32|b0") is None
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]


def test_unreadable_launch_config_is_ignored(cache: Path) -> None:
    code = fresh_source()
    store_launch_config(code, "k", {"BLOCK_NCL": 128})
    (config,) = cache.glob("*.launch.json")
    config.write_text("{not json", encoding="utf-8")
    assert load_launch_config(code, "k") is None
    config.write_text('{"k": {"BLOCK_NCL": "big"}}', encoding="utf-8")
    assert load_launch_config(code, "k") is None
    store_launch_config(code, "k", {"BLOCK_NCL": 64})  # a broken file is replaced, not fatal
    assert load_launch_config(code, "k") == {"BLOCK_NCL": 64}
