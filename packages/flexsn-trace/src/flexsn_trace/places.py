"""Where a core reads values from outside its arguments: the places :func:`find_captures` and :func:`find_constants` search.

A place starts at a *root* the core's code names directly: a closure cell,
a global named in its code, a default argument value, an attribute of the
object it is bound to (its own, or its class body's: :func:`class_attributes`),
an argument or keyword a ``functools.partial`` binds. From a root it may go on through containers, as ``torch.compile``'s
guards follow a frame's sources (``P["thr"]``, ``cfg.neuron.thr``,
``params[0]``): items of lists, tuples and dicts (up to
:data:`MAX_ITEMS` entries), attributes of namespaces, of instances of user
classes, of user modules (``import cfg; cfg.THRESH``) and of user classes
(``K.thr``), and the arguments and keywords a ``functools.partial`` held
there binds (a tensor there is lifted through a new partial binding the substituted value), at most :data:`MAX_DEPTH` steps deep through any item, and
:data:`MAX_NAMED_DEPTH` steps further along named ones (dict keys the code
names, short sequences). Attributes are followed
only where the code can name them (an attribute it loads, or a string
constant for ``getattr``), so a large object costs nothing it does not read.

A place is read again through its root (:func:`reader`: every call sees a
rebinding or an in-place change); a tensor in it can be *lifted* when
:func:`replaced` can rebuild each container on its path with the tensor
replaced (:meth:`flexsn_trace.Captures.bind`): a class is stood in for by a
subclass holding the new value (not a class whose metaclass or
``__init_subclass__`` runs code); an ``nn.Module``'s tensors are lifted as its
parameters and buffers instead. An instance of a class with ``__slots__`` and no
``__dict__`` is searched through its set slots (:func:`flexsn_trace.kinds.own_attributes`); a copy of it
reads a new slot value through the slot, and a new class-body value through a
subclass stand-in it is re-classed to (:func:`flexsn_trace.kinds.shadowable`).
"""

from __future__ import annotations

import copy
import dis
import functools
import operator
import types
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

from torch import Tensor, nn

from .kinds import (
    _builtin_or_torch, _library, _opaque_module, _subclassable, _user_function, _user_instance, _user_module, MODULE_STATE,
    is_number, own_attributes, slot_names, stand_in,
)

__all__ = [
    "HELPER_DEPTH", "MAX_DEPTH", "MAX_HELPERS", "MAX_ITEMS", "MAX_NAMED_DEPTH", "MAX_NAMED_ITEMS", "Root", "class_attributes", "code_names", "core_function", "default_arguments",
    "describe", "follow", "held_names", "helpers", "names_of", "nested", "read_default", "reader", "replaced", "roots", "WATCHED",
]

#: container steps a place may take below its root through any item of a list, tuple or dict
MAX_DEPTH = 2
#: steps it may take below that along named steps only (``CFG["a"]["b"]["th"]``): dict keys and attributes the
#: code names, items of sequences of at most :data:`MAX_NAMED_ITEMS`; a number deeper still is baked in
#: unwatched, which :func:`nested`'s ``cut`` reports
MAX_NAMED_DEPTH = 6
MAX_NAMED_ITEMS = 8
#: lists, tuples and dicts with more entries are not searched (a dataset is no parameter)
MAX_ITEMS = 64
#: one step below a value: ``("item", key)`` (``value[key]``) or ``("attr", name)`` (``getattr(value, name)``)
Step = tuple[str, Any]

