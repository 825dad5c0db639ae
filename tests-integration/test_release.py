"""tools/release.py: version bumps, wheel/sdist builds and the metadata check."""

from __future__ import annotations

import dataclasses
import datetime
import shutil
from pathlib import Path

import pytest
import release

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """pyproject.toml, CHANGELOG.md and src/<pkg>/{__about__.py,py.typed} of each package, copied."""
    for dist in release.PACKAGES:
        source, target = release.package_dir(dist), release.package_dir(dist, tmp_path)
        (target / "src" / release.import_name(dist)).mkdir(parents=True)
        for name in ("pyproject.toml", "CHANGELOG.md"):
            shutil.copy(source / name, target / name)
        for name in ("__about__.py", "py.typed"):
            shutil.copy(source / "src" / release.import_name(dist) / name, target / "src" / release.import_name(dist))
    return tmp_path


def source_metas() -> dict[str, release.PackageMeta]:
    return {dist: release.source_meta(dist) for dist in release.PACKAGES}


def test_source_tree_is_consistent() -> None:
    assert release.check(None) == []
    assert release.main(["check", "--source"]) == 0


@pytest.mark.parametrize(
    ("dist", "change", "expected"),
    [
        ("flexsn-hop", {"version": "0.1.1"}, "metadata version 0.1.1 != __about__.py version"),
        ("flexsn-nn", {"name": "flexsn-neurons"}, "metadata name is 'flexsn-neurons'"),
        ("flexsn-trace", {"has_py_typed": False}, "py.typed is missing"),
        ("flexsn-runtime", {"requires": ("flexsn-codegen>=0.2,<0.3",)}, "does not admit the current flexsn-codegen"),
        ("flexsn-codegen", {"requires": ("torch>=2.4", "triton>=3.0")}, "does not declare a dependency on the layer"),
        (
            "flexsn-codegen",
            {"requires": ("flexsn-trace>=0.1,<0.2", "flexsn-hop>=0.1")},
            "depends on flexsn-hop, which is not a lower layer",
        ),
    ],
)
def test_check_reports(dist: str, change: dict[str, object], expected: str) -> None:
    metas = source_metas()
    metas[dist] = dataclasses.replace(metas[dist], **change)  # type: ignore[arg-type]
    versions = {d: release.read_version(d) for d in release.PACKAGES}
    problems = release.check_metas(metas, versions)
    assert len(problems) == 1 and problems[0].startswith(f"{dist}: ") and expected in problems[0], problems


def test_bump_patch_keeps_ranges_valid(repo_copy: Path) -> None:
    new = release.bump("flexsn-codegen", "patch", repo=repo_copy, today=datetime.date(2027, 1, 2))
    assert new == "0.1.1"
    about = release.about_path("flexsn-codegen", repo_copy).read_text()
    assert about == '__version__ = "0.1.1"\n'
    changelog = (release.package_dir("flexsn-codegen", repo_copy) / "CHANGELOG.md").read_text()
    assert "## [Unreleased]\n\n## [0.1.1] - 2027-01-02\n" in changelog
    assert changelog.index("## [0.1.1]") < changelog.index("## [0.1.0]")
    assert release.check(None, repo=repo_copy) == []


def test_bump_minor_breaks_the_layer_above(repo_copy: Path) -> None:
    assert release.bump("flexsn_codegen", "minor", repo=repo_copy) == "0.2.0"
    problems = release.check(None, repo=repo_copy)
    assert sorted(problems) == [  # every package that requires flexsn-codegen
        "flexsn-hop: requirement 'flexsn-codegen<0.2,>=0.1' does not admit the current flexsn-codegen 0.2.0",
        "flexsn-nn: requirement 'flexsn-codegen<0.2,>=0.1' does not admit the current flexsn-codegen 0.2.0",
        "flexsn-runtime: requirement 'flexsn-codegen<0.2,>=0.1' does not admit the current flexsn-codegen 0.2.0",
    ]


@pytest.mark.parametrize(("part", "expected"), [("major", "2.0.0"), ("minor", "1.3.0"), ("patch", "1.2.4")])
def test_bumped(part: str, expected: str) -> None:
    assert release.bumped("1.2.3", part) == expected


def test_unknown_package_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert release.main(["bump", "flexsn-nope", "patch"]) == 1
    assert "unknown package 'flexsn-nope'" in capsys.readouterr().err


def test_build_then_check_wheels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert release.main(["check", "--dist", str(tmp_path)]) == 1
    assert "no wheel for flexsn-trace 0.1.0" in capsys.readouterr().err

    wheels = release.build(tmp_path)
    assert [w.name for w in wheels] == [
        f"{release.import_name(d)}-{release.read_version(d)}-py3-none-any.whl" for d in release.PACKAGES
    ]
    assert len(list(tmp_path.glob("*.tar.gz"))) == len(release.PACKAGES)
    assert release.check(tmp_path) == []
    assert release.main(["check", "--dist", str(tmp_path)]) == 0
