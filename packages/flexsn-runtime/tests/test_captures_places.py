"""Captured tensors in the places lifted since the first captures: class bodies (read by the class's name or
through ``self``), containers held as plain ``nn.Module`` attributes, a helper's own closure cells and defaults,
a variable nested functions share, the methods of the core's object, an attribute a global object's method
reads, one tensor at two places, the slots and class body of a ``__slots__`` object. Each runs fused with no fallback warning, gives the loop's result and the
gradients autograd gives through the loop, and follows a change made between calls; what still cannot be
lifted falls back with a warning naming the tensor."""

from __future__ import annotations

import functools

import warnings
from typing import Any, Callable

import pytest
import torch
from torch import nn

from flexsn_runtime import FlexSNKernel
from flexsn_trace import ScanContract, reference_scan
from captures_reference import C, N, T, check_fused_with_gradients, follows_a_change, spike



class Params:
    """A class body holding tensors, read as ``Params.th`` (its attributes are set per case)."""

    th: torch.Tensor
    cfg: dict[str, torch.Tensor]


def class_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(Params.cfg["decay"])
    return spike(h - Params.th), h * 0.5


class ClassBody:
    """A callable object reading a tensor of its class body as ``self.th``."""

    th: torch.Tensor

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return spike(h - self.th), h * 0.5


class ModuleClassBody(nn.Module):
    """An ``nn.Module`` reading a class-body tensor through ``self`` beside its own parameter."""

    th: torch.Tensor

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-0.5, 0.5, C, device=device))

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w)
        return spike(h - self.th), h * 0.5


class DictAttribute(nn.Module):
    """A dict and a list of tensors held as plain module attributes (not ``nn.ParameterDict``)."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.p = {"th": torch.linspace(0.8, 1.2, C, device=device).requires_grad_()}
        self.ws = [torch.full((N, 1), 0.3, device=device, requires_grad=True)]

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.ws[0])
        return spike(h - self.p["th"]), h * 0.5


class _Inner(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.ws = [_leaf(N, 1, lo=0.2, hi=0.4, device=device)]


class _Middle(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.cfg = {"th": _leaf(C, device=device)}
        self.inner = _Inner(device)


class SubmoduleDicts(nn.Module):
    """Containers held by plain attributes of submodules (before: a fallback, "a list or dict held by a
    submodule's plain attribute")."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.middle = _Middle(device)

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.middle.inner.ws[0])
        return spike(h - self.middle.cfg["th"]), h * 0.5


NET: nn.Module = nn.Module()


P_BIAS = torch.tensor(0.0)


