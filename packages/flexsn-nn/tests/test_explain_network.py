"""``explain_network`` and ``flexsn explain module:net``: every neuron of a network, each as ``explain`` tells it."""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch

from flexsn_nn import FlexSN, LIFNode, NetworkExplanation, ParametricLIFNode, explain, explain_network


def running(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + torch.cumsum(x, -1)  # couples the neurons of one step: no kernels
    return (h > 1.0).to(x.dtype), h


def _network() -> torch.nn.Sequential:
    """Linear layers between a fused LIF, a PLIF in step mode "s" and a neuron whose core does not lower; the LIF
    appears twice (one module, two places)."""
    lif = LIFNode(step_mode="m")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cumsum neuron's construction warning: what the report says
        blocked = FlexSN(running, 1, 1, 1, step_mode="m")
    return torch.nn.Sequential(torch.nn.Linear(4, 4), lif, torch.nn.Linear(4, 4), ParametricLIFNode(), blocked, lif)


def test_each_neuron_is_explained_as_explain_tells_it() -> None:
    net = _network()
    report = explain_network(net)
    assert list(report.neurons) == ["1", "3", "4"]  # named_modules order; the shared LIF once
    assert report.kinds == {"1": "LIFNode", "3": "ParametricLIFNode", "4": "FlexSN"}
    for name in report.neurons:
        assert str(report.neurons[name]) == str(explain(net.get_submodule(name)))
    # as set up: the LIF runs fused; PLIF's step mode "s" takes no kernels (its core lowers), cumsum does not lower
    assert report.neurons["3"].lowers and report.neurons["3"].module_route is not None
    assert not report.neurons["4"].lowers and report.neurons["4"].blocking_op == "aten.cumsum.default"
    assert not report.lowers and not report.trains_fused
    assert report.fused() == ["1"] and report.fused(training=True) == ["1"]
    text = str(report).splitlines()
    assert text[0] == "3 FlexSN neurons: as set up, 1 run inference fused, 1 train fused"
    assert text[1] == "1 (LIFNode): fused inference: yes; fused training: yes"
    assert any(line.startswith("    blocking op: aten.cumsum.default") for line in text)


def test_a_network_whose_neurons_all_run_fused() -> None:
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), LIFNode(step_mode="m"), ParametricLIFNode(step_mode="m"))
    report = explain_network(net)
    assert isinstance(report, NetworkExplanation) and report.lowers and report.trains_fused
    assert str(report).splitlines()[0] == "2 FlexSN neurons: as set up, 2 run inference fused, 2 train fused"
    single = explain_network(LIFNode(step_mode="m"))  # a neuron alone is a network of one, under its class name
    assert list(single.neurons) == ["LIFNode"] and str(single).startswith("1 FlexSN neuron: ")


def test_what_is_not_a_network_of_neurons_is_refused() -> None:
    with pytest.raises(TypeError, match="explain_network expects an nn.Module holding FlexSN neurons, got function"):
        explain_network(running)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Sequential holds no FlexSN neuron \(its modules: \['Linear', 'ReLU', "):
        explain_network(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()))
    with pytest.raises(TypeError, match="Sequential holds FlexSN neurons: explain_network"):
        explain(_network())  # before: the message asked a core function for its three counts


def test_the_console_command_explains_a_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``flexsn explain module:net``: each neuron's summary; exit status 1 when one does not run fused as set up."""
    from flexsn_nn.cli import main

    (tmp_path / "cli_network.py").write_text(textwrap.dedent("""
        import torch
        from flexsn_nn import LIFNode, ParametricLIFNode

        fused = torch.nn.Sequential(torch.nn.Linear(4, 4), LIFNode(step_mode="m"))
        mixed = torch.nn.Sequential(torch.nn.Linear(4, 4), LIFNode(step_mode="m"), ParametricLIFNode())
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cli_network", raising=False)
    import cli_network  # type: ignore[import-not-found]

    assert main(["explain", "cli_network:fused"]) == 0
    assert capsys.readouterr().out == str(explain_network(cli_network.fused)) + "\n"
    assert main(["explain", "cli_network:mixed"]) == 1  # PLIF's step mode "s" takes no kernels
    out = capsys.readouterr().out
    assert out == str(explain_network(cli_network.mixed)) + "\n" and "2 (ParametricLIFNode)" in out
