"""The code cache folder: private (0700, ours, not writable by others) or refused with one warning."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from flexsn_codegen import compile_triton_code_str
from flexsn_codegen.cache_location import cache_dir

SOURCE = "import triton\n\n\n@triton.jit\ndef add_one(x):\n    return x + 1\n"


def _use(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(path))


def test_a_new_folder_is_created_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "fresh" / "cache"
    _use(monkeypatch, target)
    assert cache_dir() == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o700


def test_a_folder_others_can_write_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # as root too: the mode is checked, not access
    (shared / "planted.py").write_text("raise SystemExit('planted code ran')\n")
    _use(monkeypatch, shared)
    with pytest.warns(RuntimeWarning, match=r"FLEXSN_CACHE_DIR.*|writable by other users"):
        used = cache_dir()
    assert used != shared and stat.S_IMODE(used.stat().st_mode) == 0o700
    fn = compile_triton_code_str(SOURCE, "add_one")
    assert Path(fn.fn.__code__.co_filename).parent == used


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown to another user needs root")
def test_a_folder_owned_by_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    _use(monkeypatch, theirs)
    with pytest.warns(RuntimeWarning, match="owned by uid 65534"):
        assert cache_dir() != theirs


def test_an_unwritable_folder_falls_back_and_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    _use(monkeypatch, blocker / "cache")  # cannot be created, as root too
    with pytest.warns(RuntimeWarning, match="FLEXSN_CACHE_DIR") as record:
        used = cache_dir()
        assert cache_dir() == used  # decided once: one warning
    assert len([w for w in record if "FLEXSN_CACHE_DIR" in str(w.message)]) == 1
    fn = compile_triton_code_str(SOURCE.replace("add_one", "add_one_ro"), "add_one_ro")
    assert fn is not None


@pytest.mark.skipif(hasattr(os, "getuid") and os.getuid() == 0, reason="root writes read-only folders")
def test_a_read_only_folder_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    _use(monkeypatch, ro)
    with pytest.warns(RuntimeWarning, match="not writable"):
        assert cache_dir() != ro


def test_a_damaged_source_entry_is_rewritten_before_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, tmp_path / "c")
    from flexsn_codegen import source_path

    code = SOURCE.replace("add_one", "add_one_dmg")
    path = source_path(code)
    path.write_bytes(b"\xff\xfe not utf-8 \x00")
    fn = compile_triton_code_str(code, "add_one_dmg")
    assert path.read_text(encoding="utf-8") == code and fn is not None
