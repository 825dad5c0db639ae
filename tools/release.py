#!/usr/bin/env python3
"""Release helpers for the five FlexSN packages.

    python tools/release.py bump flexsn-codegen minor
    python tools/release.py build [--outdir dist] [--wheel-only]
    python tools/release.py check [--dist dist | --source]

`bump` rewrites a package's ``src/<pkg>/__about__.py`` and opens a CHANGELOG
section for the new version (the ``[Unreleased]`` entries move under it).
`build` builds every package's wheel and sdist.  `check` reads the built
wheels' METADATA and verifies names, versions (equal to ``__about__.py``),
that ``py.typed`` ships, and that each package's dependency range on the
layer below admits that layer's current version; ``--source`` applies the
same rules to the pyproject.toml files instead of wheels.
"""

from __future__ import annotations

import argparse
import datetime
import email.parser
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]

# Distribution names, lowest layer first.  .importlinter holds the same order
# (tests-integration/test_layering.py checks that the two agree).
PACKAGES: tuple[str, ...] = (
    "flexsn-trace",
    "flexsn-codegen",
    "flexsn-runtime",
    "flexsn-hop",
    "flexsn-nn",
)

_VERSION_RE = re.compile(r'^__version__[ \t]*=[ \t]*"([^"]+)"[ \t]*$', re.MULTILINE)
_UNRELEASED = "## [Unreleased]"


class ReleaseError(Exception):
    """A problem the user must fix; printed without a traceback."""


@dataclass(frozen=True)
class PackageMeta:
    """The metadata fields `check` compares, from a wheel or from the source tree."""

    name: str
    version: str
    requires: tuple[str, ...]
    has_py_typed: bool


def import_name(dist: str) -> str:
    return dist.replace("-", "_")


def package_dir(dist: str, repo: Path = REPO) -> Path:
    return repo / "packages" / dist


def about_path(dist: str, repo: Path = REPO) -> Path:
    return package_dir(dist, repo) / "src" / import_name(dist) / "__about__.py"


def resolve_package(name: str) -> str:
    """Accept a distribution name or an import name."""
    dist = str(canonicalize_name(name))
    if dist not in PACKAGES:
        raise ReleaseError(f"unknown package {name!r}; expected one of: {', '.join(PACKAGES)}")
    return dist


def read_version(dist: str, repo: Path = REPO) -> str:
    path = about_path(dist, repo)
    match = _VERSION_RE.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise ReleaseError(f'{path}: no line of the form __version__ = "X.Y.Z"')
    return match.group(1)


def bumped(version: str, part: str) -> str:
    v = Version(version)
    major, minor, patch = (list(v.release) + [0, 0, 0])[:3]
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise ReleaseError(f"unknown version part {part!r}; expected major, minor or patch")


def bump(dist: str, part: str, repo: Path = REPO, today: datetime.date | None = None) -> str:
    """Bump one package's version and open its CHANGELOG section; returns the new version."""
    dist = resolve_package(dist)
    old = read_version(dist, repo)
    new = bumped(old, part)
    about = about_path(dist, repo)
    about.write_text(
        _VERSION_RE.sub(f'__version__ = "{new}"', about.read_text(encoding="utf-8"), count=1),
        encoding="utf-8",
    )

    changelog = package_dir(dist, repo) / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    if _UNRELEASED not in text:
        raise ReleaseError(f"{changelog}: no '{_UNRELEASED}' heading to release from")
    date = (today or datetime.date.today()).isoformat()
    changelog.write_text(
        text.replace(_UNRELEASED, f"{_UNRELEASED}\n\n## [{new}] - {date}", 1),
        encoding="utf-8",
    )
    return new


def build(outdir: Path, *, wheel_only: bool = False, repo: Path = REPO) -> list[Path]:
    """Build every package into ``outdir``; returns the wheels built."""
    outdir.mkdir(parents=True, exist_ok=True)
    try:
        import hatchling  # noqa: F401  (present: build without an isolated env, no network)

        isolation = ["--no-isolation"]
    except ImportError:
        isolation = []
    wheels = []
    for dist in PACKAGES:
        command = [sys.executable, "-m", "build", *isolation, "--outdir", str(outdir)]
        if wheel_only:
            command.append("--wheel")
        command.append(str(package_dir(dist, repo)))
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise ReleaseError(f"building {dist} failed:\n{result.stdout}\n{result.stderr}")
        wheels.append(find_wheel(outdir, dist, read_version(dist, repo)))
    return wheels


def find_wheel(dist_dir: Path, dist: str, version: str) -> Path:
    wheel = dist_dir / f"{import_name(dist)}-{version}-py3-none-any.whl"
    if not wheel.is_file():
        found = sorted(p.name for p in dist_dir.glob(f"{import_name(dist)}-*.whl"))
        raise ReleaseError(
            f"no wheel for {dist} {version} in {dist_dir} (found: {', '.join(found) or 'none'}); "
            "run `python tools/release.py build` first"
        )
    return wheel


