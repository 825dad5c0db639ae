"""``flexsn_trace.side_effects``: the statements of a core that change state outside its arguments, which the eager
loop runs at every step and fused kernels only while they are traced, found in the core's text; and what is the
step's own tensor math, which must not be named."""

from __future__ import annotations

import collections
from typing import Any

import torch

from flexsn_trace import find_constants
from flexsn_trace.side_effects import side_effects
from flexsn_trace.testing import Spike

RECORD: list[torch.Tensor] = []
STATS: dict[str, Any] = {}
ACC = torch.zeros(3)
N_CALLS = 0


class Counter:
    n = 0


def changing_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    global N_CALLS
    h = v + x
    RECORD.append(h)
    STATS["last"] = h
    Counter.n += 1
    ACC.add_(h.sum())
    N_CALLS = N_CALLS + 1
    return h, v


class _Holder:
    last: Any = None


HOLDER = _Holder()


def aliasing_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    record = RECORD  # a local name for outside state: its changes are outside changes
    record.append(x)
    stats = STATS
    stats["n"] = 1
    setattr(HOLDER, "last", x)
    h = v + x
    g = h  # a local name for a local tensor: its changes are the step's own
    g.clamp_(0.0, 2.0)
    return h, v


def clean_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    parts = []
    parts.append(x)  # a local list
    h = torch.relu_(v + sum(parts))  # a module's in-place function on the step's tensor
    h.clamp_(0.0, 2.0)  # a local tensor in place
    v = v.clone()
    v[v > 1.0] = 0.0  # an item of the step's own tensor

    def inner(y: torch.Tensor) -> torch.Tensor:
        kept = []
        kept.append(y)  # the nested function's own local
        return y

    return inner(h), v


class Recording(torch.nn.Module):
    """A core module that counts its steps and keeps each membrane: bookkeeping the fused kernels never repeat."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.v_list: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.steps += 1
        h = v + x
        self.v_list.append(h)
        return h, h

    def clear_record(self) -> None:
        """Not run by a step: its change is the user's own business between calls."""
        self.v_list.clear()


GRADS: "collections.deque[torch.Tensor]" = collections.deque(maxlen=4)


class KeepingGradients(Spike):
    """:class:`flexsn_trace.testing.Spike` whose backward keeps the last gradients: autograd runs it at every step of
    the loop's backward."""

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        GRADS.append(g)
        return Spike.backward(ctx, g)


def keeping_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + x
    s = KeepingGradients.apply(h - 1.0)
    return s, h * (1.0 - s)


def _statements(found: list[str]) -> list[str]:
    return [f.split(" in ", 1)[0] for f in found]


def test_changes_outside_the_arguments_are_named_in_reading_order() -> None:
    found = side_effects([changing_core])
    assert _statements(found) == [
        "RECORD.append(h)", "STATS['last'] = h", "Counter.n += 1", "ACC.add_(h.sum())", "N_CALLS = N_CALLS + 1",
    ]
    assert all("changing_core (" in f and "test_side_effects.py:" in f for f in found), found


def test_a_local_alias_of_outside_state_and_setattr_are_named() -> None:
    assert _statements(side_effects([aliasing_core])) == [
        "record.append(x)", "stats['n'] = 1", "setattr(HOLDER, 'last', x)",
    ]


def test_the_steps_own_math_and_locals_are_not_named() -> None:
    assert side_effects([clean_core]) == []


def test_a_modules_attributes_are_state_outside_the_arguments() -> None:
    assert _statements(side_effects([Recording.forward])) == ["self.steps += 1", "self.v_list.append(h)"]


def test_find_constants_carries_them_for_the_caller_to_tell() -> None:
    # the step runs forward, not __init__ nor clear_record (a method of the core's class the step never names)
    assert _statements(list(find_constants(Recording()).side_effects)) == ["self.steps += 1", "self.v_list.append(h)"]
    assert find_constants(clean_core).side_effects == ()


def test_library_code_and_code_without_text_are_not_read() -> None:
    namespace: dict[str, Any] = {"RECORD": []}
    exec("def made(x, v):\n    RECORD.append(x)\n    return x, v\n", namespace)  # no file text to read
    assert side_effects([namespace["made"], torch.nn.functional.relu]) == []  # type: ignore[list-item]


def test_an_autograd_functions_backward_is_read() -> None:
    """The eager loop's backward runs it at every step; fused kernels never run its Python. Before, only the step's
    ``forward`` was read, and this change went untold."""
    assert _statements(list(find_constants(keeping_core).side_effects)) == ["GRADS.append(g)"]


BIAS = torch.ones(3)
SEEN: set[int] = set()
LOGS: list[list[torch.Tensor]] = [[], []]
BY_NAME: dict[str, list[torch.Tensor]] = {"a": [], "b": []}


def get_log() -> list[torch.Tensor]:
    return LOGS[0]


def make_buffer(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x)  # a fresh tensor each call: changing it changes nothing outside


class _Log:
    def __init__(self) -> None:
        self.kept: list[torch.Tensor] = []

    def records(self) -> list[torch.Tensor]:
        return self.kept


LOG = _Log()


def tensor_methods_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = BIAS.add(x)  # a tensor's add returns its result: BIAS is unchanged
    s, _ = h.sort()
    SEEN.add(1)  # a set's add, standing alone: a change
    return h + s, v


