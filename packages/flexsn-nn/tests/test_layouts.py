"""Sparse and nested tensors: every backend refuses them by name, before any launch or core call.

The kernels and the loop index steps and neurons of dense tensors. Before, a sparse input crashed with
"unsupported memory format option Contiguous" inside the launch (or an ``aten::fill_`` error from the
loop), and after a dense call of the same shape it went down the cached signature's path.
"""

from __future__ import annotations

import warnings
from typing import Callable

import pytest
import torch

from flexsn_nn import FlexSN, LIFNode

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["triton", "inductor", "hop", "torch"]
LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sparse_coo": lambda t: t.to_sparse(),
    "sparse_csr": lambda t: t.to_sparse_csr(),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_sparse_input_is_refused_by_name_also_after_a_dense_call(backend: str, layout: str, requires_grad: bool) -> None:
    x = (torch.rand(4, 6, device=DEVICE) * 3).requires_grad_(requires_grad)
    m = LIFNode(backend=backend, step_mode="m")
    dense = m(x)  # the same signature's dense call runs first: the cache must not take the sparse one
    m.reset()
    with pytest.raises(TypeError, match=rf"argument 0 \(input sequence\) has layout torch\.{layout}.*to_dense"):
        m(LAYOUTS[layout](x.detach()).requires_grad_(requires_grad))
    m.reset()
    torch.testing.assert_close(m(x), dense)  # the module is as it was


@pytest.mark.parametrize("backend", BACKENDS)
def test_sparse_states_single_steps_and_static_inputs_are_refused_by_name(backend: str) -> None:
    x = torch.rand(4, 6, device=DEVICE) * 3
    m = LIFNode(backend=backend, step_mode="m")
    m(x)
    m.v = torch.zeros(6, device=DEVICE).to_sparse()
    with pytest.raises(TypeError, match=r"state 0 has layout torch\.sparse_coo"):
        m(x)
    single = LIFNode(backend=backend, step_mode="s")
    single(x[0])
    single.reset()
    with pytest.raises(TypeError, match=r"has layout torch\.sparse_coo"):
        single(x[0].to_sparse())
    with pytest.raises(TypeError, match=r"static_inputs\['w'\] has layout torch\.sparse_coo"):
        FlexSN(lambda x, v, w: (x * w, v), 1, 1, 1, static_inputs={"w": torch.ones(6).to_sparse()}, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nested_input_is_refused_by_name(backend: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors' prototype note
        nested = torch.nested.nested_tensor([torch.rand(4, 6), torch.rand(4, 5)], device=DEVICE)
    m = LIFNode(backend=backend, step_mode="m")
    m(torch.rand(2, 4, 6, device=DEVICE))
    m.reset()
    with pytest.raises(TypeError, match="is a nested tensor.*to_padded_tensor"):
        m(nested)