class Root(NamedTuple):
    """A value the core's code names directly, where :func:`nested` starts.

    Attributes:
        name: for messages (``"closure w"``, ``"global cfg"``, ``"self.tau"``, ``"partial keyword thr"``).
        kind: ``"cell"``, ``"global"``, ``"default"``, ``"kwdefault"``, ``"attr"`` (of the
            core's object), ``"parg"`` or ``"pkw"`` (a ``functools.partial``'s argument or keyword).
        key: the closure cell's index, the global's name, the index in ``__defaults__``, the
            keyword-only parameter's name, the attribute's name, the partial's argument index or keyword.
        read: returns the value there now (raises ``AttributeError``/``KeyError``/``IndexError``/
            ``TypeError``/``ValueError`` once it is gone).
        value: the value when found.
        in_class: an ``"attr"`` the object reads from its class (``th = 1.0`` in the class body, read
            as ``self.th``), which some ``torch.compile`` versions do not guard.
    """

    name: str
    kind: str
    key: Any
    read: Callable[[], Any]
    value: Any
    in_class: bool = False


def code_names(*codes: types.CodeType) -> frozenset[str]:
    """Attribute names ``codes`` (and code nested in them) load, and their string constants (``getattr(o, "thr")``)."""
    names: set[str] = set()
    stack = list(codes)
    while stack:
        co = stack.pop()
        names.update(i.argval for i in dis.get_instructions(co) if i.opname in ("LOAD_ATTR", "LOAD_METHOD"))
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                stack.append(c)
            elif isinstance(c, str):
                names.add(c)
    return frozenset(names)


def names_of(func: types.FunctionType, owner: Any, reached: Sequence[types.FunctionType] = ()) -> frozenset[str]:
    """The attribute names a search below ``func``'s roots follows: those ``func``, any method of ``owner``'s class
    and its user base classes, or a helper in ``reached`` (:func:`helpers`: ``HOLDER.fire`` reading
    ``self.gain``, found below the core's ``HOLDER``) can name (:func:`code_names`)."""
    codes = [func.__code__, *(h.__code__ for h in reached)]
    if owner is not None:  # our own neuron classes' methods too: they read the object's numbers
        codes += [fn.__code__ for fn in _class_functions(type(owner), users_only=False)]
    return code_names(*codes)


def held_names(found: Iterable[Root]) -> frozenset[str]:
    """The strings ``found``'s roots hold: names a core may compute a key or an attribute from (``KEY = "thr"``
    read as ``CFG["a"]["b"][KEY]``, ``getattr(cfg, NAME)``). The search follows them below :data:`MAX_DEPTH` as it
    follows the names the code spells (:func:`code_names` sees only literals); the roots themselves are watched
    (:func:`flexsn_trace.kinds.is_flag`), so a new key traces again and is followed then."""
    return frozenset([r.value for r in found if type(r.value) is str])


def _steps(value: Any, names: frozenset[str], named_only: bool = False) -> list[tuple[Step, Any, bool]] | None:
    """``(step, child, liftable)`` for what the search follows below ``value``; ``None`` for a leaf.

    ``named_only``: below :data:`MAX_DEPTH`, a dict's items only under string keys in ``names``, and a
    sequence's only when it holds at most :data:`MAX_NAMED_ITEMS`.
    """
    if isinstance(value, (list, tuple)):
        most = MAX_NAMED_ITEMS if named_only else MAX_ITEMS
        return [(("item", i), v, True) for i, v in enumerate(value)] if len(value) <= most else []
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            return []
        # below MAX_DEPTH only under the keys the code names: a dict there may hold a training loop's counters
        return [(("item", k), v, True) for k, v in value.items() if _plain_key(k) and (not named_only or k in names)]
    if isinstance(value, functools.partial):  # a helper bound with its values: rebuilt as a new partial (replaced)
        # its function too, read again (watched by identity) but never rebuilt: a new partial keeps it
        return [(("attr", "func"), value.func, False), (("attr", "args"), value.args, True), (("attr", "keywords"), value.keywords, True)]
    if isinstance(value, types.ModuleType):
        if not _user_module(value):
            return []
        return [(("attr", n), v, True) for n, v in vars(value).items() if n in names]
    if isinstance(value, type):
        if _library(value.__module__):
            return []
        out = []
        liftable = _subclassable(value)
        for n in sorted(names):
            for klass in value.__mro__:
                if n in vars(klass) and not _library(klass.__module__):
                    out.append((("attr", n), getattr(value, n), liftable))
                    break
        return out
    if isinstance(value, nn.Module) or isinstance(value, types.SimpleNamespace) or _user_instance(value):
        # a module's own tensors are lifted as its parameters, buffers and plain tensors (functional_call swaps
        # them); what its plain attributes hold (self.sub.cfg["w"]) through a copy of it, as any object's
        module = isinstance(value, nn.Module)
        every_number = module and _opaque_module(type(value))
        return [
            (("attr", n), v, not (module and isinstance(v, Tensor))) for n, v in own_attributes(value).items()
            if (n in names or (every_number and is_number(v) and n not in MODULE_STATE))
            and not n.startswith("__")
        ]
    watched = getattr(value, WATCHED, None)
    if isinstance(watched, tuple):  # a library object's own numbers (a surrogate's alpha): read again, never rebuilt
        return [(("attr", n), getattr(value, n), False) for n in watched if isinstance(n, str)]
    return None


