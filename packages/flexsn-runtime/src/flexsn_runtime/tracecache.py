"""Reuse traced kernels across processes: a fingerprint of the core -> kernel sources.

Tracing a core (:mod:`flexsn_trace.recorder`, :mod:`flexsn_trace.joint`) dominates start-up, and
its result depends only on the core's code and the values it closes over.
:func:`core_fingerprint` hashes exactly that, recursively: code objects,
constants, closure cells, referenced globals (functions, classes such as
``autograd.Function`` surrogates, scalars, small tensors), callable
instances' attributes, plus the versions of torch, triton and the FlexSN
layers' own source. Anything it cannot hash with certainty (large tensors,
unknown objects) makes it return ``None``, and the core is traced as usual:
a cache that might return a stale kernel is worse than no cache.

Entries are JSON files next to the generated sources in ``cache_dir()``,
written atomically, one per part of a build: ``"inference"`` (traced when
the kernel is built) and ``"training"`` (traced on the first call that
needs gradients, so a process that only infers never pays for it).
``FLEXSN_TRACE_CACHE=0`` turns the cache off.

An entry also names the versions it was written under (torch, Triton, FlexSN's
build sources): :func:`key_by_prefix` finds an entry from a kernel handle's
fingerprint prefix alone (a program saved by ``torch.export.save``, loaded in
a process that built no neuron), and takes only an entry these versions wrote.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import types
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from flexsn_codegen import atomic_write, cache_dir, interpreter_enabled
from flexsn_trace.env import env_flag
from flexsn_trace import FlexSNInfo, SavedSource

__all__ = [
    "BUILD_KERNELS", "BUILD_PARTS", "build_versions", "core_fingerprint", "decode_entry", "key_by_prefix", "load_build", "read_entry",
    "store_build",
]

_MAX_DEPTH = 32
# Callables whose behaviour is fixed by their name (no per-instance state).
_STATELESS_CALLABLES = (
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    torch._ops.OpOverload,
    torch._ops.OpOverloadPacket,
)
_SIMPLE = (int, float, bool, str, bytes, type(None), complex)


class _Unhashable(Exception):
    pass


#: the runtime modules that decide what a build holds: tracing calls, the stored fields, their encoding
_RUNTIME_BUILD_MODULES = ("builders.py", "kernel_build.py", "tracecache.py")


def build_sources() -> list[Path]:
    """Every source file whose change can change a cached build: part of every key (through :func:`build_versions`).

    All of ``flexsn_trace`` and ``flexsn_codegen`` (subpackages too: the op
    lowerings live in ``flexsn_codegen.lowering``) and the runtime modules
    that make and store builds. A version number would not do: an edited
    checkout keeps its version.
    """
    import flexsn_codegen
    import flexsn_trace

    paths: list[Path] = []
    for mod in (flexsn_trace, flexsn_codegen):
        root = Path(mod.__file__ or "").parent
        paths += sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix())
    here = Path(__file__).parent
    return paths + [here / name for name in _RUNTIME_BUILD_MODULES]


def _package_sources_digest() -> str:
    h = hashlib.sha256()
    for path in build_sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


_SOURCES: str | None = None


def build_versions() -> str:
    """What every entry records and must match to be used: ``"<torch>|<triton>|<digest of FlexSN's build sources>"``."""
    global _SOURCES
    if _SOURCES is None:
        try:
            import triton

            triton_version = triton.__version__
        except Exception:
            triton_version = "none"
        _SOURCES = f"{torch.__version__}|{triton_version}|{_package_sources_digest()}"
    return _SOURCES


class _Hasher:
    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.seen: dict[int, int] = {}
        #: attribute names the hashed code reads (``co_names``): what it can reach through a module
        self.names: set[str] = set()
        #: user modules the hashed code reaches, in the order met, with the names already hashed in each
        self.modules: list[tuple[types.ModuleType, set[str]]] = []

    def put(self, *parts: object) -> None:
        for p in parts:
            self.h.update(repr(p).encode())
            self.h.update(b"\x00")

    def obj(self, x: Any, depth: int) -> None:
        if isinstance(x, _SIMPLE):
            self.put(type(x).__name__, x)
            return
        if depth > _MAX_DEPTH:
            raise _Unhashable("too deep")
        if isinstance(x, (tuple, list, frozenset, set)):
            items = sorted(x, key=repr) if isinstance(x, (set, frozenset)) else x
            self.put(type(x).__name__, len(items))
            for item in items:
                self.obj(item, depth + 1)
            return
        if isinstance(x, dict):
            self.put("dict", len(x))
            for k in sorted(x, key=repr):
                self.obj(k, depth + 1)
                self.obj(x[k], depth + 1)
            return
        if id(x) in self.seen:  # recursion (a function referring to itself)
            self.put("seen", self.seen[id(x)])
            return
        self.seen[id(x)] = len(self.seen)
        if isinstance(x, torch.dtype):
            self.put("dtype", str(x))
        elif isinstance(x, torch.Tensor):
            if x.numel() > 64 or x.requires_grad or x.device.type == "meta":
                raise _Unhashable("tensor")
            self.put("tensor", x.dtype, tuple(x.shape), x.detach().cpu().tolist())
        elif isinstance(x, types.ModuleType):
            self.module(x, depth)
        elif isinstance(x, types.CodeType):
            self.code(x, depth)
        elif isinstance(x, types.FunctionType):
            self.function(x, depth)
        elif isinstance(x, types.MethodType):
            self.put("method")
            self.obj(x.__func__, depth + 1)
            self.obj(x.__self__, depth + 1)
        elif isinstance(x, torch.nn.Module):
            raise _Unhashable("module instance (parameters may change)")
        elif isinstance(x, functools.partial):
            self.put("partial")
            self.obj(x.func, depth + 1)
            self.obj(x.args, depth + 1)
            self.obj(dict(x.keywords), depth + 1)
        elif isinstance(x, _STATELESS_CALLABLES):
            self.put("builtin", getattr(x, "__module__", None), getattr(x, "__qualname__", None) or repr(x))
        elif isinstance(x, type):
            self.cls(x, depth)
        elif hasattr(x, "__dict__") or _slots(type(x)):
            self.put("instance")
            self.cls(type(x), depth + 1)
            state = dict(vars(x)) if hasattr(x, "__dict__") else {}
            for name in _slots(type(x)):
                if hasattr(x, name):
                    state[f"slot:{name}"] = getattr(x, name)
            self.obj(state, depth + 1)
        else:
            raise _Unhashable(type(x).__name__)

    def code(self, co: types.CodeType, depth: int) -> None:
        self.put("code", co.co_code, co.co_names, co.co_varnames, co.co_argcount, co.co_kwonlyargcount)
        for c in co.co_consts:
            self.obj(c, depth + 1)

    def module(self, m: types.ModuleType, depth: int) -> None:
        """A module the core reads: its name, and for user modules every attribute a hashed code may read.

        ``cfg.TAU`` compiles to the names ``cfg`` and ``TAU``: hashing the value
        of ``TAU`` in ``cfg`` (in :meth:`finish`, once every code is hashed) makes
        ``cfg.TAU = 4.0`` give another key.
        """
        self.put("module", m.__name__)
        if not _is_library(m.__name__):
            self.modules.append((m, set()))

    def finish(self) -> str:
        """Hash the reached modules' attributes that any hashed code reads, and return the digest.

        Left to the end (and repeated until nothing new is read): code hashed after a
        module was met may read more of it (``helper`` reading ``cfg.THRESH``, met after
        ``cfg`` itself), and an attribute's value may be code that reads more again.
        """
        grew = True
        while grew:
            grew = False
            for m, done in list(self.modules):
                for name in sorted(self.names - done):
                    done.add(name)
                    if name in vars(m):
                        grew = True
                        self.put("module-attr", m.__name__, name)
                        self.obj(vars(m)[name], 1)
        return self.h.hexdigest()

    def function(self, fn: types.FunctionType, depth: int) -> None:
        self.put("function", fn.__module__, fn.__qualname__)
        if _is_library(fn.__module__):
            return
        self.names.update(_global_names(fn.__code__))
        self.code(fn.__code__, depth)
        self.obj(fn.__defaults__, depth + 1)
        self.obj(fn.__kwdefaults__, depth + 1)
        for cell in fn.__closure__ or ():
            try:
                self.obj(cell.cell_contents, depth + 1)
            except ValueError:  # empty cell
                self.put("empty-cell")
        for name in _global_names(fn.__code__):
            if name in fn.__globals__:
                self.put("global", name)
                self.obj(fn.__globals__[name], depth + 1)

    def cls(self, c: type, depth: int) -> None:
        self.put("class", c.__module__, c.__qualname__)
        if _is_library(c.__module__):
            return
        for base in c.__mro__[1:]:
            # a user base class's methods and attributes are the subclass's behaviour too
            self.put("base")
            self.obj(base, depth + 1)
        for name, value in sorted(vars(c).items()):
            if name in _CACHED_CLASS_ATTRS:
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                value = value.fget
            if isinstance(value, (types.FunctionType, type, tuple, list, dict, set, frozenset) + _SIMPLE):
                # class-valued attributes too: e.g. the autograd.Function a
                # surrogate-spike class applies; containers of constants (an
                # unhashable item makes the whole key None: no caching, never a stale hit)
                self.put("attr", name)
                self.obj(value, depth + 1)


#: class attributes Python caches on a class as a side effect, not behaviour: ``copyreg`` stores
#: ``__slotnames__`` at a class's first ``copy``/``pickle``, which changed the key mid-process
_CACHED_CLASS_ATTRS = frozenset({"__slotnames__"})


def _slots(c: type) -> list[str]:
    names: list[str] = []
    for k in c.__mro__:
        slots = vars(k).get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return [n for n in names if n not in ("__dict__", "__weakref__")]


def _is_library(module: str | None) -> bool:
    root = (module or "").split(".")[0]
    return root in {"torch", "triton", "math", "builtins", "numpy", "functools", "operator", "typing"}


def _global_names(co: types.CodeType) -> list[str]:
    names = list(co.co_names)
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            names += _global_names(c)
    return sorted(set(names))


def core_fingerprint(
    core: Callable[..., Any],
    arity: tuple[int, ...],
    example_inputs: Sequence[torch.Tensor] | None,
    requires_grad: Sequence[bool] | None,
) -> str | None:
    """A key that identifies what tracing ``core`` would produce, or ``None``.

    Args:
        core: the step function (function, bound method or callable object).
        arity: ``(num_inputs, num_states, num_outputs, num_static)``.
        example_inputs: the tracing examples (their shapes and dtypes count).
        requires_grad: the training trace's flags.

    Returns:
        A hex digest, or ``None`` when caching is disabled or something the
        core depends on cannot be hashed with certainty.
    """
    if not env_flag("FLEXSN_TRACE_CACHE"):
        return None
    h = _Hasher()
    try:
        # switches read at render time change the kernel source (the templates
        # render a different time loop for Triton's interpreter)
        h.put(build_versions(), env_flag("FLEXSN_PREFETCH"), env_flag("FLEXSN_CARRIER"), env_flag("FLEXSN_RECOMPUTE"), interpreter_enabled())
        h.put(arity, None if requires_grad is None else tuple(bool(r) for r in requires_grad))
        if example_inputs is None:
            h.put("default-examples")
        else:
            for e in example_inputs:
                h.put(tuple(e.shape), e.dtype)
        if inspect.isclass(core):
            return None
        h.obj(core, 0)
        return h.finish()
    except (_Unhashable, RecursionError, TypeError, ValueError, AttributeError):
        return None


def _path(key: str, part: str) -> Path:
    if part not in BUILD_PARTS:
        raise ValueError(f"a trace-cache part is one of {sorted(BUILD_PARTS)}, got {part!r}")
    return cache_dir() / (f"trace_{key[:40]}.json" if part == "inference" else f"trace_{key[:40]}.{part}.json")


def _info_to_json(info: FlexSNInfo | None) -> Any:
    if info is None:
        return None
    d = info._asdict()
    d["saved_sources"] = [list(s) for s in info.saved_sources]
    return d


def _info_from_json(d: Any) -> FlexSNInfo | None:
    if d is None:
        return None
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    fields["saved_sources"] = tuple(SavedSource(str(k), int(i)) for k, i in d["saved_sources"])  # type: ignore[arg-type]
    fields["reaches"] = tuple(tuple(int(a) for a in r) for r in d.get("reaches", ()))
    return FlexSNInfo(**fields)


_TRAINING = ("forward", "forward_final_state", "backward", "backward_final_state")
#: part -> (the kernels it holds, each ``[source, function name]`` or ``None``; its reason field; its info
#: fields). ``half_*``: the pair for 16-bit sequences when it differs (``FlexSNKernelHandle.half_training``).
BUILD_PARTS: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "inference": (("inference", "inference_final_state"), "unsupported", ("inference_info",)),
    "training": ((*_TRAINING, *(f"half_{k}" for k in _TRAINING)), "training_unsupported", ("training_info", "half_training_info")),
}
#: every kernel of a build, inference part first
BUILD_KERNELS = tuple(name for kernels, _, _ in BUILD_PARTS.values() for name in kernels)
#: the kernels an entry written before formats held (no half_* pair yet)
_PRE_FORMAT_KERNELS = ("inference", "inference_final_state", *_TRAINING)
_FORMAT = 8  # entries of another format are rebuilt quietly (an upgrade, not damage)
_WARNED: set[str] = set()


def store_build(key: str, build: dict[str, Any], part: str = "inference") -> None:
    """Persist one part of a build (kernel sources and infos, see :data:`BUILD_PARTS`) under ``key``; errors are ignored (a cache)."""
    data: dict[str, Any] = {"format": _FORMAT, "key": key, "part": part, "versions": build_versions()}
    for name, value in build.items():
        if isinstance(value, FlexSNInfo) or (value is None and name.endswith("info")):
            data[name] = _info_to_json(value)
        else:
            data[name] = value
    try:
        atomic_write(_path(key, part), json.dumps(data))
    except OSError:
        pass


def decode_entry(data: Any, key: str, part: str) -> dict[str, Any] | None:
    """The build part in a decoded entry (JSON as :func:`store_build` writes it); ``None`` for another format.

    Also how a saved program's carried entries are read (:mod:`flexsn_runtime.programs`).

    Raises:
        ValueError: a damaged entry (wrong structure, or another key or part).
    """
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}")
    kernels, reason, infos = BUILD_PARTS[part]
    if data.get("format") != _FORMAT:
        old = "format" not in data and all(name in data for name in _PRE_FORMAT_KERNELS)
        if isinstance(data.get("format"), int) or old:
            return None
        raise ValueError("it has no kernel entries")
    if data.get("key") != key or data.get("part") != part:
        raise ValueError("it belongs to another key or part")
    build: dict[str, Any] = {}
    for name in kernels:
        entry = data[name]
        if entry is not None and not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry)):
            raise ValueError(f"{name!r} is not [source, name] or null")
        build[name] = entry
    if not (data[reason] is None or isinstance(data[reason], str)):
        raise ValueError(f"{reason!r} is not a string or null")
    build[reason] = data[reason]
    for info in infos:
        build[info] = _info_from_json(data[info])
    if part == "inference":
        dtypes = data["output_dtypes"]
        if dtypes is not None and not (
            isinstance(dtypes, list) and all(d is None or isinstance(getattr(torch, str(d), None), torch.dtype) for d in dtypes)
        ):
            raise ValueError("'output_dtypes' is not a list of torch dtype names")
        build["output_dtypes"] = dtypes
    return build


def load_build(key: str, part: str = "inference") -> dict[str, Any] | None:
    """The build part stored under ``key``, or ``None`` (missing, of an older format, or damaged).

    A damaged entry (not UTF-8, not JSON, wrong structure, key or part) is
    deleted and reported once with a ``RuntimeWarning``; the caller then
    traces again.
    """
    path = _path(key, part)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        return decode_entry(json.loads(raw.decode("utf-8")), key, part)
    except Exception as exc:  # noqa: BLE001 - whatever is wrong with it, it is rebuilt
        if str(path) not in _WARNED:
            _WARNED.add(str(path))
            warnings.warn(
                f"FlexSN: discarded a damaged trace-cache entry {path} ({type(exc).__name__}: {exc}); tracing again",
                RuntimeWarning,
                stacklevel=3,
            )
        try:
            path.unlink()
        except OSError:
            pass
        return None


def read_entry(key: str, part: str) -> dict[str, Any] | None:
    """The JSON object stored under ``key`` for ``part`` as written (unchecked), or ``None`` (missing or unreadable)."""
    try:
        data = json.loads(_path(key, part).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def key_by_prefix(prefix: str) -> str | None:
    """The key of the one inference entry whose key starts with hex ``prefix`` and that these versions wrote, or ``None``.

    ``None`` as well when two entries match (the prefix does not decide) or the cache is off. What a
    process that never built the neuron can learn from a kernel handle (:mod:`flexsn_runtime.registry`).
    """
    if not env_flag("FLEXSN_TRACE_CACHE") or not prefix or not all(c in "0123456789abcdef" for c in prefix):
        return None
    found: list[str] = []
    try:
        paths = sorted(cache_dir().glob(f"trace_{prefix}*.json"))
    except OSError:
        return None
    for path in paths:
        if path.name.count(".") != 1:  # trace_<key>.json only: a part's entry is trace_<key>.<part>.json
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        key = data.get("key") if isinstance(data, dict) else None
        if isinstance(key, str) and key.startswith(prefix) and data.get("versions") == build_versions() and data.get("part") == "inference":
            found.append(key)
    return found[0] if len(found) == 1 else None
