"""tools/bench_net.py's steps do what their names say (the GPU run times them; this runs them once on the CPU)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import bench_net  # noqa: E402


def _net() -> bench_net.Net:
    torch.manual_seed(0)
    return bench_net.Net(bench_net.makers()["torch"], channels=4)


def test_the_eval_step_runs_batch_norm_on_running_statistics_and_the_infer_step_on_the_batch() -> None:
    """What the first BatchNorm returns inside each step, against the layer run by hand."""
    x, labels = torch.randn(2, 2, 3, 32, 32), torch.randint(0, 10, (2,))
    for what in ("infer", "eval"):
        net = _net()
        conv, bn = net.body[0][0], net.body[0][1]
        bn.running_mean.fill_(3.0)  # running statistics far from the batch's, so the two steps differ
        seen: list[torch.Tensor] = []
        bn.register_forward_hook(lambda m, args, out: seen.append(out))
        bench_net.make_step(net, net, x, labels, what)()
        assert net.training == (what != "eval")
        with torch.no_grad():
            y = conv(x.flatten(0, 1))
            mean, var = (bn.running_mean, bn.running_var) if what == "eval" else (y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False))
            want = (y - mean[:, None, None]) / torch.sqrt(var[:, None, None] + bn.eps) * bn.weight[:, None, None] + bn.bias[:, None, None]
        torch.testing.assert_close(seen[0], want, rtol=1e-4, atol=1e-4)


def test_an_unknown_step_raises() -> None:
    with pytest.raises(ValueError, match="what must be one of"):
        bench_net.make_step(_net(), lambda t: t, torch.zeros(1), torch.zeros(1), "predict")
