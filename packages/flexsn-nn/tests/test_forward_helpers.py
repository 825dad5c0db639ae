"""SpikingJelly's sequence helpers (``functional.multi_step_forward``, ``chunk_multi_step_forward``,
``seq_to_ann_forward``) by its names, against explicit loops."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as tF
from torch import nn

from flexsn_nn import LIFNode
from flexsn_nn import functional

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _x(*shape: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(4)
    return (torch.rand(*shape, generator=g) * 2.5).to(DEVICE)


def test_multi_step_forward_of_a_single_step_neuron_is_the_multi_step_call() -> None:
    x = _x(6, 3, 5).requires_grad_()
    y = functional.multi_step_forward(x, LIFNode(step_mode="s"))
    x_ref = x.detach().clone().requires_grad_()
    y_ref = LIFNode(step_mode="m")(x_ref)
    torch.testing.assert_close(y, y_ref)
    (y * torch.linspace(-1, 1, 5, device=DEVICE)).sum().backward()
    (y_ref * torch.linspace(-1, 1, 5, device=DEVICE)).sum().backward()
    assert x.grad is not None and x_ref.grad is not None
    torch.testing.assert_close(x.grad, x_ref.grad)


@pytest.mark.parametrize("form", ["list", "tuple", "sequential"])
def test_multi_step_forward_applies_several_modules_in_order_at_every_step(form: str) -> None:
    torch.manual_seed(0)
    fc, sn = nn.Linear(5, 4).to(DEVICE), LIFNode(step_mode="s")
    modules = {"list": [fc, sn], "tuple": (fc, sn), "sequential": nn.Sequential(fc, sn)}[form]
    x = _x(6, 3, 5)
    y = functional.multi_step_forward(x, modules)
    sn.reset()
    want = torch.stack([sn(fc(x[t])) for t in range(6)])
    torch.testing.assert_close(y, want)


def test_multi_step_forward_takes_a_plain_function() -> None:
    x = _x(4, 2)
    torch.testing.assert_close(functional.multi_step_forward(x, torch.sigmoid), torch.sigmoid(x))


@pytest.mark.parametrize("split", [1, 3, 8, 10])
def test_chunk_multi_step_forward_equals_one_call(split: int) -> None:
    x = _x(8, 3, 5)
    y = functional.chunk_multi_step_forward(split, x, LIFNode(step_mode="m"))
    torch.testing.assert_close(y, LIFNode(step_mode="m")(x))  # states carried across chunks


def test_seq_to_ann_forward_is_the_layer_at_every_step() -> None:
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 4, 3, padding=1).to(DEVICE)
    x = _x(5, 3, 2, 6, 6)
    y = functional.seq_to_ann_forward(x, conv)
    assert isinstance(y, torch.Tensor) and y.shape == (5, 3, 4, 6, 6)
    torch.testing.assert_close(y, torch.stack([conv(x[t]) for t in range(5)]))
    y2 = functional.seq_to_ann_forward(x, [conv, nn.ReLU()])
    torch.testing.assert_close(y2, torch.relu(y))


def test_seq_to_ann_forward_of_tuples_in_and_out() -> None:
    x = _x(4, 2, 1, 6, 6)
    pooled, idx = functional.seq_to_ann_forward(x, lambda t: tF.max_pool2d(t, 2, return_indices=True))  # type: ignore[misc]
    assert pooled.shape == idx.shape == (4, 2, 1, 3, 3)
    out = functional.seq_to_ann_forward((pooled, idx), lambda p, i: tF.max_unpool2d(p, i, 2))
    assert isinstance(out, torch.Tensor)
    want = torch.stack([tF.max_unpool2d(*tF.max_pool2d(x[t], 2, return_indices=True), 2) for t in range(4)])
    torch.testing.assert_close(out, want)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(TypeError, match="x_seq must be a tensor"):
        functional.multi_step_forward([1.0, 2.0], torch.sigmoid)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="T = 0 steps"):
        functional.multi_step_forward(torch.zeros(0, 3), torch.sigmoid)
    with pytest.raises(TypeError, match="list/tuple of them, got int"):
        functional.multi_step_forward(torch.zeros(2, 3), 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="holding \\['str'\\]"):
        functional.seq_to_ann_forward(torch.zeros(2, 3, 4), [torch.relu, "relu"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="split_size must be >= 1, got 0"):
        functional.chunk_multi_step_forward(0, torch.zeros(4, 3), LIFNode(step_mode="m"))
    with pytest.raises(TypeError, match="split_size must be an int, got bool"):
        functional.chunk_multi_step_forward(True, torch.zeros(4, 3), LIFNode(step_mode="m"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a sequence \\[T, batch, ...\\], got shape \\(4,\\)"):
        functional.seq_to_ann_forward(torch.zeros(4), torch.relu)
    with pytest.raises(ValueError, match="must share \\[T, batch\\]"):
        functional.seq_to_ann_forward((torch.zeros(4, 2, 3), torch.zeros(4, 3, 3)), torch.add)