def _fire_with(h: torch.Tensor, th: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    return spike(gain * (h - th) + P_BIAS)  # a global of the partial's function too


FIRE_P = functools.partial(_fire_with, gain=torch.tensor(1.0))


def partial_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Calls a global ``functools.partial`` binding tensors (before: read, never rebuilt, a fallback)."""
    h = v + (x - v) * 0.5
    return FIRE_P(h), h * 0.5


def global_module_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads a dict held by a plain attribute of a global module (before: a fallback)."""
    h = v + (x - v) * 0.5
    return spike(h - NET.cfg["th"]), h * 0.5


def make_fire(th: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    def fire(h: torch.Tensor) -> torch.Tensor:  # a helper reading its own closure cell
        return spike(h - th)

    return fire


fire_cell = make_fire(torch.tensor(1.0))


def cell_helper_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return fire_cell(h), h * 0.5


DEFAULT_TH = torch.tensor(1.0)


def fire_default(h: torch.Tensor, th: torch.Tensor = DEFAULT_TH, *, gain: torch.Tensor = DEFAULT_TH) -> torch.Tensor:
    return spike(gain * (h - th))


def default_helper_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return fire_default(h), h * 0.5


def shared_cell_core(w: torch.Tensor) -> Callable[..., Any]:
    def charge(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:  # reads the cell the core reads too
        return v + (x - v) * torch.sigmoid(w)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = charge(x, v)
        return spike(h - w), h * 0.5

    return core


METHOD_TH = torch.tensor(1.0)


class MethodHelpers(nn.Module):
    """``forward`` calls a method and a static method of its class, each reading a module global."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.full((N, 1), 0.2, device=device))

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return v + (x - v) * torch.sigmoid(self.w + METHOD_TH)

    @staticmethod
    def fire(h: torch.Tensor) -> torch.Tensor:
        return spike(h - METHOD_TH)

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.charge(x, v)
        return self.fire(h), h * 0.5


def two_places_core(w: torch.Tensor) -> Callable[..., Any]:
    """One tensor read from a closure cell and from a default bound from it: one argument."""

    def core(x: torch.Tensor, v: torch.Tensor, th: torch.Tensor = w) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        return spike(h - th), h * 0.5

    return core


class Firing:
    """A user object held by a global, whose method reads the object's own tensor."""

    def __init__(self, th: torch.Tensor) -> None:
        self.th = th

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return spike(h - self.th)


FIRING = Firing(torch.tensor(1.0))


def object_method_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return FIRING.fire(h), h * 0.5


SLOT_W = torch.tensor(0.2)


class Slotted:
    """A ``__slots__`` callable object (no ``__dict__``): a slot's tensor, a class-body tensor read through ``self``
    and a method reading a global. Before: building its kernel raised ``TypeError: vars() argument must have
    __dict__ attribute``."""

    __slots__ = ("th",)
    gain: torch.Tensor  # set per case, in the class body

    def __init__(self, th: torch.Tensor) -> None:
        self.th = th

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return v + (x - v) * torch.sigmoid(SLOT_W)

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.charge(x, v)
        return spike(self.gain * (h - self.th)), h * 0.5


class SlottedConfig:
    """A ``__slots__`` object held by a global, read as ``SLOT_CFG.th``."""

    __slots__ = ("th", "n")

    def __init__(self, th: torch.Tensor) -> None:
        self.th, self.n = th, 3


SLOT_CFG = SlottedConfig(torch.tensor(1.0))


def slotted_config_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return spike(h - SLOT_CFG.th), h * 0.5


class PropertyNeuron:
    """A callable object whose threshold tensor sits behind a property (``self.th`` reads ``self._th``)."""

    def __init__(self, th: torch.Tensor) -> None:
        self._th = th

    @property
    def th(self) -> torch.Tensor:
        return self._th

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return spike(h - self.th), h * 0.5


def _leaf(*shape: int, lo: float = 0.8, hi: float = 1.2, device: torch.device) -> torch.Tensor:
    return torch.linspace(lo, hi, shape[-1], device=device).expand(*shape).clone().requires_grad_()


def _cases(device: torch.device) -> dict[str, tuple[Callable[..., Any], list[torch.Tensor], tuple[str, ...]]]:
    global METHOD_TH, SLOT_W, fire_cell
    Params.th = _leaf(C, device=device)
    Params.cfg = {"decay": _leaf(N, 1, lo=0.2, hi=0.2, device=device)}
    ClassBody.th = _leaf(C, device=device)
    ModuleClassBody.th = _leaf(N, 1, device=device)
    module_body, dict_attr, methods = ModuleClassBody(device), DictAttribute(device), MethodHelpers(device)
    fire_cell = make_fire(_leaf(C, device=device))
    th, gain = _leaf(C, device=device), _leaf(N, 1, lo=0.5, hi=0.5, device=device)
    fire_default.__defaults__, fire_default.__kwdefaults__ = (th,), {"gain": gain}
    shared_w, two_w = _leaf(C, lo=-0.3, hi=0.3, device=device), _leaf(C, device=device)
    METHOD_TH = _leaf(C, lo=0.9, hi=1.1, device=device)
    FIRING.th = _leaf(N, 1, device=device)
    Slotted.gain, SLOT_W, SLOT_CFG.th = _leaf(N, 1, lo=0.9, hi=1.1, device=device), _leaf(C, lo=0.1, hi=0.3, device=device), _leaf(C, device=device)
    slotted = Slotted(_leaf(C, device=device))
    behind_property = PropertyNeuron(_leaf(N, 1, device=device))
    submodule_dicts = SubmoduleDicts(device)
    gained = Gained(_leaf(N, 1, lo=0.5, hi=1.5, device=device))
    StaticFire.gain = _leaf(C, lo=0.8, hi=1.6, device=device)
    NET.cfg = {"th": _leaf(C, device=device)}
    global FIRE_P, P_BIAS
    P_BIAS = _leaf(C, lo=-0.1, hi=0.1, device=device)
    FIRE_P = functools.partial(_fire_with, _leaf(C, device=device), gain=_leaf(N, 1, lo=0.5, hi=1.5, device=device))
    return {
        "a global partial's argument and keyword": (
            partial_core, [FIRE_P.args[0], FIRE_P.keywords["gain"], P_BIAS],
            ("global FIRE_P.args[0]", "global FIRE_P.keywords['gain']", "global P_BIAS (read by _fire_with)")),
        "a global object's method reading a global": (held_method_core, [METHOD_TH], ("global METHOD_TH (read by fire)",)),
        "a closure's object's method": (
            make_closure_object_core(gained), [gained.gain, METHOD_TH], ("closure obj.gain", "global METHOD_TH (read by fire)")),
        "a global class's static and class methods": (
            class_helper_core, [StaticFire.gain, METHOD_TH], ("global StaticFire.gain", "global METHOD_TH (read by fire)")),
        "dicts held by submodules' attributes": (
            submodule_dicts, [submodule_dicts.middle.cfg["th"], submodule_dicts.middle.inner.ws[0]],
            ("self.middle.cfg['th']", "self.middle.inner.ws[0]")),
        "a dict held by a global module's attribute": (global_module_core, [NET.cfg["th"]], ("global NET.cfg['th']",)),
        "a property": (behind_property, [behind_property._th], ("self._th",)),
        "a __slots__ object": (slotted, [slotted.th, Slotted.gain, SLOT_W], ("self.th", "self.gain", "global SLOT_W (read by charge)")),
        "a __slots__ object held by a global": (slotted_config_core, [SLOT_CFG.th], ("global SLOT_CFG.th",)),
        "a global object's method": (object_method_core, [FIRING.th], ("global FIRING.th",)),
        "class attribute": (class_core, [Params.cfg["decay"], Params.th], ("global Params.cfg['decay']", "global Params.th")),
        "class attribute through self": (ClassBody(), [ClassBody.th], ("self.th",)),
        "module class attribute": (module_body, [ModuleClassBody.th, module_body.w], ("self.th", "self.w")),
        "dict held by a module attribute": (dict_attr, [dict_attr.p["th"], dict_attr.ws[0]], ("self.p['th']", "self.ws[0]")),
        "helper closure cell": (cell_helper_core, [fire_cell.__closure__[0].cell_contents],  # type: ignore[index]
                                ("closure th (read by fire)",)),
        "helper defaults": (default_helper_core, [th, gain], ("default th (read by fire_default)", "default gain (read by fire_default)")),
        "shared cell": (shared_cell_core(shared_w), [shared_w], ("closure w",)),
        "methods reading a global": (methods, [METHOD_TH, methods.w], ("global METHOD_TH (read by charge)", "self.w")),
        "one tensor at two places": (two_places_core(two_w), [two_w], ("closure w",)),
    }


@pytest.mark.parametrize(
    "case", ["class attribute", "class attribute through self", "module class attribute", "dict held by a module attribute",
             "helper closure cell", "helper defaults", "shared cell", "methods reading a global", "one tensor at two places",
             "a global object's method", "a __slots__ object", "a __slots__ object held by a global", "a property",
             "dicts held by submodules' attributes", "a dict held by a global module's attribute",
             "a global object's method reading a global", "a global partial's argument and keyword",
             "a closure's object's method", "a global class's static and class methods"]
)
def test_captured_tensors_run_fused_with_gradients(case: str, device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: each fell back to the eager loop with a warning (or froze nothing but never ran fused)."""
    core, params, names = _cases(device)[case]
    check_fused_with_gradients(core, params, names, device, monkeypatch)


@pytest.mark.parametrize("case", ["class attribute", "class attribute through self", "dict held by a module attribute",
                                  "helper closure cell", "helper defaults", "methods reading a global",
                                  "a global object's method", "a __slots__ object", "a __slots__ object held by a global",
                                  "dicts held by submodules' attributes", "a dict held by a global module's attribute",
                                  "a global object's method reading a global", "a global partial's argument and keyword",
                                  "a closure's object's method", "a global class's static and class methods"])
def test_a_change_between_calls_is_read(case: str, device: torch.device) -> None:
    """A reassignment (or an in-place change) where the tensor lives is what the next call reads; binding for the
    trace left the user's classes, objects and functions as they were."""
    core, _, _ = _cases(device)[case]
    new = torch.full((C,), 0.3, device=device)
    changes: dict[str, Callable[[], None]] = {
        "class attribute": lambda: setattr(Params, "th", new),
        "class attribute through self": lambda: setattr(ClassBody, "th", new),
        "dict held by a module attribute": lambda: core.p.__setitem__("th", new),
        "helper closure cell": lambda: fire_cell.__closure__[0].cell_contents.data.fill_(0.3),  # type: ignore[index]
        "helper defaults": lambda: setattr(fire_default, "__defaults__", (new,)),
        "methods reading a global": lambda: globals().__setitem__("METHOD_TH", new),
        "a global object's method": lambda: setattr(FIRING, "th", new),
        "a __slots__ object": lambda: setattr(Slotted, "gain", new),
        "a __slots__ object held by a global": lambda: setattr(SLOT_CFG, "th", new),
        "dicts held by submodules' attributes": lambda: core.middle.cfg.__setitem__("th", new),
        "a dict held by a global module's attribute": lambda: NET.cfg["th"].data.fill_(0.3),
        "a global object's method reading a global": lambda: globals().__setitem__("METHOD_TH", new),
        "a global partial's argument and keyword": lambda: FIRE_P.keywords.__setitem__("gain", new),
        "a closure's object's method": lambda: setattr(core.__closure__[0].cell_contents, "gain", new),  # type: ignore[attr-defined]
        "a global class's static and class methods": lambda: setattr(StaticFire, "gain", new),
    }
    follows_a_change(core, changes[case], device)
    assert Params.__bases__ == (object,) and "th" in vars(Params) and "th" not in vars(ClassBody())
    assert globals()["FIRING"] is FIRING and type(FIRING) is Firing
    assert type(core) is not ClassBody or "th" not in vars(core)
    assert type(core) is not Slotted or (type(core) is Slotted and not hasattr(core, "__dict__"))
    assert type(SLOT_CFG) is SlottedConfig and globals()["SLOT_CFG"] is SLOT_CFG
    assert globals()["HOLDER"] is HOLDER and type(HOLDER) is Holder and "fire" not in vars(HOLDER)
    assert StaticFire.__bases__ == (object,) and isinstance(vars(StaticFire)["fire"], staticmethod)  # left as it was


class Registered:
    """A class whose subclasses run code (a registry): not stood in for, so its tensor is not lifted."""

    __slots__ = ()  # so that a subclass's instances can keep no __dict__ (RegisteredSlotted)
    subclasses: list[type] = []
    th = torch.tensor(1.0)

    def __init_subclass__(cls) -> None:
        Registered.subclasses.append(cls)


def registered_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return spike(h - Registered.th), h * 0.5


class RegisteredSlotted(Registered):
    """A ``__slots__`` object of such a class, reading a class-body tensor through ``self``: a copy could shadow it
    only through a subclass stand-in, which would run the registry's code."""

    __slots__ = ()

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return spike(h - self.th), h * 0.5


class Holder:
    """A plain object (not the core's) whose method reads a global (before: not rebuilt, a fallback; now the global
    HOLDER is handed a copy holding the rebuilt method)."""

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return spike(h - METHOD_TH)


HOLDER = Holder()


def held_method_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return HOLDER.fire(h), h * 0.5


class Gained:
    """A plain object a factory's closure holds, whose method reads its own tensor and a global (before: reached
    through an object no global names, so not rebuilt: a fallback; now the core takes a cell holding a copy)."""

    def __init__(self, gain: torch.Tensor) -> None:
        self.gain = gain

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return spike(self.gain * (h - METHOD_TH))


def make_closure_object_core(obj: Gained) -> Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    def closure_object_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return obj.fire(h), h * 0.5

    return closure_object_core


class StaticFire:
    """A user class whose static method reads a global and whose class method reads a class-body tensor, called by
    the class's name (before: a helper reached through a class was not rebuilt, a fallback; now the global is handed
    a subclass stand-in holding the rebuilt functions)."""

    gain = torch.tensor(1.0)

    @staticmethod
    def fire(h: torch.Tensor) -> torch.Tensor:
        return spike(h - METHOD_TH)

    @classmethod
    def scale(cls, h: torch.Tensor) -> torch.Tensor:
        return cls.gain * h


def class_helper_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return StaticFire.fire(StaticFire.scale(h)), h * 0.5


@pytest.mark.parametrize("case", ["class that runs code when subclassed", "__slots__ object of a class that runs code when subclassed"])
def test_what_cannot_be_lifted_falls_back_never_frozen(case: str, device: torch.device) -> None:
    """Inlined, the tensor's value would stay as traced: the loop runs the core instead, after a warning."""
    global METHOD_TH
    core = {"class": registered_core, "__slots__": RegisteredSlotted()}[case.split()[0]]
    Registered.th, METHOD_TH = torch.tensor(1.0, device=device), torch.tensor(1.0, device=device)
    with pytest.warns(RuntimeWarning, match=r"captured tensor \(\[\] float32\) from outside its arguments.*static input"):
        k = FlexSNKernel(core, 1, 1, 1)
    assert Registered.subclasses == [RegisteredSlotted]  # no stand-in was made
    Registered.th, METHOD_TH = torch.tensor(0.2, device=device), torch.tensor(0.2, device=device)
    x = torch.rand(T, N, C, device=device) * 2
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, _ = k(x)
        want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(y, want)
