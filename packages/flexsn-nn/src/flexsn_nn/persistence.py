"""What copies and pickles of a neuron keep: everything but its per-run states."""

from __future__ import annotations

import copy
import pickle
import types
from typing import Any

import torch

__all__ = ["KeepsNoStates"]


class KeepsNoStates:
    """Mixin for :class:`flexsn_nn.FlexSN`: deep copies detach the states, pickles drop them.

    The class keeps its states in ``_states`` and ``_state_seqs`` (``None``
    when ``store_state_seqs`` is false), what a recomputed call starts from in
    ``_replay`` (:mod:`flexsn_nn.replay`) and a weak reference to what an uncaptured call left in
    ``_left_uncaptured`` (:mod:`flexsn_nn.graph_capture`; neither copied nor pickled), and builds its kernels into ``_kernel`` when that is ``None``.
    """

    store_state_seqs: bool

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """Deep copy; the copy shares the compiled kernels (handle reference counted).

        States that carry autograd history are copied detached.
        """
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key in ("_replay", "_left_uncaptured"):  # what a recomputation starts from (flexsn_nn.replay); see graph_capture
                value = None
            elif key in ("_states", "_state_seqs") and value is not None:
                value = [t.detach() if isinstance(t, torch.Tensor) and not t.is_leaf else t for t in value]
            new.__dict__[key] = copy.deepcopy(value, memo)
        return new

    def __getstate__(self) -> dict[str, Any]:
        """What ``pickle`` / ``torch.save`` keep: everything but the neuron's states.

        States (and state sequences) are per-run values with autograd history,
        not part of a model (as in SpikingJelly, whose checkpoints hold
        parameters and buffers); a loaded neuron starts from its
        ``init_states``. The kernels do not travel: the loaded neuron builds
        them at its first use (from the trace cache when warm), not while
        unpickling, when a core that is a method of the network being loaded
        (``FlexSN(self.step)``) would find its object half restored. Static
        inputs are parameters or buffers: they are kept.

        Raises:
            pickle.PicklingError: the core is a lambda or a function defined inside another, which ``pickle``
                cannot store by name (said with what to do instead, where ``pickle``'s own message names
                neither the neuron nor a remedy).
        """
        _check_core_picklable(getattr(self, "core", None))
        state = dict(self.__dict__)
        state["_kernel"] = None
        state["_states"] = []
        state["_state_seqs"] = [] if self.store_state_seqs else None
        state["_replay"] = None
        state.pop("_left_uncaptured", None)  # a weak reference (flexsn_nn.graph_capture): not picklable
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickle (one made before ``_replay`` existed included)."""
        super().__setstate__(state)  # type: ignore[misc]  # nn.Module's, next in FlexSN's MRO
        self.__dict__.setdefault("_replay", None)


def _check_core_picklable(core: object) -> None:
    """Raise :class:`pickle.PicklingError` for a core ``pickle`` cannot store by name (see ``__getstate__``)."""
    name = getattr(core, "__qualname__", "")
    if isinstance(core, types.FunctionType) and ("<lambda>" in name or "<locals>" in name):
        raise pickle.PicklingError(
            f"FlexSN: the neuron cannot be pickled (torch.save of the module, a copy by pickle): its core {name!r} is "
            "a lambda or a function defined inside another, which pickle cannot store by name. Define the core at "
            "module level (numbers a closure held can be static_inputs or attributes of a module core), or save "
            "neuron.state_dict() and build the neuron again with the same core"
        )
