"""What kind of value the place search meets: the user's code or a library's, and what an object holds of its own.

:mod:`flexsn_trace.places` follows the user's modules, classes and objects and leaves libraries' alone
(:func:`_library`, :func:`_user_code`); it reads an object's own attributes through its ``__dict__`` or its
set ``__slots__`` (:func:`own_attributes`), and :mod:`flexsn_trace.capture` rebuilds a copy reading a new
value only where that cannot run the user's code (:func:`shadowable`).
"""

from __future__ import annotations

import argparse
import array
import collections
import enum
import functools
import inspect
import numbers
import operator
import sys
import types
from typing import Any

from torch import nn

__all__ = [
    "CACHED", "GETTERS", "MAPPINGS", "MODULE_STATE", "NAMESPACES", "NUMBER_BUFFERS", "SEQUENCES", "getter_names", "is_array", "is_code", "is_constant", "is_flag", "is_number", "own_attributes",
    "served_dynamically", "shadowable", "slot_names", "stand_in", "unsearched_attribute", "unsearched_object",
]

#: the standard library's attribute holders a configuration lives in (``parse_args()``'s ``argparse.Namespace``,
#: ``types.SimpleNamespace``): searched as a user object's attributes are, though their classes are a library's
NAMESPACES = (types.SimpleNamespace, argparse.Namespace)
#: the standard library's mappings searched as a dict's items are: ``dict`` (and its subclasses: ``OrderedDict``,
#: ``defaultdict``), ``ChainMap``, ``UserDict``, and ``MappingProxyType`` (read-only: a tensor in it is not lifted).
#: Other mappings may run code on a read (a lazy config), so they are not searched.
MAPPINGS = (dict, collections.ChainMap, collections.UserDict, types.MappingProxyType)
#: the standard library's sequences searched item by item as a list is, their lengths watched: ``list``, ``tuple``,
#: ``collections.deque`` (a history: ``HIST[-1]`` read as a threshold, ``HIST.append(v)``) and ``UserList``
SEQUENCES = (list, tuple, collections.deque, collections.UserList)
#: the standard library's buffers of numbers (``array.array("d", [1.0])``, ``bytearray``): watched by their contents
#: as a NumPy array is (:func:`flexsn_trace.constants.by_contents`)
NUMBER_BUFFERS = (array.array, bytearray)
#: the standard library's callables that hold the names they read (``operator.attrgetter("a.thr")``): code the core
#: calls (:func:`is_code`), whose names the search follows as if the core's code spelled them (:func:`getter_names`)
GETTERS = (operator.attrgetter, operator.itemgetter, operator.methodcaller)
#: what ``functools.cache`` and ``functools.lru_cache`` make of a function (``@functools.cache def decay(): ...``):
#: code the core calls (:func:`is_code`); the search follows the function it wraps (``__wrapped__``)
CACHED = type(functools.lru_cache(maxsize=None)(len))

#: packages whose modules and classes are not searched: their state is not a neuron's parameter
_LIBRARIES = frozenset({"torch", "triton", "numpy", "flexsn_trace", "flexsn_codegen", "flexsn_runtime", "flexsn_hop", "flexsn_nn"})


def is_number(value: Any) -> bool:
    """Whether ``value`` is a number a core may read as a constant of its kernels: a Python ``bool`` / ``int`` /
    ``float`` (or a subclass), or another immutable scalar registered as a :class:`numbers.Number` (NumPy's
    ``np.float64`` — what ``np.exp(-1 / tau)`` returns —, ``np.float32``, ``np.int64``; ``Fraction``) or NumPy's
    ``np.bool_``. Tensors and arrays are not numbers here (tensors are lifted, not watched)."""
    if type(value) in (bool, int, float):  # the common case first: this runs over every place searched
        return True
    if isinstance(value, numbers.Number):
        return True
    return type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")


def is_flag(value: Any) -> bool:
    """Whether ``value`` is a scalar other than a number that a core may branch on while it is traced: a ``str``,
    ``bytes``, ``None`` or an :class:`enum.Enum` member (``if MODE == "soft"``, ``if V_RESET is None``,
    ``if kind is Reset.HARD``). The trace keeps only the branch taken, so such a value is as much a constant of the
    kernels as a number is; ``torch.compile`` guards these reads too (Dynamo's constant guards)."""
    return value is None or isinstance(value, (str, bytes, enum.Enum))


def is_constant(value: Any) -> bool:
    """Whether ``value`` is what a trace bakes into the kernels when a core reads it: a number (:func:`is_number`)
    or a flag (:func:`is_flag`). :func:`flexsn_trace.find_constants` watches such places for changes."""
    return is_number(value) or is_flag(value)


