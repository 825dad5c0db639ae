"""Division by a power-of-two constant becomes a multiply; the result must stay bit-identical to torch."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch

from flexsn_codegen import generate_triton_code_str
from flexsn_trace import generate_inference_graph


@pytest.mark.parametrize("divisor", [2.0, 0.25, -4.0, 1024.0, 3.0, -0.1])
def test_constant_division_is_exact(divisor: float, device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    graph = generate_inference_graph(lambda x: x / divisor, (torch.zeros(4),))
    code, _ = generate_triton_code_str(graph, "div")
    power_of_two = divisor in (2.0, 0.25, -4.0, 1024.0)
    assert ("tl.div_rn" not in code) == power_of_two, code
    tiny = torch.finfo(torch.float32).tiny
    x = torch.cat([torch.randn(200) * 1e3, torch.tensor([0.0, -0.0, tiny, -tiny, tiny / 8, 3.4e38, float("inf"), float("nan")])])
    x = x.to(device)
    (got,) = run_elementwise(graph, [x], [torch.float32])
    # IEEE division on the CPU: CUDA's torch divides by a Python scalar with a
    # multiply by its reciprocal, which is not correctly rounded.
    want = (x.cpu() / divisor).to(device)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    ok = ~torch.isnan(want)
    assert torch.equal(got[ok], want[ok])