def wheel_meta(wheel: Path) -> PackageMeta:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_files = [n for n in names if n.endswith(".dist-info/METADATA")]
        if len(metadata_files) != 1:
            raise ReleaseError(f"{wheel.name}: expected one .dist-info/METADATA, found {metadata_files}")
        message = email.parser.Parser().parsestr(archive.read(metadata_files[0]).decode("utf-8"))
    name = message["Name"]
    return PackageMeta(
        name=name,
        version=message["Version"],
        requires=tuple(message.get_all("Requires-Dist") or ()),
        has_py_typed=f"{import_name(name)}/py.typed" in names,
    )


def source_meta(dist: str, repo: Path = REPO) -> PackageMeta:
    directory = package_dir(dist, repo)
    project = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return PackageMeta(
        name=project["name"],
        version=read_version(dist, repo),
        requires=tuple(project.get("dependencies", ())),
        has_py_typed=(directory / "src" / import_name(dist) / "py.typed").is_file(),
    )


def check_metas(metas: dict[str, PackageMeta], versions: dict[str, str]) -> list[str]:
    """Compare metadata (per distribution) against the source versions; returns the problems found."""
    problems = []
    for layer, dist in enumerate(PACKAGES):
        meta = metas[dist]
        if canonicalize_name(meta.name) != dist:
            problems.append(f"{dist}: metadata name is {meta.name!r}")
        if meta.version != versions[dist]:
            problems.append(f"{dist}: metadata version {meta.version} != __about__.py version {versions[dist]}")
        if not meta.has_py_typed:
            problems.append(f"{dist}: py.typed is missing")
        internal = {}
        for spec in meta.requires:
            requirement = Requirement(spec)
            dep = str(canonicalize_name(requirement.name))
            if dep.startswith("flexsn-"):
                internal[dep] = requirement
        below = PACKAGES[layer - 1] if layer > 0 else None
        for dep, requirement in internal.items():
            if dep not in PACKAGES[:layer]:
                problems.append(f"{dist}: depends on {dep}, which is not a lower layer")
            elif not requirement.specifier.contains(versions[dep], prereleases=True):
                problems.append(
                    f"{dist}: requirement '{requirement}' does not admit the current {dep} {versions[dep]}"
                )
        if below is not None and below not in internal:
            problems.append(f"{dist}: does not declare a dependency on the layer below, {below}")
    return problems


def check(dist_dir: Path | None, repo: Path = REPO) -> list[str]:
    """Check built wheels in ``dist_dir`` (or the source tree when None); returns the problems."""
    versions = {dist: read_version(dist, repo) for dist in PACKAGES}
    if dist_dir is None:
        metas = {dist: source_meta(dist, repo) for dist in PACKAGES}
    else:
        metas = {dist: wheel_meta(find_wheel(dist_dir, dist, versions[dist])) for dist in PACKAGES}
    return check_metas(metas, versions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    p_bump = commands.add_parser("bump", help="bump one package's version and open its CHANGELOG section")
    p_bump.add_argument("package", help="distribution or import name, e.g. flexsn-codegen")
    p_bump.add_argument("part", choices=("major", "minor", "patch"))

    p_build = commands.add_parser("build", help="build every package's wheel and sdist")
    p_build.add_argument("--outdir", type=Path, default=REPO / "dist")
    p_build.add_argument("--wheel-only", action="store_true", help="skip the sdists")

    p_check = commands.add_parser("check", help="check built wheels (or the source tree) for consistency")
    where = p_check.add_mutually_exclusive_group()
    where.add_argument("--dist", type=Path, default=REPO / "dist", help="folder with the built wheels")
    where.add_argument("--source", action="store_true", help="check pyproject.toml files instead of wheels")

    args = parser.parse_args(argv)
    try:
        if args.command == "bump":
            dist = resolve_package(args.package)
            old = read_version(dist)
            new = bump(dist, args.part)
            print(f"{dist}: {old} -> {new}; fill in packages/{dist}/CHANGELOG.md")
            print("then run `python tools/release.py check --source` (higher layers may need their ranges widened)")
        elif args.command == "build":
            for wheel in build(args.outdir, wheel_only=args.wheel_only):
                print(f"built {wheel}")
        else:
            problems = check(None if args.source else args.dist)
            if problems:
                print("release check failed:", *problems, sep="\n  ", file=sys.stderr)
                return 1
            what = "source tree" if args.source else f"wheels in {args.dist}"
            print(f"release check passed ({what}): " + ", ".join(f"{d} {read_version(d)}" for d in PACKAGES))
    except ReleaseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
