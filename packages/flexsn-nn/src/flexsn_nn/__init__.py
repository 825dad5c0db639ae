"""flexsn_nn: spiking neurons from single-step cores, as ``nn.Module`` s.

Layer 5 of FlexSN:

* :class:`FlexSN`: the module (backends ``torch``, ``triton``,
  ``inductor``, ``hop``; ``step_mode`` ``"s"`` / ``"m"``; states,
  ``store_state_seqs``, ``reset``, ``init_states``);
* :mod:`flexsn_nn.surrogate`: surrogate-gradient spike functions usable
  inside a core (``Sigmoid``, ``ATan``, ``PiecewiseQuadratic``,
  ``SoftSign``, ``Erf``, ``SuperSpike``, ``PiecewiseLeakyReLU``, ``Rect``);
* neurons with SpikingJelly's names, argument order and defaults
  (``step_mode="s"``, :data:`NEURON_STEP_MODE`: one step a call; pass
  ``step_mode="m"`` for ``[T, *shape]`` sequences): :class:`IFNode`,
  :class:`LIFNode` (:mod:`flexsn_nn.neurons`); :class:`ParametricLIFNode`,
  :class:`LearnableThresholdLIFNode`, :class:`AdaptiveLIFNode`,
  :class:`CUBALIFNode` (learnable parameters,
  :mod:`flexsn_nn.neurons_learnable`); :class:`QIFNode`, :class:`EIFNode`,
  :class:`IzhikevichNode` (:mod:`flexsn_nn.neurons_nonlinear`);
* :mod:`flexsn_nn.functional`: :func:`reset_net`, :func:`detach_net`,
  :func:`set_step_mode`, :func:`set_backend`;
* :class:`FlexSNKernel` (re-exported from ``flexsn_runtime``): the
  functional form;
* :func:`save_program` / :func:`load_program` (from ``flexsn_runtime``):
  ``torch.export`` programs saved with their kernels, to run where the
  neurons were never built;
* :func:`from_spikingjelly` (:mod:`flexsn_nn.migrate`): a network's SpikingJelly neurons swapped
  for these, with their settings;
* :func:`explain` (and the ``flexsn explain module:function`` command):
  why a core runs fused or not, what it traced, generated and moves;
  :func:`explain_network` the same for every neuron of a network.

Quick start::

    import torch
    from flexsn_nn import FlexSN, surrogate

    sg = surrogate.Sigmoid()

    def lif(x, v):                      # one step: (input, state) -> (output, state)
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    neuron = FlexSN(lif, num_inputs=1, num_states=1, num_outputs=1)
    spikes = neuron(torch.rand(8, 32, 100))   # [T, *shape] -> [T, *shape]
"""

from flexsn_runtime import FlexSNKernel, load_program, save_program

from . import functional, neurons, surrogate
from .__about__ import __version__
from .functional import detach_net, prepare_fully_shard, reset_net, set_backend, set_step_mode
from .backends import BACKENDS, ENV_LOWERABLE_SCAN, ENV_LOWERABLE_WHILE_LOOP, STEP_MODES, hop_available
from .explain import Explanation, NetworkExplanation, explain, explain_network
from .migrate import from_spikingjelly, surrogate_from_spikingjelly
from .module import FlexSN
from .neurons import NEURON_STEP_MODE, IFNode, LIFNode
from .neurons_learnable import AdaptiveLIFNode, CUBALIFNode, LearnableThresholdLIFNode, ParametricLIFNode
from .neurons_nonlinear import EIFNode, IzhikevichNode, QIFNode

__all__ = [
    "AdaptiveLIFNode",
    "BACKENDS",
    "CUBALIFNode",
    "EIFNode",
    "Explanation",
    "IzhikevichNode",
    "NetworkExplanation",
    "LearnableThresholdLIFNode",
    "ParametricLIFNode",
    "QIFNode",
    "ENV_LOWERABLE_SCAN",
    "ENV_LOWERABLE_WHILE_LOOP",
    "STEP_MODES",
    "NEURON_STEP_MODE",
    "FlexSN",
    "FlexSNKernel",
    "IFNode",
    "LIFNode",
    "__version__",
    "explain",
    "explain_network",
    "from_spikingjelly",
    "surrogate_from_spikingjelly",
    "functional",
    "hop_available",
    "load_program",
    "neurons",
    "prepare_fully_shard",
    "reset_net",
    "save_program",
    "detach_net",
    "set_backend",
    "set_step_mode",
    "surrogate",
]
