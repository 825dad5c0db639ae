"""``ScanKernel``'s cached direct launchers, with a stand-in for Triton's JIT and compiled kernels.

The CUDA launch path cannot run on a CPU-only machine; these tests drive its
bookkeeping (what is cached under which key, when the JIT path is taken
again) with fakes, and the GPU suite checks the real launches' results.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_runtime import scan_kernel as launch
from flexsn_runtime.scan_kernel import ScanKernel


class FakeCompiled:
    def __init__(self, log: list[tuple[str, Any]], fail: bool = False) -> None:
        self.log, self.fail = log, fail

    def __getitem__(self, grid: tuple[int, ...]) -> Any:
        assert len(grid) == 3, "CompiledKernel runners index all three grid dimensions"

        def runner(*args: Any, stream: Any = None) -> None:
            if self.fail:
                raise TypeError("launcher convention mismatch")
            # last: the constexprs BLOCK_NCL, ZERO_INIT, ALT and the second order's two ints
            self.log.append(("direct", (grid, len(args), args[-5:], stream)))

        return runner


class FakeJit:
    def __init__(self, log: list[tuple[str, Any]], fail_direct: bool = False, compiled: type[FakeCompiled] = FakeCompiled) -> None:
        self.log, self.fail_direct, self.compiled = log, fail_direct, compiled

    def __getitem__(self, grid: tuple[int, ...]) -> Any:
        def run(*args: Any, BLOCK_NCL: int, ZERO_INIT: bool, num_warps: int, ALT: int, alt_inner: int, alt_mid: int) -> FakeCompiled:
            self.log.append(("jit", (grid, len(args), (BLOCK_NCL, ZERO_INIT, ALT, alt_inner, alt_mid), num_warps)))
            return self.compiled(self.log, self.fail_direct)

        return run


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(launch, "interpreter_enabled", lambda: False)
    monkeypatch.setattr(launch, "_raw_stream", lambda index: 1234)
    monkeypatch.delenv(launch.ENV_DIRECT_LAUNCH, raising=False)

    def make(fail_direct: bool = False, compiled: type[FakeCompiled] = FakeCompiled) -> tuple[ScanKernel, list[tuple[str, Any]]]:
        log: list[tuple[str, Any]] = []
        k = ScanKernel("# no source", "k", "inference")
        jit = FakeJit(log, fail_direct, compiled)
        monkeypatch.setattr(k, "jit_function", lambda: jit)
        return k, log

    return make


def _args(n: int = 3, offset: int = 0) -> list[torch.Tensor]:
    base = torch.zeros(4 * 64 + offset)
    return [base[offset : offset + 4 * 64].view(4, 64)] + [torch.zeros(4, 64) for _ in range(n - 1)]


def test_first_launch_jits_then_the_launcher_is_reused(fake: Any) -> None:
    k, log = fake()
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    k._launch_cuda(args, 4, 64, args[0], 0)
    k._launch_cuda(_args(), 4, 64, args[0], 0)  # other tensors, same key
    assert [kind for kind, _ in log] == ["jit", "direct", "direct"]
    grid, nargs, constexprs, stream = log[1][1]
    assert grid[1:] == (1, 1) and nargs == len(args) + 7 and stream == 1234
    assert constexprs == log[0][1][2]  # the BLOCK_NCL, ZERO_INIT and ALT (with its ints) the JIT call used


@pytest.mark.parametrize(
    "change",
    [
        lambda a: (a, 5, 64),  # another T
        lambda a: (a, 4, 63),  # another NCL
        lambda a: ([t.to(torch.float16) for t in a], 4, 64),  # another dtype
        lambda a: (_args(offset=1), 4, 64),  # a tensor off 16-byte alignment
    ],
)
def test_any_specialisation_change_goes_through_the_jit(fake: Any, change: Any) -> None:
    k, log = fake()
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    new_args, T, ncl = change(args)
    k._launch_cuda(new_args, T, ncl, new_args[0], 0)
    assert [kind for kind, _ in log] == ["jit", "jit"]


def test_zero_init_is_part_of_the_launcher_key(fake: Any) -> None:
    k, log = fake()
    args = _args()
    for zero_init in (False, True, True, False):
        k._launch_cuda(args, 4, 64, args[0], 0, (), zero_init)
    assert [kind for kind, _ in log] == ["jit", "jit", "direct", "direct"]
    assert [entry[2][1] for _, entry in log] == [False, True, True, False]  # each launcher passes its own ZERO_INIT


def test_env_switch_turns_direct_launch_off(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launch.ENV_DIRECT_LAUNCH, "0")
    k, log = fake()
    args = _args()
    for _ in range(3):
        k._launch_cuda(args, 4, 64, args[0], 0)
    assert [kind for kind, _ in log] == ["jit"] * 3


def test_a_failing_launcher_falls_back_for_good(fake: Any) -> None:
    k, log = fake(fail_direct=True)
    args = _args()
    for _ in range(3):
        k._launch_cuda(args, 4, 64, args[0], 0)
    # JIT, failed direct -> JIT again, then never direct again
    assert [kind for kind, _ in log] == ["jit", "jit", "jit"]


def test_persisting_a_config_drops_cached_launchers(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    k, log = fake()
    monkeypatch.setattr(launch, "store_launch_config", lambda code, key, cfg: None)
    monkeypatch.setattr(ScanKernel, "_config_key", lambda self, ref, ncl: "key")
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    k.persist_config(args[0], 64, {"BLOCK_NCL": 32, "num_warps": 1})
    k._launch_cuda(args, 4, 64, args[0], 0)
    assert [kind for kind, _ in log] == ["jit", "jit"]


class FakeCompiledWithRun(FakeCompiled):
    """A ``CompiledKernel`` whose driver launcher ``run`` can be called directly."""

    function, packed_metadata = "fn", "meta"

    def run(self, gx: int, gy: int, gz: int, stream: int, function: Any, metadata: Any, launch_metadata: Any,
            enter: Any, exit_: Any, *args: Any) -> None:
        self.log.append(("run", ((gx, gy, gz), stream, function, metadata, launch_metadata, enter, exit_, len(args), args[-5:])))


@pytest.mark.parametrize("hooks", [False, True])
def test_known_triton_calls_the_driver_launcher_unless_hooks_are_installed(
    fake: Any, monkeypatch: pytest.MonkeyPatch, hooks: bool
) -> None:
    class Hooks:
        calls: list[Any] = [print] if hooks else []

    class Runtime:
        launch_enter_hook = Hooks()
        launch_exit_hook = Hooks()

    monkeypatch.setattr(launch, "_RUN_KNOWN", [True])
    monkeypatch.setattr(launch, "_runtime_knobs", Runtime())
    k, log = fake(compiled=FakeCompiledWithRun)
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    k._launch_cuda(args, 4, 64, args[0], 0)
    kinds = [kind for kind, _ in log]
    if hooks:
        assert kinds == ["jit", "direct"]  # the runner builds the hooks' metadata
    else:
        assert kinds == ["jit", "run"]
        grid, stream, function, metadata, launch_metadata, enter, exit_, nargs, block = log[1][1]
        assert grid[1:] == (1, 1) and stream == 1234 and (function, metadata) == ("fn", "meta")
        assert (launch_metadata, enter, exit_) == (None, None, None)
        assert nargs == len(args) + 7 and block == log[0][1][2]


def test_unknown_triton_keeps_the_runner(fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "_RUN_KNOWN", [False])
    k, log = fake(compiled=FakeCompiledWithRun)
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    k._launch_cuda(args, 4, 64, args[0], 0)
    assert [kind for kind, _ in log] == ["jit", "direct"]


def test_run_signature_check_reads_this_triton() -> None:
    # the installed Triton is one the direct call was written for (3.4+)
    assert launch._run_signature_known() is True


class FakeLauncher:
    """Triton 3.6's ``CudaLauncher`` shape: ``__call__`` allocates scratch, then forwards to ``launch``."""

    launch_cooperative_grid, launch_pdl = False, False

    def __init__(self, log: list[tuple[str, Any]], scratch: int) -> None:
        self.log, self.global_scratch_size, self.profile_scratch_size = log, scratch, 0

    def launch(self, *args: Any) -> None:
        self.log.append(("raw", args))

    def __call__(self, gridX, gridY, gridZ, stream, function, *args):  # type: ignore[no-untyped-def]
        global_scratch = profile_scratch = None
        self.log.append(("call", None))
        self.launch(gridX, gridY, gridZ, stream, function, self.launch_cooperative_grid, self.launch_pdl,
                    global_scratch, profile_scratch, *args)


