"""``flexsn_nn.from_spikingjelly`` without SpikingJelly: it recognises SpikingJelly's modules by class name
and module path, so stand-ins with SpikingJelly 2.0's attributes are converted as its modules are (the
conversion against SpikingJelly itself, outputs and gradients: ``tests-integration/test_spikingjelly_parity.py``)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch import nn

import flexsn_nn
from flexsn_nn import from_spikingjelly, surrogate_from_spikingjelly


def _stand_in(name: str, module: str, **attrs: Any) -> nn.Module:
    cls = type(name, (nn.Module,), {"__module__": module})
    m = cls()
    for k, v in attrs.items():
        if isinstance(v, nn.Parameter):
            m.register_parameter(k, v)
        else:
            setattr(m, k, v)
    return m


def _sg(name: str, **params: Any) -> nn.Module:
    return _stand_in(name, "spikingjelly.activation_based.surrogate", spiking=True, **params)


def _neuron(name: str, **attrs: Any) -> nn.Module:
    base = dict(v_threshold=0.7, v_reset=None, detach_reset=True, step_mode="m", store_v_seq=True,
                surrogate_function=_sg("ATan", alpha=3.0))
    return _stand_in(name, "spikingjelly.activation_based.neuron.lif", **{**base, **attrs})


def test_the_neurons_take_their_settings_surrogate_and_learned_w() -> None:
    learned = nn.Parameter(torch.tensor(0.7))
    net = nn.Sequential(
        nn.Linear(4, 4),
        _neuron("LIFNode", tau=3.0, decay_input=False),
        _neuron("ParametricLIFNode", decay_input=True, w=learned),
        _neuron("CUBALIFNode", c_decay=0.6, v_decay=0.4, v_reset=0.0),
        _neuron("IzhikevichNode", tau=2.0, v_c=0.8, a0=1.0, v_rest=-0.1, w_rest=0.0, tau_w=3.0, a=0.2, b=0.1, v_reset=0.0),
    )
    out = from_spikingjelly(net)
    assert out is net and isinstance(net[0], nn.Linear)
    lif, plif, cuba, izh = net[1], net[2], net[3], net[4]
    assert isinstance(lif, flexsn_nn.LIFNode) and (lif.tau, lif.decay_input, lif.v_threshold, lif.v_reset) == (3.0, False, 0.7, None)
    assert lif.detach_reset and lif.step_mode == "m" and lif.store_v_seq and lif.surrogate_function == flexsn_nn.surrogate.ATan(3.0)
    assert isinstance(plif, flexsn_nn.ParametricLIFNode) and float(plif.w.detach()) == pytest.approx(0.7) and plif.w.requires_grad
    assert plif.w is learned  # the same Parameter: an optimizer built before the swap trains it
    assert isinstance(cuba, flexsn_nn.CUBALIFNode)
    assert (float(cuba.get_buffer("c_decay")), float(cuba.get_buffer("v_decay"))) == pytest.approx((0.6, 0.4))
    assert isinstance(izh, flexsn_nn.IzhikevichNode)
    x = torch.rand(5, 2, 4)
    assert net(x).shape == (5, 2, 4)  # a working network


def test_a_spikingjelly_flexsn_becomes_ours_over_the_same_core_and_static_inputs() -> None:
    w = nn.Parameter(torch.tensor(0.3))

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        s = flexsn_nn.surrogate.Sigmoid()(h - 1.0)
        return s, h * (1.0 - s)

    sj = _stand_in("FlexSN", "spikingjelly.activation_based.neuron.flexsn", core=core, num_states=1, static_inputs=(w,),
                   step_mode="m", store_state_seqs=True)
    ours = from_spikingjelly(sj)
    assert type(ours) is flexsn_nn.FlexSN and ours.core is core and ours.static_inputs[0] is w
    assert (ours.num_inputs, ours.num_states, ours.num_outputs, ours.step_mode, ours.store_state_seqs) == (1, 1, 1, "m", True)


def test_a_neuron_flexsn_lacks_stays_with_a_warning_and_a_bare_neuron_is_returned() -> None:
    other = _neuron("KLIFNode")
    net = nn.Sequential(_neuron("IFNode"), other)
    with pytest.warns(RuntimeWarning, match=r"left SpikingJelly's 1 \(KLIFNode\)"):
        from_spikingjelly(net)
    assert isinstance(net[0], flexsn_nn.IFNode) and net[1] is other
    assert isinstance(from_spikingjelly(_neuron("IFNode")), flexsn_nn.IFNode)


def test_surrogates_and_refusals() -> None:
    assert surrogate_from_spikingjelly(_sg("PiecewiseLeakyReLU", w=0.8, c=0.05)) == flexsn_nn.surrogate.PiecewiseLeakyReLU(0.8, 0.05)
    off = _sg("Sigmoid", alpha=2.0)
    off.spiking = False
    assert surrogate_from_spikingjelly(off) == flexsn_nn.surrogate.Sigmoid(2.0, spiking=False)
    with pytest.raises(TypeError, match="LogTailedReLU is not one of SpikingJelly's surrogates"):
        surrogate_from_spikingjelly(_sg("LogTailedReLU", alpha=0.1))
    with pytest.raises(TypeError, match="is not one of SpikingJelly's surrogates"):
        surrogate_from_spikingjelly(flexsn_nn.surrogate.ATan())  # already ours: nothing to convert
    with pytest.raises(TypeError, match="from_spikingjelly takes an nn.Module, got list"):
        from_spikingjelly([])  # type: ignore[arg-type]
    plain = nn.Sequential(nn.Linear(2, 2), flexsn_nn.LIFNode())
    assert from_spikingjelly(plain) is plain and isinstance(plain[1], flexsn_nn.LIFNode)  # nothing to swap
