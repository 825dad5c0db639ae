"""``broadcast_shape`` follows ``torch.broadcast_shapes``' rule, in plain comparisons that Dynamo traces."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from flexsn_trace.contract import broadcast_shape

_dims = st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=4)


@settings(max_examples=300, deadline=None, derandomize=True)  # reproducible in CI, as the other property tests
@given(st.lists(_dims, min_size=1, max_size=4))
def test_agrees_with_torch_broadcast_shapes(shapes: list[list[int]]) -> None:
    try:
        want: tuple[int, ...] | None = tuple(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]
    except RuntimeError:
        want = None
    assert broadcast_shape(shapes) == want

