"""Environment variables (one declaration, one boolean rule, README generated from it) and README's generated op list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flexsn_trace.env import ENV_VARS, env_flag, env_value, markdown_table

ROOT = Path(__file__).resolve().parents[1]


def test_readme_table_is_the_declared_one() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- env-table:start -->\n(.*?)\n<!-- env-table:end -->", text, re.S)
    assert m is not None, "README.md lost its env-table markers"
    assert m.group(1) == markdown_table()


def test_no_package_reads_the_environment_elsewhere() -> None:
    offenders = []
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        if path.name == "env.py" and path.parent.name == "flexsn_trace":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"os\.environ|os\.getenv|getenv\(", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"read the environment through flexsn_trace.env: {offenders}"


def test_every_flexsn_variable_named_in_the_sources_is_declared() -> None:
    declared = {v.name for v in ENV_VARS}
    named = set()
    for path in ROOT.glob("packages/*/src/**/*.py"):
        named |= set(re.findall(r'"(FLEXSN_[A-Z_]+)"', path.read_text(encoding="utf-8")))
    named.discard("FLEXSN_ROUND_BY_HAND")  # a name inside generated kernel sources, not a variable
    assert named <= declared, named - declared


@pytest.mark.parametrize(
    "raw, expected",
    [("1", True), (" TRUE ", True), ("yes", True), ("on", True), ("0", False), ("false", False), ("No", False),
     ("off", False), ("", True)],
)
def test_one_boolean_rule(monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool) -> None:
    monkeypatch.setenv("FLEXSN_PREFETCH", raw)  # default 1
    assert env_flag("FLEXSN_PREFETCH") is expected


def test_an_unknown_value_warns_and_keeps_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEXSN_TRACE_CACHE", "maybe")
    with pytest.warns(RuntimeWarning, match="FLEXSN_TRACE_CACHE='maybe'"):
        assert env_flag("FLEXSN_TRACE_CACHE") is True
    monkeypatch.setenv("TRITON_INTERPRET", "perhaps")
    with pytest.warns(RuntimeWarning, match="TRITON_INTERPRET"):
        assert env_flag("TRITON_INTERPRET") is False


def test_values_are_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FLEXSN_CACHE_DIR", raising=False)
    assert env_value("FLEXSN_CACHE_DIR") is None
    monkeypatch.setenv("FLEXSN_CACHE_DIR", "/tmp/x")
    assert env_value("FLEXSN_CACHE_DIR") == "/tmp/x"
    import flexsn_hop
    import flexsn_hop.fused as fused

    # the slot as after import (other tests may have registered an implementation)
    monkeypatch.setattr(fused, "_fused_impl", fused._DEFAULT)
    monkeypatch.setenv("FLEXSN_HOP_FUSED", "0")
    assert not flexsn_hop.fused_kernels_enabled() and flexsn_hop.get_fused_impl() is None
    monkeypatch.setenv("FLEXSN_HOP_FUSED", "1")  # no hook installed at import: the variable decides now
    assert flexsn_hop.fused_kernels_enabled() and flexsn_hop.get_fused_impl() is flexsn_hop.runtime_fused_impl
    flexsn_hop.enable_fused_kernels(False)  # an explicit choice wins over the variable
    assert not flexsn_hop.fused_kernels_enabled()


def test_undeclared_names_are_refused() -> None:
    with pytest.raises(KeyError, match="not a declared"):
        env_flag("FLEXSN_NO_SUCH_FLAG")
    with pytest.raises(KeyError, match="not a declared"):
        env_value("FLEXSN_PREFETCH")  # a flag, not a path


def test_readme_lists_the_ops_that_lower() -> None:
    """README's op list is ``flexsn_codegen.supported_ops()`` (regenerate it when the lowering table changes)."""
    from flexsn_codegen import supported_ops

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- supported-ops:start -->\n(.*?)\n<!-- supported-ops:end -->", text, re.S)
    assert m is not None, "README.md lost its supported-ops markers"
    assert m.group(1) == ", ".join(f"`{op}`" for op in supported_ops())