def _plain_key(key: Any) -> bool:
    """Whether a dict key is a value the search may read the item under again (``P[("a", 1)]``): a ``str``, ``int``,
    ``float``, ``bool``, ``bytes`` or ``None``, or a tuple of them; not an object whose ``==`` or hash runs code."""
    if type(key) in (str, int, float, bool, bytes, type(None)):
        return True
    return type(key) is tuple and all(_plain_key(k) for k in key)


#: an attribute a library object may define (a tuple of attribute names) to have the place search read those
#: attributes below it whatever names the core's code uses: ``flexsn_nn.surrogate``'s functions name their
#: parameters, so a surrogate replaced by one with another ``alpha`` traces the kernels again
WATCHED = "__flexsn_watched__"


def nested(
    value: Any, names: frozenset[str], depth: int = MAX_DEPTH, cut: list[tuple[Step, ...]] | None = None,
) -> Iterator[tuple[tuple[Step, ...], Any, bool]]:
    """``(path, leaf, liftable)`` for each value reachable from ``value`` through containers (``value`` excluded).

    Leaves are what the search does not go into (tensors, numbers, ``nn.Module``\\ s,
    functions); containers on the way are yielded too (a module in a list is one).
    ``cut``: receives the path of each container the search's depth stops at with more below it.
    """
    seen = {id(value)}
    deepest = depth + MAX_NAMED_DEPTH

    def walk(v: Any, path: tuple[Step, ...], liftable: bool) -> Iterator[tuple[tuple[Step, ...], Any, bool]]:
        if len(path) >= deepest:
            if cut is not None and _steps(v, names, named_only=True):
                cut.append(path)
            return
        steps = _steps(v, names, named_only=len(path) >= depth)
        for step, child, ok in steps or ():
            here = (*path, step)
            yield here, child, liftable and ok
            if id(child) not in seen:  # each container searched once (a cycle, a shared config)
                seen.add(id(child))
                yield from walk(child, here, liftable and ok)

    yield from walk(value, (), True)


def follow(value: Any, path: tuple[Step, ...]) -> Any:
    """The value ``path`` reaches from ``value``."""
    for kind, key in path:
        value = value[key] if kind == "item" else getattr(value, key)
    return value


def reader(read_root: Callable[[], Any], path: tuple[Step, ...]) -> Callable[[], Any]:
    """A ``read`` for the place ``path`` below the root ``read_root`` reads."""
    if not path:
        return read_root
    return functools.partial(_read_path, read_root, path)


def _read_path(read_root: Callable[[], Any], path: tuple[Step, ...]) -> Any:
    return follow(read_root(), path)


def describe(path: tuple[Step, ...]) -> str:
    """``path`` as Python would write it after the root's name (``"['thr']"``, ``".neuron.thr"``)."""
    return "".join(f"[{key!r}]" if kind == "item" else f".{key}" for kind, key in path)


