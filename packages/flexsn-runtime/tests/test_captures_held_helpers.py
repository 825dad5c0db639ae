"""Captured tensors read by a helper the core holds in a default argument (``def core(x, v, fire=fire)``, a
``lambda`` there, a ``functools.partial`` of a helper as a keyword-only default) or in a container a global holds
(``CFG["act"](h)``, ``ACTS[0](h)``, ``NS.act(h)``: a config of functions) or a closure cell holds (a factory's
``cfg["act"](h)``).

The helper search found such helpers (their numbers were watched), but binding could not hand the core a helper
rebuilt on the lifted tensors, so the kernel refused them and the neuron ran the eager loop with a warning. Binding
now gives the rebuilt core the rebuilt helper in that default, or a copy of the container holding it
(``flexsn_trace.rebind.HelperReach.defaults``, ``.held`` and ``.cell_held``). Each case runs fused with no warning, gives the loop's
outputs and gradients, and follows a change between calls; each fell back before.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch

from captures_reference import C, N, check_fused_with_gradients, follows_a_change, spike

TH = torch.tensor(1.0)
GAIN = torch.tensor(1.0)


def fire(h: torch.Tensor) -> torch.Tensor:
    """A helper reading two globals."""
    return spike(GAIN * (h - TH))


def default_core(x: torch.Tensor, v: torch.Tensor, act: Callable[[torch.Tensor], torch.Tensor] = fire) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return act(h), h * 0.5


def lambda_core(
    x: torch.Tensor, v: torch.Tensor, act: Callable[[torch.Tensor], torch.Tensor] = lambda h: spike(GAIN * (h - TH)),
) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return act(h), h * 0.5


def _fire_scaled(h: torch.Tensor, scale: float) -> torch.Tensor:
    return spike(scale * GAIN * (h - TH))


def partial_core(
    x: torch.Tensor, v: torch.Tensor, *, act: Callable[[torch.Tensor], torch.Tensor] = functools.partial(_fire_scaled, scale=2.0),
) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return act(h), h * 0.5


CFG = {"act": fire, "tau": 2.0}
ACTS = [fire]
NS = SimpleNamespace(act=fire)


def dict_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / CFG["tau"]
    return CFG["act"](h), h * 0.5


def list_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return ACTS[0](h), h * 0.5


def namespace_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return NS.act(h), h * 0.5


def make_core(cfg: dict[str, Any]) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    """A factory's core: the config of functions is a closure variable."""

    def factory_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return cfg["act"](h), h * 0.5

    return factory_core


CORES: dict[str, Callable[..., Any]] = {
    "a helper as a default": default_core, "a lambda as a default": lambda_core,
    "a partial of a helper as a keyword-only default": partial_core,
    "a helper in a global dict": dict_core, "a helper in a global list": list_core,
    "a helper in a global namespace": namespace_core,
    "a helper in a closure's dict": make_core({"act": fire, "name": "lif"}),
}


def _set(device: torch.device) -> list[torch.Tensor]:
    global TH, GAIN
    TH = torch.linspace(0.8, 1.2, C, device=device).requires_grad_()
    GAIN = torch.full((N, 1), 1.5, device=device).requires_grad_()
    return [GAIN, TH]  # in the order the search meets them (the helper's co_names)


@pytest.mark.parametrize("case", list(CORES))
def test_a_default_helpers_tensors_run_fused_with_gradients(case: str, device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    core = CORES[case]
    params = _set(device)
    reader = "<lambda>" if case == "a lambda as a default" else "_fire_scaled" if "partial" in case else "fire"
    check_fused_with_gradients(core, params, (f"global GAIN (read by {reader})", f"global TH (read by {reader})"), device, monkeypatch)


@pytest.mark.parametrize("case", list(CORES))
def test_a_change_to_a_default_helpers_tensor_is_read(case: str, device: torch.device) -> None:
    _set(device)

    def change() -> None:
        global TH
        TH = TH.detach() + 0.3  # rebound, as an optimizer would not; the next call reads the new tensor

    follows_a_change(CORES[case], change, device)
