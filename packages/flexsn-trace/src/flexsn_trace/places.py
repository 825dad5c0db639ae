"""Where a core reads values from outside its arguments: the places :func:`find_captures` and :func:`find_constants` search.

A place starts at a *root* the core's code names directly (:mod:`flexsn_trace.roots`: a closure cell,
a global named in its code, a default argument value, an attribute of the
object it is bound to, an argument or keyword a ``functools.partial`` binds). From a root it may go on through
containers, as ``torch.compile``'s guards follow a frame's sources (``P["thr"]``, ``cfg.neuron.thr``,
``params[0]``): items of lists, tuples and the standard library's mappings (:data:`~flexsn_trace.kinds.MAPPINGS`,
up to :data:`MAX_ITEMS` entries; a larger one only under the keys the code names), the methods a user object's class
defines (:func:`methods`), attributes of namespaces (:data:`~flexsn_trace.kinds.NAMESPACES`: ``argparse.Namespace``
from ``parse_args()``), of instances of user
classes, of user modules (``import cfg; cfg.THRESH``) and of user classes
(``K.thr``), and the arguments and keywords a ``functools.partial`` held
there binds (a tensor there is lifted through a new partial binding the substituted value), at most :data:`MAX_DEPTH` steps deep through any item, and
:data:`MAX_NAMED_DEPTH` steps further along named ones (dict keys the code
names, every key where the code unpacks a mapping, ``f(**cfg.kw)``, a partial's keywords, short sequences).
Attributes are followed only where the code can name them (an attribute it loads, a string
constant for ``getattr``, each part of a dotted one for ``operator.attrgetter``, or a name a getter at a root
holds: :func:`held_names`), so a large object costs nothing it does not read; the numbers a library object names
(:data:`WATCHED`: a surrogate's ``alpha``, read by the library's code) are followed on it and on an instance of a
user's subclass of its class.

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
import types
from typing import Any, Callable, Iterable, Iterator, Sequence

from torch import Tensor, nn

from .kinds import (
    _builtin_or_torch, _library, _opaque_module, _subclassable, _user_function, _user_instance, _user_module, CACHED, MAPPINGS,
    MODULE_STATE, NAMESPACES, SEQUENCES, getter_names, is_number, own_attributes, stand_in,
)
from .roots import Root

__all__ = [
    "HELPER_DEPTH", "MAX_DEPTH", "MAX_HELPERS", "MAX_ITEMS", "MAX_NAMED_DEPTH", "MAX_NAMED_ITEMS", "code_names", "describe", "follow",
    "held_names", "helpers", "methods", "names_of", "nested", "reader", "replaced", "WATCHED",
]

#: container steps a place may take below its root through any item of a list, tuple or dict
MAX_DEPTH = 2
#: steps it may take below that along named steps only (``CFG["a"]["b"]["th"]``): dict keys and attributes the
#: code names, items of sequences of at most :data:`MAX_NAMED_ITEMS`; a number deeper still is baked in
#: unwatched, which :func:`nested`'s ``cut`` reports
MAX_NAMED_DEPTH = 6
MAX_NAMED_ITEMS = 8
#: lists, tuples and dicts with more entries are not searched item by item (a dataset is no parameter): a larger
#: dict only under the keys the code names; a larger list or tuple of numbers is watched whole
#: (:func:`flexsn_trace.constants.by_contents`)
MAX_ITEMS = 64
#: one step below a value: ``("item", key)`` (``value[key]``), ``("attr", name)`` (``getattr(value, name)``), or
#: ``("method", (name, of_instance, unbind))``: the function ``value.name(...)`` runs, as the class holds it
#: (:func:`methods`; ``getattr(type(value), name)`` for an instance, a classmethod's ``__func__``)
Step = tuple[str, Any]

#: the name :func:`code_names` adds for code that unpacks a mapping (``f(h, **cfg.kw)``, ``{**d}``): its keys are read
#: without being spelled, so the search follows every key of the dicts it reaches (no identifier is ``**``)
SPREAD = "**"


def code_names(*codes: types.CodeType) -> frozenset[str]:
    """Attribute names ``codes`` (and code nested in them) load, and their string constants (``getattr(o, "thr")``,
    and those in a tuple or set constant: ``for k in ("thr", "tau")``, ``k in {"a", "b"}``); :data:`SPREAD` when
    the code unpacks a mapping."""
    names: set[str] = set()
    stack = list(codes)
    while stack:
        co = stack.pop()
        for i in dis.get_instructions(co):
            if i.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                names.add(i.argval)
            elif i.opname in ("DICT_MERGE", "DICT_UPDATE"):  # f(**d) and {**d} (Python >= 3.9)
                names.add(SPREAD)
        consts = list(co.co_consts)
        while consts:
            c = consts.pop()
            if isinstance(c, types.CodeType):
                stack.append(c)
            elif isinstance(c, str):
                names.add(c)
                names.update(c.split(".") if "." in c else ())  # operator.attrgetter("a.thr")(cfg) reads a, then thr
            elif isinstance(c, (tuple, frozenset)):  # for k in ("thr", "tau"): Python folds the literal into one constant
                consts.extend(c)
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
    (:func:`flexsn_trace.kinds.is_flag`), so a new key traces again and is followed then.

    With them the names a getter reads (:func:`flexsn_trace.kinds.getter_names`: ``GET = attrgetter("a.thr")``
    called as ``GET(CFG)``, or one in a list, tuple or dict at a root), watched by identity as code is."""
    found = list(found)  # callers pass a generator
    out = {part for r in found if type(r.value) is str for part in (r.value, *r.value.split("."))}
    for r in found:
        held = r.value.values() if isinstance(r.value, dict) else r.value if isinstance(r.value, SEQUENCES) else ()
        for v in [r.value, *held] if len(held) <= MAX_ITEMS else [r.value]:
            out |= getter_names(v)
    return frozenset(out)