def replaced(value: Any, path: tuple[Step, ...], new: Any) -> Any:
    """A copy of ``value`` in which ``path`` reaches ``new`` (each container on the path copied; ``value`` unchanged).

    A class is stood in for by a subclass holding the new attribute (the class itself is not
    changed), so code that names the class reads the new value.

    Raises:
        TypeError: a step through a class whose metaclass or ``__init_subclass__`` would run
            code (:func:`nested` marks such a path not liftable).
    """
    if not path:
        return new
    (kind, key), rest = path[0], path[1:]
    child = replaced(follow(value, path[:1]), rest, new)
    if isinstance(value, tuple):
        items = list(value)
        items[key] = child
        make = getattr(type(value), "_make", type(value))  # a namedtuple's fields are its positional arguments
        return make(items)
    if isinstance(value, types.ModuleType):
        out = types.ModuleType(value.__name__)
        vars(out).update(vars(value))
        vars(out)[key] = child
        return out
    if isinstance(value, type):  # a subclass whose body holds the new value: K.thr reads it, the rest is K's
        return stand_in(value, {key: child})
    if isinstance(value, functools.partial):  # its args and keywords are read-only: a new partial binding them
        args, keywords = (child, value.keywords) if key == "args" else (value.args, child)
        return functools.partial(value.func, *args, **keywords)
    out = copy.copy(value)
    if kind == "item":
        out[key] = child
    elif hasattr(out, "__dict__"):
        vars(out)[key] = child
    else:  # a __slots__ instance: through the slot's descriptor
        object.__setattr__(out, key, child)
    return out


#: calls deep that :func:`helpers` follows, and how many functions it returns at most
HELPER_DEPTH = 6
MAX_HELPERS = 64


def _class_functions(klass: type, users_only: bool = True) -> list[types.FunctionType]:
    """The functions ``klass`` and its bases define (methods, static and class methods, property getters), along its MRO.

    ``users_only``: only user classes' functions (:func:`_user_function`); else
    every class's but ``builtins``' and torch's.
    """
    out: list[types.FunctionType] = []
    for k in klass.__mro__:
        if _library(k.__module__) if users_only else _builtin_or_torch(k):
            continue
        for value in vars(k).values():
            # staticmethod / classmethod: __func__; a property: its getter (cfg.th reading self._th)
            fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if isinstance(fn, types.FunctionType) and (_user_function(fn) or not users_only):
                out.append(fn)
    return out


def _functions_in(value: Any, names: frozenset[str]) -> list[types.FunctionType]:
    """The user functions a call may reach through ``value``: ``value`` itself when it is a user function, a
    bound method's function, the functions of a user class or of a user object's class; the same for what
    ``value`` holds under ``names`` (:func:`nested`: ``cfg.spike_fn``, ``P["fire"]``); a ``functools.partial``'s function."""
    out: list[types.FunctionType] = []
    for v in [value, *(leaf for _, leaf, _ in nested(value, names))]:
        while isinstance(v, functools.partial):  # FP = partial(fire, gain=2.0): fire is what runs
            v = v.func
        if isinstance(v, types.MethodType):
            fn = v.__func__
            out += [fn] if isinstance(fn, types.FunctionType) and _user_function(fn) else []
            v = v.__self__
        if _user_function(v):
            out.append(v)
        elif isinstance(v, type):
            out += [] if _library(v.__module__) else _class_functions(v)
        elif _user_instance(v):  # a module object is not one: its class is builtins'
            out += _class_functions(type(v))
    return out