@pytest.mark.parametrize("scratch", [0, 128])
def test_known_launcher_is_bypassed_unless_the_kernel_needs_scratch(
    fake: Any, monkeypatch: pytest.MonkeyPatch, scratch: int
) -> None:
    class Runtime:
        launch_enter_hook = launch_exit_hook = None

    class Compiled(FakeCompiled):
        function, packed_metadata = "fn", "meta"

        def __init__(self, log: list[tuple[str, Any]], fail: bool = False) -> None:
            super().__init__(log, fail)
            self.run = FakeLauncher(log, scratch)

    monkeypatch.setattr(launch, "_RUN_KNOWN", [True])
    monkeypatch.setattr(launch, "_runtime_knobs", Runtime())
    k, log = fake(compiled=Compiled)
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)
    k._launch_cuda(args, 4, 64, args[0], 0)
    kinds = [kind for kind, _ in log]
    assert kinds == (["jit", "raw"] if scratch == 0 else ["jit", "call", "raw"])
    raw = log[-1][1]
    # grid, stream, function, cooperative, pdl, no scratch, packed metadata, no launch metadata or hooks
    assert raw[:13] == (raw[0], 1, 1, 1234, "fn", False, False, None, None, "meta", None, None, None)
    assert raw[13:] == (*[a.data_ptr() for a in args], 4, 64, *log[0][1][2])