def _steps(value: Any, names: frozenset[str], named_only: bool = False, submodules: bool = True) -> list[tuple[Step, Any, bool]] | None:
    """``(step, child, liftable)`` for what the search follows below ``value``; ``None`` for a leaf.

    ``named_only``: below :data:`MAX_DEPTH`, a dict's items only under string keys in ``names``, and a
    sequence's only when it holds at most :data:`MAX_NAMED_ITEMS`. ``submodules``: follow an ``nn.Module``'s
    submodules (the capture search, :mod:`flexsn_trace.capture`, takes them through ``named_modules`` instead).
    """
    if isinstance(value, SEQUENCES):
        most = MAX_NAMED_ITEMS if named_only else MAX_ITEMS
        return [(("item", i), v, True) for i, v in enumerate(value)] if len(value) <= most else []
    if isinstance(value, MAPPINGS):
        ok = not isinstance(value, types.MappingProxyType)  # replaced() copies a mapping to set an item
        if len(value) > MAX_ITEMS:  # a table or a large config: only what the code names (THRESHOLDS["lif"])
            return [(("item", k), value[k], ok) for k in sorted(value.keys() & names)]
        # below MAX_DEPTH only under the keys the code names: a dict there may hold a training loop's counters
        every = not named_only or SPREAD in names
        return [(("item", k), v, ok) for k, v in value.items() if _plain_key(k) and (every or k in names)]
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
        out: list[tuple[Step, Any, bool]] = []
        liftable = _subclassable(value)
        for n in sorted(names):
            for klass in value.__mro__:
                if n in vars(klass) and not _library(klass.__module__):
                    if isinstance(vars(klass)[n], classmethod):  # K.cm is a new bound method at every read
                        out.append((("method", (n, False, True)), vars(klass)[n].__func__, False))
                    else:
                        out.append((("attr", n), getattr(value, n), liftable))
                    break
        return out
    if isinstance(value, nn.Module) or isinstance(value, NAMESPACES) or _user_instance(value):
        # a module's own tensors are lifted as its parameters, buffers and plain tensors (functional_call swaps
        # them); what its plain attributes hold (self.sub.cfg["w"]) through a copy of it, as any object's
        module = isinstance(value, nn.Module)
        every_number = module and _opaque_module(type(value))
        own = own_attributes(value)
        listed = listed_names(own)
        out = [
            (("attr", n), v, not (module and isinstance(v, Tensor))) for n, v in own.items()
            if (n in names or n in listed or (every_number and is_number(v) and n not in MODULE_STATE))
            and not n.startswith("__")
        ] + [(("method", key), fn, False) for key, fn in methods(type(value), names | _CALLED, own)]
        if module and submodules:  # its submodules (self.block.fire; every one of a container the code iterates or indexes), whose
            # numbers are read again through them; not rebuilt (their tensors are lifted as the module's, capture.py)
            every = isinstance(value, _CONTAINERS)
            out += [(("attr", n), m, False) for n, m in value._modules.items() if m is not None and (every or n in names)]
        # a user's subclass of a library object naming its own numbers (class MySig(Sigmoid)): its numbers too,
        # read through the library's names (the code that reads them is the library's, whose names the search
        # does not see); asked only of classes that define the name, so no user __getattr__ runs
        if any(WATCHED in vars(k) for k in type(value).__mro__):
            taken = {step for step, _, _ in out}
            out += [item for item in _watched(value) or () if item[0] not in taken]
        return out
    return _watched(value)