def helpers(func: types.FunctionType, owner: Any, beyond: list[str] | None = None) -> list[types.FunctionType]:
    """User functions a core may call, other than ``func`` itself: each reads its own globals, closures and defaults.

    The methods of ``owner``'s user classes (``self.charge(x, v)``), and the user
    functions reached through the globals, closure cells and defaults of ``func``
    and of each helper found (:func:`_functions_in`: a function, the functions of
    a user class such as an ``autograd.Function``'s ``backward``, the methods of a
    user object such as ``HOLDER.fire``, and what their containers hold under the
    names the code loads), up to :data:`HELPER_DEPTH` calls deep and
    :data:`MAX_HELPERS` functions (library code is not followed).

    ``beyond``: where given, gets ``"<function> (called through <caller>, past the calls searched)"`` for each
    user function reached past those limits, whose reads are not searched (the caller tells them, as it tells
    :mod:`flexsn_trace.unfollowed`'s reads).
    """
    found: list[types.FunctionType] = []
    seen = {id(func)}
    frontier = [func]
    if owner is not None and not isinstance(owner, type):
        frontier += _class_functions(type(owner))
    if isinstance(owner, nn.Module):  # the forward of a user submodule it calls (self.fire(h))
        for sub in owner.modules():
            if sub is not owner and _user_instance(sub):
                frontier += _class_functions(type(sub))
    caller_of: dict[int, types.FunctionType] = {}  # id of a function reached -> the first function calling it
    for level in range(HELPER_DEPTH + 1):
        for fn in frontier:
            if id(fn) not in seen:
                seen.add(id(fn))
                found.append(fn)
        if level == HELPER_DEPTH or len(found) >= MAX_HELPERS:
            break
        reached = []
        for caller in frontier:
            for fn in _called_by(caller):
                caller_of.setdefault(id(fn), caller)
                reached.append(fn)
        frontier = list({id(fn): fn for fn in reached if id(fn) not in seen}.values())  # each once, in order met
        if not frontier:
            return found
    kept = found[:MAX_HELPERS]
    if beyond is not None:  # those past the count, and what the last level kept calls: not searched
        cut = {id(k) for k in kept}
        past = {id(fn): (fn, caller_of[id(fn)]) for fn in found[MAX_HELPERS:] if id(fn) in caller_of}
        for caller in frontier:
            if id(caller) in cut:
                past.update((id(fn), (fn, caller)) for fn in _called_by(caller) if id(fn) not in seen and id(fn) not in past)
        beyond += [f"{fn.__qualname__} (called through {caller.__qualname__}, past the calls searched)" for fn, caller in past.values()]
    return kept


def _called_by(fn: types.FunctionType) -> list[types.FunctionType]:
    """The user functions ``fn`` may call: those its globals, defaults and closure cells hold (:func:`_functions_in`)."""
    values: list[Any] = [fn.__globals__[n] for n in fn.__code__.co_names if n in fn.__globals__]
    values += [*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()]
    for cell in fn.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    names = code_names(fn.__code__)
    return [g for value in values for g in _functions_in(value, names)]


def core_function(core: Callable[..., Any]) -> tuple[types.FunctionType | None, Any]:
    """The Python function a core runs and the object it is bound to: ``(function, owner)``.

    A bound method gives its function and ``self``; an ``nn.Module`` its class's
    ``forward`` and itself; another callable object its class's ``__call__`` and
    itself; a plain function itself and ``None``; a ``functools.partial`` what its
    ``func`` gives. ``(None, None)`` for a callable of another kind (a builtin).
    """
    if isinstance(core, functools.partial):
        return core_function(core.func)
    func: Any = core
    owner: Any = None
    if isinstance(core, types.MethodType):
        func, owner = core.__func__, core.__self__
    elif isinstance(core, nn.Module):
        func, owner = type(core).forward, core
    elif not isinstance(core, types.FunctionType) and (hasattr(core, "__dict__") or slot_names(type(core))):
        func, owner = getattr(type(core), "__call__", None), core
    return (func, owner) if isinstance(func, types.FunctionType) else (None, None)