def reached_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    get_log().append(x)  # through what a helper returns
    for log in LOGS:  # through a loop's item
        log.append(v)
    for _, named in BY_NAME.items():
        named.append(x)
    for i, log in enumerate(LOGS):
        log.append(x)
    kept = get_log()  # a local bound to what a helper returns
    kept.append(v)
    LOG.records().append(x)  # a global object's method returning its own state
    make_buffer(x).add_(v)  # a fresh tensor from a helper: the step's own
    for t in (x, v):  # items of the step's own tensors
        t.clamp_(0.0, 1.0)
    return x, v


class RecordingByMethod(torch.nn.Module):
    """A core module that records through a method of its own returning its list."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[torch.Tensor] = []
        self.b = torch.nn.Parameter(torch.ones(3))

    def log(self) -> list[torch.Tensor]:
        return self.kept

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.b.add(x)  # the parameter's add returns its result
        self.log().append(h)
        return h, v


def test_a_tensors_add_and_sort_are_not_changes_a_containers_are() -> None:
    """Before, ``BIAS.add(x)`` and ``self.b.add(x)`` (out of place) were told as changes: a warning for nothing."""
    assert _statements(side_effects([tensor_methods_core])) == ["SEEN.add(1)"]


def test_changes_through_a_helpers_result_and_a_loops_item_are_named() -> None:
    """Before, a state reached through what a helper returns or through a loop's item was not seen: the kernels made
    the change once, while tracing, without a word."""
    assert _statements(side_effects([reached_core])) == [
        "get_log().append(x)", "log.append(v)", "named.append(x)", "log.append(x)", "kept.append(v)",
        "LOG.records().append(x)",
    ]


def comprehending_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    outs = [t.clamp_(0.0, 1.0) for t in (x.clone(), v.clone())]  # the comprehension's own tensors
    [log.append(x) for log in LOGS]  # items of outside state
    return outs[0], outs[1]


def test_a_comprehensions_variables_are_its_own_unless_it_runs_over_outside_state() -> None:
    """Before, on Python 3.11 (which keeps a comprehension's variables out of the function's locals) the first was
    told as a change and, on 3.12 (which inlines them), the second was not seen."""
    assert _statements(side_effects([comprehending_core])) == ["log.append(x)"]


def test_a_method_of_the_steps_own_class_returning_its_state_is_followed() -> None:
    assert _statements(list(find_constants(RecordingByMethod()).side_effects)) == ["self.log().append(h)"]


def pick_log() -> list[torch.Tensor]:
    return LOGS[1]


def get_picked() -> list[torch.Tensor]:
    return pick_log()  # what another helper returns: outside state too


def all_logs() -> list[list[torch.Tensor]]:
    return LOGS


def first_log() -> list[torch.Tensor]:
    return all_logs()[0]  # an item of what another helper returns


def looping() -> list[torch.Tensor]:
    return looping()  # never returns: the bound on calls followed stops the search


def fresh_from_helper(x: torch.Tensor) -> torch.Tensor:
    return make_buffer(x)  # a fresh tensor, two calls deep


def chained_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    get_picked().append(x)
    kept = get_picked()
    kept.append(v)
    fresh_from_helper(x).add_(v)
    looping().append(x)
    first_log().append(v)
    item = all_logs()[1]  # a local bound to an item of what a helper returns
    item.append(x)
    return x, v


def test_a_helpers_result_is_followed_through_helpers_returning_another_helpers_result() -> None:
    """Before, ``get_picked().append(x)`` where ``get_picked`` returns ``pick_log()``, which returns ``LOGS[1]``,
    was not seen (one call was followed): the kernels made the change once, while tracing, without a word."""
    assert _statements(side_effects([chained_core])) == [
        "get_picked().append(x)", "kept.append(v)", "first_log().append(v)", "item.append(x)",
    ]


def test_a_helper_called_from_many_places_is_read_once_per_depth(tmp_path, monkeypatch) -> None:
    """Following results three calls deep must not read a helper once per call site: 6 helpers each calling 6 helpers
    each calling 6 more were read 1 + 6 + 36 + 216 times before the search shared its answers (0.7 s for 12 of each)."""
    import importlib.util

    from flexsn_trace import side_effects as se

    lines = ["import torch"]
    for tier, callee in (("c", None), ("b", "c"), ("a", "b")):
        for i in range(6):
            body = "".join(f"    r{j} = {callee}{j}(x)\n" if callee else f"    r{j} = torch.relu(x)\n" for j in range(6))
            lines.append(f"def {tier}{i}(x):\n{body}    return x\n")
    lines.append("def core(x, v):\n" + "".join(f"    r{j} = a{j}(x)\n" for j in range(6)) + "    return x, v\n")
    path = tmp_path / "fan_out_core.py"
    path.write_text("\n\n".join(lines))
    spec = importlib.util.spec_from_file_location("fan_out_core", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    built: list[str] = []
    real_init = se._Scope.__init__

    def counting_init(self, func, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(func.__name__)
        real_init(self, func, *args, **kwargs)

    monkeypatch.setattr(se._Scope, "__init__", counting_init)
    assert se.side_effects([module.core]) == []
    assert len(built) <= 1 + 6 + 6 + 6  # the core, then each helper of each tier once
