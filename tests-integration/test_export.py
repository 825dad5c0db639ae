"""``torch.export`` of networks with FlexSN neurons: the exported program computes what the network does.

An exported program names FlexSN kernels by handle (a number the building process registers, made from
the traced core). In the same process it runs as the network does, on every backend; after
``torch.export.save`` it runs in a new process once that process has built the same neurons, or by itself
where FlexSN's trace cache holds the kernels (the same machine and versions), and
without either it raises an error that says so (before: "unknown FlexSN kernel handle N (released, or
never registered)" and nothing more). Saved with ``flexsn_nn.save_program`` it carries its kernels and runs,
through ``flexsn_nn.load_program``, in a process with an empty cache. Reference: the network itself, eagerly,
on fresh inputs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import LIFNode, ParametricLIFNode, functional
from flexsn_runtime.programs import KERNELS_FILE, load_program, program_handles, save_program

REPO = Path(__file__).resolve().parents[1]


class Net(torch.nn.Module):
    """linear -> neuron, resetting the neuron at every call (so an exported program and the network agree)."""

    def __init__(self, backend: str, neuron: str = "lif") -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.sn = (LIFNode if neuron == "lif" else ParametricLIFNode)(step_mode="m", backend=backend)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        functional.reset_net(self.sn)
        return self.sn(3.0 * self.fc(x) + 1.0)  # type: ignore[no-any-return]  # scaled: the neurons spike


def _x(seed: int) -> torch.Tensor:
    return torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(seed)) * 2.5


@pytest.mark.parametrize("neuron", ["lif", "plif"])
@pytest.mark.parametrize("backend", ["triton", "hop", "torch"])
def test_exported_program_matches_the_network(backend: str, neuron: str) -> None:
    torch.manual_seed(0)
    net = Net(backend, neuron)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.export's own deprecation notes
        program = torch.export.export(net, (_x(0),)).module()
    for seed in (1, 2):
        torch.testing.assert_close(program(_x(seed)), net(_x(seed)))


@pytest.mark.parametrize("neuron", ["lif", "plif"])
@pytest.mark.parametrize("backend", ["triton", "hop"])
@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_a_program_exported_with_a_dynamic_T_and_batch_runs_every_length(backend: str, neuron: str, grad: bool) -> None:
    """``dynamic_shapes`` with ``T`` and the batch size as ``torch.export.Dim``: one program for every length.

    Exported under ``torch.no_grad()`` (an inference program) ``T`` may start at 2. Traced with gradients, the
    training op keeps ``ceil(T / chunk)`` checkpoint rows, and PyTorch specialises a size that may be 1, so ``T``
    must start above the chunk (4); before this stop ``backend="hop"`` specialised ``T`` either way.
    """
    if os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available():
        pytest.skip("the fused kernels need CUDA or TRITON_INTERPRET=1 (the eager loop unrolls T)")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    net = Net(backend, neuron).to(device)
    T = torch.export.Dim("T", min=5 if grad else 2, max=64)
    B = torch.export.Dim("B", min=2, max=512)
    with warnings.catch_warnings(), torch.set_grad_enabled(grad):
        warnings.simplefilter("ignore")  # torch.export's own deprecation notes
        program = torch.export.export(net, (_x(0).to(device),), dynamic_shapes=({0: T, 1: B},)).module()
    g = torch.Generator().manual_seed(3)
    for shape in ((5, 2, 8), (9, 3, 8), (17, 6, 8)):
        x = (torch.rand(*shape, generator=g) * 2.5).to(device)
        torch.testing.assert_close(program(x), net(x))


_SAVE = r'''
import json, sys, warnings, torch
sys.path.insert(0, sys.argv[1])
from test_export import Net, _x
for _ in range(3):
    Net("triton")  # neurons of the same fingerprint, dropped: the saved one's handle has a serial the loader never makes
torch.manual_seed(0)
net = Net("triton")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch.export's own deprecation notes
    torch.export.save(torch.export.export(net, (_x(0),)), sys.argv[2])
print(json.dumps({"out": net(_x(1)).tolist()}))
'''

_LOAD = r'''
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from test_export import Net, _x
if sys.argv[3] == "build":
    torch.manual_seed(1)
    net = Net("triton")  # the same neuron, built in this process and kept alive (its kernels live as long as it)
    net(_x(0))
try:
    program = torch.export.load(sys.argv[2]).module()
    if sys.argv[3] == "compiled":  # compiled before any eager call: the graph's fake calls look the handle up first
        program = torch.compile(program)
    out = program(_x(1))
    print(json.dumps({"out": out.tolist()}))
except RuntimeError as exc:
    print(json.dumps({"error": str(exc)}))
'''


def _in_a_new_process(
    tmp_path: Path, program: str, *args: str, cache: str = "flexsn", env: dict[str, str] | None = None
) -> dict[str, Any]:
    env = dict(os.environ, TRITON_INTERPRET="1", FLEXSN_CACHE_DIR=str(tmp_path / cache), **(env or {}))
    src = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]
    env["PYTHONPATH"] = os.pathsep.join(src + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-c", program, str(Path(__file__).parent), *args]
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the process failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_saved_program_runs_in_a_new_process_that_builds_the_neurons(tmp_path: Path) -> None:
    """Saved by one process (after more neurons of that fingerprint were built), loaded by another."""
    program = str(tmp_path / "net.pt2")
    saved = _in_a_new_process(tmp_path, _SAVE, program)
    assert torch.count_nonzero(torch.tensor(saved["out"])) > 0  # spikes: the comparisons below can tell kernels apart
    built = _in_a_new_process(tmp_path, _LOAD, program, "build")
    assert "out" in built, built
    torch.testing.assert_close(torch.tensor(built["out"]), torch.tensor(saved["out"]))
    # a process that builds nothing loads the kernels from the trace cache the saving process wrote
    bare = _in_a_new_process(tmp_path, _LOAD, program, "bare")
    assert "out" in bare, bare
    torch.testing.assert_close(torch.tensor(bare["out"]), torch.tensor(saved["out"]))
    compiled = _in_a_new_process(tmp_path, _LOAD, program, "compiled")
    assert "out" in compiled, compiled
    torch.testing.assert_close(torch.tensor(compiled["out"]), torch.tensor(saved["out"]))
    # with another (empty) cache it cannot, and says what to do
    elsewhere = _in_a_new_process(tmp_path, _LOAD, program, "bare", cache="other")
    assert "build the same neurons first" in elsewhere["error"] and "trace cache" in elsewhere["error"], elsewhere


def _train_step(run: Any) -> dict[str, Any]:
    """``run`` on a fresh input and a weighted backward: the output and the input gradient, as lists."""
    x = _x(1).requires_grad_()
    out = run(x)
    (out * torch.linspace(0.5, 1.5, out.numel()).view(out.shape)).sum().backward()
    assert x.grad is not None
    return {"out": out.tolist(), "grad": x.grad.tolist()}


_SAVE_WITH_KERNELS = r"""
import json, os, sys, warnings, torch
sys.path.insert(0, sys.argv[1])
from test_export import Net, _train_step, _x
import flexsn_nn
torch.manual_seed(0)
net = Net("triton", sys.argv[3])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch.export's own deprecation notes
    program = torch.export.export(net, (_x(0),))