def is_code(value: Any) -> bool:
    """Whether ``value`` is code a core may call, which its trace inlines: a function (``FIRE = fire_hard``, a
    ``lambda`` in a config), a builtin (``ACT = torch.sigmoid``), a bound method, a class, a ``functools.cache``
    wrapper (:data:`CACHED`) or a getter (:data:`GETTERS`). A place holding one
    is watched by identity (a bound method: its function and its object, as ``==`` compares them), so that
    ``ACT = torch.tanh`` traces the kernels again as a changed number does."""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, CACHED, *GETTERS))


def getter_names(value: Any) -> frozenset[str]:
    """The strings a :data:`GETTERS` object reads by (``attrgetter("a.thr")``: ``a.thr``, ``a`` and ``thr``;
    ``itemgetter("thr")``; ``methodcaller("get", "thr")``: ``get`` and ``thr``); empty for anything else.

    They are read from the arguments the object pickles with (``object.__reduce__``, the one public way to see
    them; a ``methodcaller`` with keywords reduces to a ``functools.partial`` holding its name).
    """
    if not isinstance(value, GETTERS):
        return frozenset()
    reduced = value.__reduce__()
    if not isinstance(reduced, tuple):
        return frozenset()
    make, args = reduced[0], tuple(reduced[1])
    if hasattr(make, "args"):  # methodcaller("f", k=1) -> (partial(methodcaller, "f", k=1), ())
        args = (*make.args, *args)
    out: set[str] = set()
    for a in args:
        if isinstance(a, str):
            out.add(a)
            out.update(a.split("."))
    return frozenset(out)


def is_array(value: Any) -> bool:
    """Whether ``value`` is a NumPy array (``np.ndarray`` or a subclass): a mutable container of numbers that a core
    may read into its kernels as constants (``TH[0]``, ``float(TH)``, ``torch.from_numpy(TH)``), watched by its
    contents (:class:`flexsn_trace.constants.ArrayContents`). NumPy is not imported here: an array exists only
    once it is."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def _library(module: str | None) -> bool:
    root = (module or "").split(".")[0]
    return root in _LIBRARIES or root in sys.stdlib_module_names


def _user_code(module: str | None, path: str | None) -> bool:
    """Whether code of ``module``, from file ``path``, is the user's: neither ours, torch's, the standard library's,
    nor an installed package's."""
    path = path or ""
    return not _library(module) and "site-packages" not in path and "dist-packages" not in path


def _user_module(m: types.ModuleType) -> bool:
    return _user_code(m.__name__, getattr(m, "__file__", None))


#: what every ``nn.Module`` keeps in its ``__dict__`` (``training``, the parameter, buffer, module and hook dicts)
MODULE_STATE = frozenset(vars(nn.Module()))


def _opaque_module(klass: type) -> bool:
    """Whether ``klass`` is a module class of a library whose code is not searched (torch's ``nn.LeakyReLU``, an
    installed package's surrogate): every number it holds is taken as read (``negative_slope``, ``alpha``).
    Not ours: FlexSN's surrogates are immutable, and its neurons' numbers are named by their cores' code."""
    root = klass.__module__.split(".")[0]
    return not root.startswith("flexsn_") and not _user_code(klass.__module__, getattr(sys.modules.get(klass.__module__), "__file__", None))


def _subclassable(klass: type) -> bool:
    """Whether :func:`flexsn_trace.places.replaced` may stand a subclass in for ``klass``: a plain ``type`` no base of which runs
    code when subclassed (``__init_subclass__``: a registry would record every trace)."""
    return type(klass) is type and not any("__init_subclass__" in vars(k) for k in klass.__mro__[:-1])


def stand_in(klass: type, body: dict[str, Any]) -> type:
    """A subclass of ``klass`` named as it is, whose class body adds ``body``: what reads ``K.thr`` (or a copy
    re-classed to it, ``self.thr``) reads the new value there, the rest is ``klass``'s.

    Raises:
        TypeError: ``klass`` runs code when subclassed (:func:`_subclassable`).
    """
    if not _subclassable(klass):
        raise TypeError(f"cannot stand a subclass in for class {klass.__qualname__} (subclassing it runs code)")
    named = {"__module__": klass.__module__, "__qualname__": klass.__qualname__, "__doc__": klass.__doc__}
    return type(klass.__name__, (klass,), {**named, **body})


def _user_instance(value: Any) -> bool:
    cls = type(value)
    return (hasattr(value, "__dict__") or bool(slot_names(cls))) and not isinstance(
        value, (types.FunctionType, types.MethodType)
    ) and not _library(cls.__module__)