def _watched(value: Any) -> list[tuple[Step, Any, bool]] | None:
    """A library object's own numbers (a surrogate's ``alpha``, :data:`WATCHED`): read again, never rebuilt;
    ``None`` when ``value`` names none."""
    watched = getattr(value, WATCHED, None)
    if not isinstance(watched, tuple):
        return None
    return [(("attr", n), getattr(value, n), False) for n in watched if isinstance(n, str)]


def listed_names(own: dict[str, Any]) -> frozenset[str]:
    """The strings an object's own containers of names hold: the items of a list, tuple, set or frozenset of
    strings, the string keys of a dict. They are the attributes it may read by ``getattr(self, k) for k in
    self.names`` (SpikingJelly's surrogate modules keep their parameters' names so, ``_sg_param_names``), which the
    search follows on it as it follows the names the code spells; :func:`flexsn_trace.unfollowed.unfollowed_reads`
    takes such reads as followed, so every such container counts, however long (a name costs a lookup). Not an
    ``nn.Module``'s own bookkeeping (:data:`~flexsn_trace.kinds.MODULE_STATE`: its parameters', buffers' and
    submodules' names, which are not attributes in its ``__dict__``)."""
    out: set[str] = set()
    for n, v in own.items():
        if n in MODULE_STATE:
            continue
        if isinstance(v, dict):
            out.update(k for k in v if type(k) is str)
        elif isinstance(v, (list, tuple, set, frozenset)) and all(type(e) is str for e in v):
            out.update(v)
    return frozenset(out)


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
    submodules: bool = True,
) -> Iterator[tuple[tuple[Step, ...], Any, bool]]:
    """``(path, leaf, liftable)`` for each value reachable from ``value`` through containers (``value`` excluded).

    Leaves are what the search does not go into (tensors, numbers, ``nn.Module``\\ s,
    functions); containers on the way are yielded too (a module in a list is one).
    ``cut``: receives the path of each container the search's depth stops at with more below it.
    ``submodules``: go into an ``nn.Module``'s submodules (:func:`_steps`).
    """
    seen = {id(value)}
    deepest = depth + MAX_NAMED_DEPTH

    def walk(v: Any, path: tuple[Step, ...], liftable: bool, names: frozenset[str]) -> Iterator[tuple[tuple[Step, ...], Any, bool]]:
        if len(path) >= deepest:
            if cut is not None and _steps(v, names, True, submodules):
                cut.append(path)
            return
        steps = _steps(v, names, len(path) >= depth, submodules)
        # a partial's keywords are its function's arguments, named by the partial itself (a helper's parameter
        # names are no attribute names the code loads): followed below it at any depth, as names the code spells
        below = names | frozenset(v.keywords) if isinstance(v, functools.partial) else names
        for step, child, ok in steps or ():
            here = (*path, step)
            yield here, child, liftable and ok
            if id(child) not in seen:  # each container searched once (a cycle, a shared config)
                seen.add(id(child))
                yield from walk(child, here, liftable and ok, below)

    yield from walk(value, (), True, names)


def follow(value: Any, path: tuple[Step, ...]) -> Any:
    """The value ``path`` reaches from ``value``."""
    for kind, key in path:
        if kind == "item":
            value = value[key]
        elif kind == "attr":
            value = getattr(value, key)
        else:  # "method": decided when found, so that traced code reads no type it must test (Dynamo)
            name, of_instance, unbind = key
            value = getattr(type(value) if of_instance else value, name)
            value = value.__func__ if unbind else value
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
    return "".join(f"[{key!r}]" if kind == "item" else f".{key[0] if kind == 'method' else key}" for kind, key in path)


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