class _CudaRef:
    """Stands for a CUDA tensor where :meth:`ScanKernel.prepared` reads one (device, dtype)."""

    is_cuda, dtype = True, torch.float32

    def get_device(self) -> int:
        return 0


@pytest.mark.parametrize("hooks", [False, True])
def test_a_prepared_launch_passes_what_the_cached_launcher_does(fake: Any, monkeypatch: pytest.MonkeyPatch, hooks: bool) -> None:
    class Hooks:
        calls: list[Any] = [print] if hooks else []

    class Runtime:
        launch_enter_hook = Hooks()
        launch_exit_hook = Hooks()

    class Compiled(FakeCompiled):
        function, packed_metadata = "fn", "meta"

        def __init__(self, log: list[tuple[str, Any]], fail: bool = False) -> None:
            super().__init__(log, fail)
            self.run = FakeLauncher(log, 0)

    monkeypatch.setattr(launch, "_RUN_KNOWN", [True])
    monkeypatch.setattr(launch, "_runtime_knobs", Runtime())
    monkeypatch.setattr(launch, "_current_device", lambda: 0)
    k, log = fake(compiled=Compiled)
    args = _args()
    k._launch_cuda(args, 4, 64, args[0], 0)  # JIT, caches the launcher
    k._launch_cuda(args, 4, 64, args[0], 0)  # the cached launcher
    prepared = k.prepared([a.dtype for a in args], _CudaRef(), 4, 64)  # type: ignore[arg-type]
    assert prepared is not None
    fresh = _args()
    assert prepared(fresh) is True
    assert [kind for kind, _ in log] == ["jit", *(["direct", "direct"] if hooks else ["raw", "raw"])]
    via_cache, via_plan = log[1][1], log[2][1]
    if hooks:  # the runner, which builds the hooks' metadata: grid, argument count, constexprs, stream
        assert via_plan == via_cache
    else:  # the same C launch, with the new tensors' pointers
        assert via_plan[:13] == via_cache[:13]
        assert via_plan[13:] == (*[a.data_ptr() for a in fresh], 4, 64, *log[0][1][2])
    assert prepared(_args(offset=1)) is False  # off 16-byte alignment: nothing launched
    monkeypatch.setattr(launch, "_current_device", lambda: 1)
    assert prepared(fresh) is False  # another current device
    monkeypatch.setattr(launch, "_current_device", lambda: 0)
    k._clear_direct()
    assert prepared(fresh) is False  # the launchers were dropped (a new launch configuration)
    assert len(log) == 3
