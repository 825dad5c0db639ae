"""Captured tensors read by the methods of what the core's own object holds: a plain helper object in an
attribute (``self.helper.fire(h)``) and a user submodule (``self.fire(h)``, its ``forward``), each method reading a
module global tensor beside the object's own tensors.

Before, such a helper was reached through an object no global and no closure cell names, so it was not rebuilt
on the lifted values: the global tensor stayed a foreign constant and the call fell back to the eager loop with a
warning. Now the core's object is copied with a copy of the held object whose methods are rebuilt
(:class:`flexsn_trace.rebind.HelperReach`'s ``attr_objects``). Each case runs fused with no fallback warning, gives
the loop's outputs and the gradients autograd gives through it (the input's, the global's, the object's own), and
follows a change between calls; the user's objects are left as they were.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch
from torch import nn

from captures_reference import C, check_fused_with_gradients, follows_a_change, spike

#: a module global the helpers read (set per test on the test's device)
GAIN = torch.ones(C)


class Helper:
    """A plain object whose methods read its own tensor and the global ``GAIN``."""

    def __init__(self, th: torch.Tensor) -> None:
        self.th = th

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return spike(GAIN * (h - self.th))


class HelperCore(nn.Module):
    """Holds a :class:`Helper` in a plain attribute and calls its method."""

    def __init__(self, th: torch.Tensor) -> None:
        super().__init__()
        self.helper = Helper(th)

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return self.helper.fire(h), h * 0.5


class Fire(nn.Module):
    """A user submodule whose ``forward`` reads its own parameter and the global ``GAIN``."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.th = nn.Parameter(torch.linspace(0.8, 1.2, C, device=device))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return spike(GAIN * (h - self.th))


class SubmoduleCore(nn.Module):
    """Calls a user submodule (``self.fire(h)`` runs ``Fire.forward``)."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.fire = Fire(device)

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return self.fire(h), h * 0.5


def _case(name: str, device: torch.device) -> tuple[nn.Module, list[torch.Tensor], tuple[str, ...]]:
    global GAIN
    GAIN = torch.linspace(0.5, 1.5, C, device=device).requires_grad_()
    if name == "a helper object in an attribute":
        core: nn.Module = HelperCore(torch.linspace(0.8, 1.2, C, device=device).requires_grad_())
        return core, [GAIN, core.helper.th], ("self.helper.th", "global GAIN (read by fire)")
    core = SubmoduleCore(device)
    return core, [GAIN, core.fire.th], ("global GAIN (read by forward)", "self.fire.th")


CASES = ["a helper object in an attribute", "a user submodule"]


@pytest.mark.parametrize("case", CASES)
def test_runs_fused_with_gradients(case: str, device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    core, params, names = _case(case, device)
    check_fused_with_gradients(core, params, names, device, monkeypatch)


@pytest.mark.parametrize("case", CASES)
def test_a_change_between_calls_is_read_and_the_objects_stay_as_they_were(case: str, device: torch.device) -> None:
    core, _, _ = _case(case, device)
    held: Any = core.helper if isinstance(core, HelperCore) else core.fire
    changes: dict[str, Callable[[], None]] = {
        "a helper object in an attribute": lambda: globals().__setitem__("GAIN", torch.full((C,), 3.0, device=device)),
        "a user submodule": lambda: core.fire.th.data.fill_(0.3),
    }
    follows_a_change(core, changes[case], device)
    assert (core.helper if isinstance(core, HelperCore) else core.fire) is held  # the user's object, not a copy
    assert type(held) in (Helper, Fire) and "fire" not in vars(held) and "forward" not in vars(held)