#: the modules that hold submodules for code to iterate or index (for m in self.blocks, self.heads[k]): every one followed
_CONTAINERS = (nn.ModuleList, nn.ModuleDict, nn.Sequential)

#: what calling an object runs, whatever names its caller's code spells (``self.fire(h)`` runs ``Fire.forward``)
_CALLED = frozenset(["__call__", "forward"])


def methods(klass: type, names: frozenset[str], shadowed: Iterable[str] = ()) -> list[tuple[tuple[str, bool, bool], types.FunctionType]]:
    """``(key, function)`` for each method of ``klass`` under ``names``, as a ``("method", key)`` step reads it
    through an instance (:func:`follow`): a function, static method or class method a user class on its MRO
    defines, where ``shadowed`` (the instance's own attributes) does not hide it. ``key`` is
    ``(name, True, whether it is a classmethod)``.

    A trace inlines a method the core calls (``self.fire(h)``, ``HOLDER.fire(h)``), so ``K.fire = other`` leaves
    kernels computing the old one: such a place is watched by identity (:func:`flexsn_trace.kinds.is_code`).
    Library classes' methods are not (our neurons', torch's): nothing rebinds them in a training script, and a
    check per call would cost every neuron host time. Dunder names other than ``__call__`` are left out.
    """
    out: list[tuple[tuple[str, bool, bool], types.FunctionType]] = []
    hidden = set(shadowed)
    for name in sorted(names):
        if name in hidden or name.startswith("__") and name != "__call__":
            continue
        for k in klass.__mro__:
            if name in vars(k):
                member = vars(k)[name]
                fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if isinstance(fn, types.FunctionType) and not _library(k.__module__):
                    out.append(((name, True, isinstance(member, classmethod)), fn))
                break
    return out


#: calls deep that :func:`helpers` follows, and how many functions it returns at most
HELPER_DEPTH = 6
MAX_HELPERS = 64


def _class_functions(klass: type, users_only: bool = True) -> list[types.FunctionType]:
    """The functions ``klass`` and its bases define (methods, static and class methods, property getters, a
    ``functools.cached_property``'s or ``lru_cache``'s function, the ``__get__`` of a descriptor object in a class body), along its MRO.

    ``users_only``: only user classes' functions (:func:`_user_function`); else
    every class's but ``builtins``' and torch's.
    """
    out: list[types.FunctionType] = []
    for k in klass.__mro__:
        if _library(k.__module__) if users_only else _builtin_or_torch(k):
            continue
        for value in vars(k).values():
            # staticmethod / classmethod: __func__; a property: its getter (cfg.th reading self._th), a cached one
            # its function; a descriptor object (thr = Scaled("_t")): its class's __get__, which computes self.thr
            if isinstance(value, property):
                fn = value.fget
            elif isinstance(value, functools.cached_property):
                fn = value.func
            elif isinstance(value, CACHED):  # @functools.lru_cache on a method
                fn = value.__wrapped__
            elif not isinstance(value, (type, types.FunctionType)) and isinstance(getattr(type(value), "__get__", None), types.FunctionType):
                fn = type(value).__get__
            else:
                fn = getattr(value, "__func__", value)
            if isinstance(fn, types.FunctionType) and (_user_function(fn) or not users_only):
                out.append(fn)
    return out


def _functions_in(value: Any, names: frozenset[str]) -> list[types.FunctionType]:
    """The user functions a call may reach through ``value``: ``value`` itself when it is a user function, a
    bound method's function, the functions of a user class or of a user object's class; the same for what
    ``value`` holds under ``names`` (:func:`nested`: ``cfg.spike_fn``, ``P["fire"]``); a ``functools.partial``'s function."""
    out: list[types.FunctionType] = []
    for v in [value, *(leaf for _, leaf, _ in nested(value, names))]:
        while isinstance(v, (functools.partial, CACHED)):  # FP = partial(fire, gain=2.0): fire is what runs
            v = v.func if isinstance(v, functools.partial) else v.__wrapped__  # @functools.cache: the function
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
    user object such as ``HOLDER.fire``, the function a ``functools.cache`` / ``lru_cache`` wraps, and what their containers hold under the
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
