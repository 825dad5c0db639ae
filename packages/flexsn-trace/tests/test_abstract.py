"""``fake_step_outputs``: a step's output shapes and dtypes from one run on fake tensors, against a real step."""

from __future__ import annotations

import pytest
import torch

from flexsn_trace import fake_step_outputs


def test_shapes_and_dtypes_equal_a_real_steps() -> None:
    w = torch.nn.Parameter(torch.full((3,), 0.5))  # captured: read as a fake copy, never written

    def core(x: torch.Tensor, v: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v + (x - v) * w + b  # b: a lifted [4, 1]
        spike = h >= 1.0
        return h.sum(-1), spike, h.to(torch.float16).unsqueeze(0), h.double().mean(), h * ~spike

    x, v, b = torch.rand(0, 4, 3), torch.zeros(4, 3), torch.ones(4, 1)
    found = fake_step_outputs(core, [x], [v], [b], 4, 1, "test")
    real = core(torch.rand(4, 3), v, b)[:4]
    assert found == tuple((tuple(y.shape), y.dtype) for y in real)
    assert w.grad is None and torch.equal(w, torch.full((3,), 0.5))


def test_a_core_branching_on_a_value_raises_a_value_error_naming_the_cause() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x, v) if bool((x > 0).any()) else (-x, v)

    with pytest.raises(ValueError, match=r"^who: the core could not run on shape-only \(fake\) tensors .*DataDependent"):
        fake_step_outputs(core, [torch.rand(0, 3)], [torch.zeros(3)], [], 1, 1, "who")


def test_a_core_returning_the_wrong_count_raises_as_a_real_step_would() -> None:
    with pytest.raises(ValueError, match="^who") as info:
        fake_step_outputs(lambda x, v: (x,), [torch.rand(0, 3)], [torch.zeros(3)], [], 1, 1, "who")
    assert "fake" not in str(info.value)
    with pytest.raises(TypeError, match="who"):
        fake_step_outputs(lambda x, v: (x, 1.0), [torch.rand(0, 3)], [torch.zeros(3)], [], 1, 1, "who")