def slot_names(klass: type) -> tuple[str, ...]:
    """The attribute names ``klass`` and its bases declare in ``__slots__`` (``__dict__`` and ``__weakref__`` left out)."""
    out: dict[str, None] = {}
    for k in klass.__mro__:
        declared = vars(k).get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__"):
                out[name] = None
    return tuple(out)


def own_attributes(value: Any) -> dict[str, Any]:
    """``value``'s own attributes: its ``__dict__`` and the ``__slots__`` it has set (a class's ``__slots__`` instance
    keeps no ``__dict__``; ``vars`` raises ``TypeError`` on it)."""
    out = dict(getattr(value, "__dict__", {}))
    for name in slot_names(type(value)):
        try:
            out.setdefault(name, getattr(value, name))
        except AttributeError:  # a slot never set
            continue
    return out


def shadowable(owner: Any) -> bool:
    """Whether a copy of ``owner`` can be made to read a new value under a name its class body (or a method) holds:
    in its own ``__dict__``, or, for a ``__slots__`` instance, through a subclass stand-in (:func:`_subclassable`)."""
    return hasattr(owner, "__dict__") or _subclassable(type(owner))


def _builtin_or_torch(klass: type) -> bool:
    """A class of ``builtins`` or of torch: what a search of an object's class (its methods, its class body)
    leaves out even where FlexSN's own classes count (``nn.Module``'s ``dump_patches``, ``object``'s dunders)."""
    return klass.__module__.split(".")[0] in {"builtins", "torch"}


def _user_function(value: Any) -> bool:
    return isinstance(value, types.FunctionType) and _user_code(value.__module__, value.__code__.co_filename)


def served_dynamically(value: Any, name: str) -> bool:
    """Whether ``value.name`` is computed by an installed package's ``__getattr__``: an OmegaConf ``DictConfig``'s
    keys (Hydra's configurations), an ``ml_collections.ConfigDict``'s fields.

    ``True`` for an attribute neither the instance nor its class holds (``inspect.getattr_static`` does not find
    it) on an object of an installed package's class: neither the user's (whose ``__getattr__`` the search reads),
    nor ours, torch's, NumPy's or the standard library's, nor a module, class, ``nn.Module`` (whose ``__getattr__``
    serves the parameters and submodules the search follows) or dict (``AttrDict``: items under the name). The
    place search cannot follow such a read; :mod:`flexsn_trace.unfollowed` tells it.
    """
    cls = type(value)
    if name.startswith("__") or isinstance(value, (types.ModuleType, type, nn.Module, dict)):
        return False
    if _library(cls.__module__) or _user_code(cls.__module__, getattr(sys.modules.get(cls.__module__), "__file__", None)):
        return False
    try:
        inspect.getattr_static(value, name)
    except AttributeError:
        return True
    except Exception:  # noqa: BLE001 - an object getattr_static cannot look into: nothing to say about it
        return False
    return False


def unsearched_object(value: Any) -> bool:
    """Whether ``value`` is an instance of a standard-library class the place search does not look into: not one of
    the containers, buffers and namespaces it follows (:data:`SEQUENCES`, :data:`MAPPINGS`, :data:`NAMESPACES`,
    :data:`NUMBER_BUFFERS`), nor a module, class, partial or ``nn.Module``, nor a builtin value (a number, a string, a
    set: watched themselves). A ``threading.local``, a ``contextvars.ContextVar``, a ``configparser.ConfigParser``
    and its sections: what a core reads from one is baked into the kernels, unwatched, so
    :mod:`flexsn_trace.unfollowed` tells it."""
    followed = (types.ModuleType, type, nn.Module, functools.partial, *MAPPINGS, *NAMESPACES, *SEQUENCES, *NUMBER_BUFFERS)
    if isinstance(value, followed):
        return False
    root = type(value).__module__.split(".")[0]
    return root not in ("builtins", "typing") and root in sys.stdlib_module_names  # typing: annotations


def unsearched_attribute(value: Any, name: str) -> bool:
    """Whether ``value.name`` is a number or a flag on an object the place search does not look into
    (:func:`unsearched_object`: a ``threading.local`` holding a threshold). ``inspect.getattr_static`` (or, for a
    ``threading.local``, the calling thread's ``__dict__``) finds the attribute without running code."""
    if name.startswith("__") or not unsearched_object(value):
        return False
    try:  # a threading.local keeps its attributes in the calling thread's __dict__, which getattr_static cannot see
        own = vars(value) if hasattr(value, "__dict__") else {}
        return is_constant(own[name] if name in own else inspect.getattr_static(value, name))
    except Exception:  # noqa: BLE001 - absent, or an object getattr_static cannot look into
        return False
