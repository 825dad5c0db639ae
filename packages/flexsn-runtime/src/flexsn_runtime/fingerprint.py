"""The trace fingerprint: a key naming what tracing a core would produce (:func:`core_fingerprint`).

Tracing a core (:mod:`flexsn_trace.recorder`, :mod:`flexsn_trace.joint`) dominates start-up, and
its result depends only on the core's code and the values it closes over.
:func:`core_fingerprint` hashes exactly that, recursively: code objects,
constants, closure cells, referenced globals (functions, classes such as
``autograd.Function`` surrogates, scalars, small tensors), callable
instances' attributes, FX ``GraphModule`` bodies (their generated code and
what it calls), plus the versions of torch, triton and the FlexSN layers' own
source (:func:`build_versions`). Anything it cannot hash with certainty
(large tensors, modules with parameters, unknown objects) makes it return
``None``: a cache that might return a stale kernel is worse than no cache.

The key names entries of the trace cache (:mod:`flexsn_runtime.tracecache`)
and, through a kernel handle's value (:mod:`flexsn_runtime.registry`), the
graphs Inductor's disk caches keep.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
import types
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
import torch.utils._pytree as _pytree

from flexsn_codegen import interpreter_enabled
from flexsn_trace.env import env_flag

__all__ = ["FINGERPRINT_HOOK", "build_sources", "build_versions", "core_fingerprint"]

_MAX_DEPTH = 32
# Callables whose behaviour is fixed by their name (no per-instance state).
_STATELESS_CALLABLES = (
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    torch._ops.OpOverload,
    torch._ops.OpOverloadPacket,
)
_SIMPLE = (int, float, bool, str, bytes, type(None), complex)
#: values a node argument may hold that their repr names exactly
_BY_REPR = (torch.device, torch.memory_format, torch.layout, slice, type(Ellipsis))


class _Unhashable(Exception):
    pass


def build_sources() -> list[Path]:
    """Every source file whose change can change a cached build: part of every key (through :func:`build_versions`).

    All of ``flexsn_trace``, ``flexsn_codegen`` (subpackages too: the op
    lowerings live in ``flexsn_codegen.lowering``) and ``flexsn_runtime``. The
    runtime's part is all of it, not only the modules that make and store
    builds: a handle's value comes from this key, and Inductor's on-disk caches
    keep compiled graphs by their text, handles included, so the ops' contracts
    (what their fakes return, the autograd formula traced into a backward
    graph: ``ops``, ``op_autograd``, ``statics``, ``layout``) must change the
    handle when they change, or a graph compiled by the former code is served
    (when ``flexsn::backward`` began to return a run's statics' gradients as
    one tensor, a warm cache's graphs asserted the former shapes). A version
    number would not do: an edited checkout keeps its version.
    """
    import flexsn_codegen
    import flexsn_trace

    paths: list[Path] = []
    for mod in (flexsn_trace, flexsn_codegen, sys.modules[__package__ or "flexsn_runtime"]):
        root = Path(mod.__file__ or "").parent
        paths += sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix())
    return paths


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
        elif _is_graph_module(x):
            self.graph_module(x, depth)
        elif isinstance(x, torch.nn.Module):
            described = getattr(type(x), FINGERPRINT_HOOK, None)
            if described is None:
                raise _Unhashable("module instance (parameters may change)")
            self.put("described module")
            self.cls(type(x), depth + 1)
            self.obj(described(x), depth + 1)
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

    def graph_module(self, gm: Any, depth: int) -> None:
        """An FX ``GraphModule`` (a hop's body, a fused step): its code, and what that code reaches.

        The code is generated from the graph, so it is the same text in every
        process; the modules it calls, the attributes it reads and the user
        functions it calls are hashed as any core's are (a large or trainable
        tensor attribute makes the key ``None``). So is every argument of a
        node that is not another node: the code names an object it cannot
        write as a literal (a tensor, a device) by a global, not by its value.
        """
        self.put("graph-module", gm.code)
        self.cls(type(gm), depth + 1)  # torch's own class adds its name; a user subclass, its methods
        for node in gm.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                self.put(node.op, node.target)
                self.obj(functools.reduce(getattr, str(node.target).split("."), gm), depth + 1)
            elif node.op == "call_function" and not _is_library(_module_of(node.target)):
                self.obj(node.target, depth + 1)
            for leaf in _pytree.tree_leaves((node.args, node.kwargs)):
                if isinstance(leaf, _BY_REPR):
                    self.put(type(leaf).__name__, repr(leaf))
                elif not isinstance(leaf, torch.fx.Node):
                    self.obj(leaf, depth + 1)

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


#: a module class's method naming what its instances compute with, for :func:`core_fingerprint` (an
#: ``nn.Module`` instance is otherwise not hashed: parameters may change); ``flexsn_hop``'s wrapper of a
#: fused step's plain function returns that function
FINGERPRINT_HOOK = "__flexsn_fingerprint__"


def _is_graph_module(x: Any) -> bool:
    fx = sys.modules.get("torch.fx")  # a GraphModule exists only once torch.fx is imported
    return fx is not None and isinstance(x, fx.GraphModule)


def _slots(c: type) -> list[str]:
    names: list[str] = []
    for k in c.__mro__:
        slots = vars(k).get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return [n for n in names if n not in ("__dict__", "__weakref__")]


def _module_of(fn: Any) -> str | None:
    """The module defining callable ``fn``; a method descriptor's (``torch.Tensor.to``) is its class's."""
    return getattr(fn, "__module__", None) or getattr(getattr(fn, "__objclass__", None), "__module__", None)


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