try:
    flexsn_nn.save_program(program, sys.argv[2], extra_files={"note.txt": "mine"})
except ValueError as exc:
    print(json.dumps({"error": str(exc)}))
    raise SystemExit(0)
print(json.dumps(_train_step(net)))
"""

_LOAD_WITH_KERNELS = r"""
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from test_export import _train_step
import flexsn_nn
extra = {"note.txt": ""}
try:
    program = flexsn_nn.load_program(sys.argv[2], extra_files=extra).module()
except ValueError as exc:
    print(json.dumps({"error": str(exc)}))
    raise SystemExit(0)
print(json.dumps(dict(_train_step(program), note=extra["note.txt"])))
"""


@pytest.mark.parametrize("neuron", ["lif", "plif"])
def test_a_program_saved_with_its_kernels_runs_where_no_neuron_was_built(tmp_path: Path, neuron: str) -> None:
    """``save_program`` writes the kernels into the file; ``load_program`` in a process with an empty cache runs
    them, forward and backward (the exported program trains: the input gradient is compared too)."""
    program = str(tmp_path / "net.pt2")
    saved = _in_a_new_process(tmp_path, _SAVE_WITH_KERNELS, program, neuron)
    assert "out" in saved, saved
    assert torch.count_nonzero(torch.tensor(saved["out"])) > 0  # spikes: the comparison can tell kernels apart
    for cache in ("empty", "off"):  # another machine: an empty cache; or the cache turned off
        env = {"FLEXSN_TRACE_CACHE": "0"} if cache == "off" else {}
        loaded = _in_a_new_process(tmp_path, _LOAD_WITH_KERNELS, program, cache=cache, env=env)
        assert "out" in loaded, loaded
        torch.testing.assert_close(torch.tensor(loaded["out"]), torch.tensor(saved["out"]))
        torch.testing.assert_close(torch.tensor(loaded["grad"]), torch.tensor(saved["grad"]))
        assert loaded["note"] == "mine"  # the caller's own extra files pass through
    # plain torch.export.load of the same file, with an empty cache: the kernels are not found (the registry's error)
    plain = _in_a_new_process(tmp_path, _LOAD, program, "bare", cache="plain")
    assert "build the same neurons first" in plain["error"], plain


def test_a_program_whose_neuron_has_no_fingerprint_is_refused_by_name(tmp_path: Path) -> None:
    program = str(tmp_path / "net.pt2")
    refused = _in_a_new_process(tmp_path, _SAVE_WITH_KERNELS, program, "lif", env={"FLEXSN_TRACE_CACHE": "0"})
    assert "has no trace fingerprint" in refused["error"] and "FLEXSN_TRACE_CACHE=0" in refused["error"], refused
    assert not Path(program).exists()


def _rewrite_kernels(src: Path, dst: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Copy the saved archive ``src`` to ``dst`` with its kernels file edited (a damaged or foreign file)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename.endswith("extra/" + KERNELS_FILE):
                payload = json.loads(data)
                edit(payload)
                data = json.dumps(payload).encode()
            zout.writestr(item, data)


def test_carried_kernels_of_other_versions_or_damaged_are_refused_with_the_reason(tmp_path: Path) -> None:
    program = tmp_path / "net.pt2"
    saved = _in_a_new_process(tmp_path, _SAVE_WITH_KERNELS, str(program), "lif")
    assert "out" in saved, saved

    def other_torch(payload: dict[str, Any]) -> None:
        payload["versions"] = "0.0.1|" + payload["versions"].split("|", 1)[1]

    def damaged(payload: dict[str, Any]) -> None:
        for parts in payload["entries"].values():
            parts["inference"]["inference"] = 42

    for edit, expected in ((other_torch, "torch '0.0.1' there"), (damaged, "damaged entry")):
        bad = tmp_path / f"{edit.__name__}.pt2"
        _rewrite_kernels(program, bad, edit)
        loaded = _in_a_new_process(tmp_path, _LOAD_WITH_KERNELS, str(bad), cache=edit.__name__)
        assert expected in loaded.get("error", ""), loaded


#: where the kernels run in this process (CPU tensors need Triton's interpreter; the other tests' subprocesses set it)
DEV = torch.device("cuda" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" else "cpu")


def test_save_program_checks_its_arguments(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net = Net("triton").to(DEV)
    if not net.sn.uses_kernels(_x(0).to(DEV)):
        pytest.skip("no kernels here: CPU tensors need TRITON_INTERPRET=1 (CI and hatch set it)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.export's own deprecation notes
        program = torch.export.export(net, (_x(0).to(DEV),))
    handles = program_handles(program)
    assert len(handles) == 1 and list(handles.values()) == [True]  # one neuron; its parameters train: the training op
    with pytest.raises(ValueError, match=KERNELS_FILE):
        save_program(program, tmp_path / "a.pt2", extra_files={KERNELS_FILE: "{}"})
    with pytest.raises(TypeError, match="ExportedProgram"):
        save_program(net, tmp_path / "b.pt2")  # type: ignore[arg-type]
    assert not (tmp_path / "a.pt2").exists() and not (tmp_path / "b.pt2").exists()
    hop = Net("hop").to(DEV)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hop_program = torch.export.export(hop, (_x(0).to(DEV),))
    assert list(program_handles(hop_program).values()) == [False]  # the scan's fused hook: an inference op
    save_program(hop_program, tmp_path / "hop.pt2")
    x1 = _x(1).to(DEV)
    torch.testing.assert_close(load_program(tmp_path / "hop.pt2").module()(x1), hop(x1))


def test_load_program_of_a_missing_path_raises_file_not_found(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A path that names no file: ``FileNotFoundError`` naming it, before ``torch.export.load`` logs a traceback."""
    with pytest.raises(FileNotFoundError, match="load_program: no such file") as info:
        load_program(tmp_path / "missing.pt2")
    assert info.value.filename == str(tmp_path / "missing.pt2")
    assert "Traceback" not in capfd.readouterr().err