def default_arguments(func: types.FunctionType) -> list[tuple[str, Any, str, object]]:
    """``func``'s default argument values: ``(kind, key, name, value)`` per parameter that has one.

    ``kind`` is ``"default"`` (``key``: the index in ``__defaults__``) or
    ``"kwdefault"`` (a keyword-only parameter; ``key``: its name).
    """
    code = func.__code__
    defaults = func.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(defaults) : code.co_argcount]
    out: list[tuple[str, Any, str, object]] = [("default", i, n, v) for i, (n, v) in enumerate(zip(names, defaults))]
    out += [("kwdefault", n, n, v) for n, v in (func.__kwdefaults__ or {}).items()]
    return out


def read_default(func: types.FunctionType, kind: str, key: Any) -> Any:
    """The current value of one of ``func``'s default arguments (see :func:`default_arguments`).

    Raises:
        IndexError / KeyError / TypeError: the default was removed since.
    """
    if kind == "default":
        return func.__defaults__[key]  # type: ignore[index]
    return func.__kwdefaults__[key]  # type: ignore[index]


def class_attributes(owner: Any, names: frozenset[str]) -> list[tuple[str, Any]]:
    """``(name, value)`` for what ``owner`` reads from its class under ``names``, in name order.

    An attribute of a class body (``th = 1.0``, ``th = torch.tensor(1.0)``) read as ``self.th``, where
    ``owner``'s own ``__dict__`` does not shadow it. Descriptors (functions, properties, static and
    class methods) are code, not values; the classes of ``builtins`` and of torch are not searched.
    """
    own = own_attributes(owner)
    out: list[tuple[str, Any]] = []
    for name in sorted(names):
        if name in own or name.startswith("__"):
            continue
        for klass in type(owner).__mro__:
            if name in vars(klass):
                value = vars(klass)[name]
                if not _builtin_or_torch(klass) and not hasattr(type(value), "__get__"):
                    out.append((name, value))
                break
    return out


def roots(core: Callable[..., Any], owner_names: frozenset[str] | None, class_names: frozenset[str] = frozenset()) -> list[Root]:
    """The values ``core``'s code names directly (see the module docstring), in argument-lifting order.

    ``owner_names``: the attributes of the core's object to take (``None``: all of them;
    an ``nn.Module`` object's parameters and buffers are not attributes here, its
    submodules are: ``self.fire``).
    ``class_names``: the attributes the object reads from its class under these names
    (:func:`class_attributes`) are taken too, as ``"attr"`` roots marked ``in_class``.
    Globals are those the function's code names (``co_names``).
    """
    func, owner = core_function(core)
    if func is None:
        return []
    out: list[Root] = []
    free = func.__code__.co_freevars
    for i, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        out.append(Root(f"closure {free[i]}", "cell", i, functools.partial(getattr, cell, "cell_contents"), value))
    g = func.__globals__
    for name in dict.fromkeys(func.__code__.co_names):
        if name in g:
            # operator.getitem, not g.__getitem__: Dynamo traces the one, not the other (torch 2.11), and guards on it
            out.append(Root(f"global {name}", "global", name, functools.partial(operator.getitem, g, name), g[name]))
    for kind, key, name, value in default_arguments(func):
        out.append(Root(f"default {name}", kind, key, functools.partial(read_default, func, kind, key), value))
    if owner is not None:
        own = own_attributes(owner)
        if isinstance(owner, nn.Module):  # its submodules are attributes to the code: self.act(x), self.fire(h)
            own.update(owner._modules)
        for name, value in sorted(own.items()):
            if owner_names is None or name in owner_names:
                out.append(Root(f"self.{name}", "attr", name, functools.partial(getattr, owner, name), value))
        for name, value in class_attributes(owner, class_names):
            out.append(Root(f"self.{name}", "attr", name, functools.partial(getattr, owner, name), value, True))
    if isinstance(core, functools.partial):
        for i, value in enumerate(core.args):
            out.append(Root(f"partial argument {i}", "parg", i, functools.partial(operator.getitem, core.args, i), value))
        for name, value in core.keywords.items():
            out.append(Root(f"partial keyword {name}", "pkw", name, functools.partial(operator.getitem, core.keywords, name), value))
    return out
