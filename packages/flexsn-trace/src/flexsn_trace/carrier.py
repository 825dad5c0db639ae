"""Save one sequence for the backward where the step's algebra allows it: the *carrier*.

After :func:`flexsn_trace.saved.minimize_saved` a step with a learnable decay
(SpikingJelly's ``ParametricLIFNode``: ``h = v + (x - v) * sigmoid(w)``) still
reads two sequences in the backward: the input ``x`` (for ``dL/dw``, through
``x - v``) and the state before the step ``v`` (stored by the forward). Both
can come from one stored value, the charged membrane ``h`` (the carrier ``c``):

* the state before step ``t`` is the state the forward computed at step
  ``t - 1`` from ``c[t - 1]`` alone (``v = reset(h)``): the backward
  *restates* it from the carrier one step back (the initial state at ``t == 0``);
* the input is recovered by inverting the chain of ``add`` / ``sub`` / ``mul``
  / ``div`` / ``neg`` from ``x`` up to ``c`` (``x - v = (h - v) / sigmoid(w)``).

That is one sequence written and one read instead of two reads and a write:
six passes over ``[T, *shape]`` memory per training step instead of seven,
the same as the neuron with a constant decay.

Exactness: the carrier is stored in float32 (the runtime allocates it so) and
every backward value derived from it that a threshold or another
discontinuous op reads is the forward's own value (a candidate whose
recovered input would reach a comparison is refused), so spikes and resets
in the backward are the forward's. A recovered input carries the rounding of
the inversion: at most ``2**4`` ulps of ``c`` per element, because a
multiplier ``m`` on the chain is used only where ``2**-4 <= |m| <= 2**64``
(a divisor ``m``: ``2**-64 <= |m| <= 2**4``; the *guard*, computed from
static inputs once per program); in a program where it fails for any
neuron the backward kernel reads the input back from memory for all of its
neurons (a masked load: no traffic where the guard holds; one answer per
program keeps one of the two paths live, not both). Multipliers that are Python numbers need no guard;
a chain multiplied by anything else (a state, an input) is not inverted.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import torch
from torch import fx

from .info import FlexSNInfo, SavedSource, graph_output_nodes, placeholders
from .saved import cone, copy_node, node_copier

__all__ = ["CarrierGraphs", "find_carrier"]

_aten = torch.ops.aten
#: ops continuous in every argument: a value carrying the inversion's rounding may flow only through
#: these (and through ``where``'s branches), never into a comparison, ``sign`` or a rounding
_CONTINUOUS = {
    "add", "sub", "rsub", "mul", "div", "neg", "exp", "exp2", "expm1", "log", "log1p", "log2", "sigmoid",
    "tanh", "sin", "cos", "atan", "erf", "sqrt", "rsqrt", "reciprocal", "abs", "square", "pow", "maximum",
    "minimum", "clamp", "clamp_min", "clamp_max", "sigmoid_backward", "tanh_backward", "detach", "alias",
    "view", "_unsafe_view", "reshape", "expand", "squeeze", "unsqueeze", "clone", "sum", "mean", "softplus",
}
_GUARD_LOW, _GUARD_HIGH = 2.0**-4, 2.0**64


class CarrierGraphs(NamedTuple):
    """A forward/backward pair that saves one carrier sequence, and its two helper graphs.

    Attributes:
        fwd: ``[*inputs, *states, *statics] -> [*visible, carrier]``.
        bwd: ``[carrier, *prev_states, *fallback_inputs, guard, *statics, *tangents] -> [*grads]``
            (``prev_states``: the states listed in ``restated``; ``fallback_inputs``:
            the inputs listed in ``recovered``, read by the kernel only where
            ``guard`` is false; both only when ``guard`` below is a graph).
        restate: ``[carrier, *statics] -> [*new_states]`` for the states in ``restated``.
        guard: ``[*statics] -> [bool]``, true where the recovery may be used, or ``None``.
        restated: the states restated from the carrier, ascending.
        recovered: the inputs recovered by inversion, ascending.
    """

    fwd: fx.Graph
    bwd: fx.Graph
    restate: fx.Graph
    guard: fx.Graph | None
    restated: tuple[int, ...]
    recovered: tuple[int, ...]

    def info(self, info: FlexSNInfo) -> FlexSNInfo:
        """``info`` of :attr:`fwd` (from :func:`flexsn_trace.extract_info`) with the carrier's saved sources."""
        carrier = info.saved_sources[0]
        assert carrier.kind == "return" and len(info.saved_sources) == 1
        sources = [carrier]
        sources += [SavedSource("restated_state", j) for j in self.restated]
        if self.guard is not None:
            sources += [SavedSource("fallback_input", i) for i in self.recovered]
            sources.append(SavedSource("guard", 0))
        sources += [SavedSource("static", k) for k in range(info.num_static)]
        return info._replace(saved_sources=tuple(sources), carrier=carrier.slot)


def _meta_like(node: fx.Node, like: Any, dtype: torch.dtype | None = None) -> None:
    ref = like.meta.get("val") if isinstance(like, fx.Node) else None
    shape = tuple(ref.shape) if isinstance(ref, torch.Tensor) else ()
    node.meta["val"] = torch.empty(shape, dtype=dtype or torch.float32)


def _deps(graph: fx.Graph) -> dict[fx.Node, frozenset[fx.Node]]:
    """Placeholders each node depends on."""
    out: dict[fx.Node, frozenset[fx.Node]] = {}
    for n in graph.nodes:
        if n.op == "placeholder":
            out[n] = frozenset([n])
        elif n.op != "output":
            out[n] = frozenset().union(*(out[a] for a in n.all_input_nodes))
    return out


def _packet(node: fx.Node) -> str:
    return str(getattr(getattr(node.target, "_overloadpacket", None), "__name__", ""))


def _inversion_path(c: fx.Node, x: fx.Node, deps: dict[fx.Node, frozenset[fx.Node]],
                    per_step_inputs: frozenset[fx.Node]) -> list[tuple[fx.Node, int]] | None:
    """``[(node, position of the argument on the path), ...]`` from ``c`` down to ``x``, or ``None``."""
    path: list[tuple[fx.Node, int]] = []
    n = c
    while n is not x:
        if n.op != "call_function" or any(k not in ("alpha",) for k in n.kwargs) or n.kwargs.get("alpha", 1) != 1:
            return None
        if _packet(n) not in ("add", "sub", "rsub", "mul", "div", "neg"):
            return None
        on = [i for i, a in enumerate(n.args) if isinstance(a, fx.Node) and x in deps[a]]
        if len(on) != 1:
            return None
        others = [a for i, a in enumerate(n.args) if i != on[0]]
        if any(isinstance(a, fx.Node) and deps[a] & per_step_inputs for a in others):
            return None
        if any(not isinstance(a, (fx.Node, int, float)) or isinstance(a, bool) for a in others):
            return None
        if _packet(n) == "div" and on[0] != 0:
            return None
        path.append((n, on[0]))
        n = n.args[on[0]]  # type: ignore[assignment]
    return path


def _inverse(g: fx.Graph, op: str, pos: int, y: fx.Node, other: Any, guard: fx.Node | None = None) -> fx.Node:
    """The argument at ``pos`` of ``op(..)`` given its result ``y`` and its other argument.

    A multiplier is replaced by 1 where ``guard`` is false: those lanes take the input read back,
    and dividing by a zero or tiny multiplier there would only make infinities and NaNs.
    """
    if op == "add":
        r = g.call_function(_aten.sub.Tensor, (y, other))
    elif op == "sub":
        r = g.call_function(_aten.add.Tensor, (y, other)) if pos == 0 else g.call_function(_aten.sub.Tensor, (other, y))
    elif op == "rsub":  # rsub(a, b) = b - a
        r = g.call_function(_aten.sub.Tensor, (other, y)) if pos == 0 else g.call_function(_aten.add.Tensor, (y, other))
    elif op == "mul":
        if guard is not None and isinstance(other, fx.Node):
            # 1 / m from the statics and the guard alone: hoisted out of the time loop
            # (flexsn_trace.split_invariants), so each step multiplies instead of dividing
            # (a correctly rounded division is a dozen instructions; one more rounding of 1 / m is
            # far below the 16 ulps of h the guard allows)
            other = g.call_function(_aten.where.ScalarOther, (guard, other, 1.0))
            _meta_like(other, y)
            other = g.call_function(_aten.reciprocal.default, (other,))
            _meta_like(other, y)
            r = g.call_function(_aten.mul.Tensor, (y, other))
        else:
            r = g.call_function(_aten.div.Tensor, (y, other))
    elif op == "div":
        r = g.call_function(_aten.mul.Tensor, (y, other))
    else:  # neg
        r = g.call_function(_aten.neg.default, (y,))
    _meta_like(r, y)
    return r


def _key(n: Any, keys: dict[fx.Node, Any]) -> Any:
    if isinstance(n, fx.Node):
        return keys[n]
    if isinstance(n, (list, tuple)):
        return tuple(_key(a, keys) for a in n)
    return ("const", repr(n))


def _structural_keys(graph: fx.Graph, seed: dict[fx.Node, Any]) -> dict[fx.Node, Any]:
    keys = dict(seed)
    for n in graph.nodes:
        if n in keys or n.op in ("placeholder", "output"):
            keys.setdefault(n, ("ph", id(n)))
            continue
        kw = tuple(sorted((k, _key(v, keys)) for k, v in n.kwargs.items()))
        keys[n] = (str(n.target), _key(n.args, keys), kw)
    return keys


def _scale_ok(m: float, divisor: bool) -> bool:
    """A Python-number multiplier (or divisor) inside the guard's range."""
    scale = abs(m) if not divisor else (1.0 / abs(m) if m else float("inf"))
    return _GUARD_LOW <= scale <= _GUARD_HIGH


def _guard_graph(multipliers: list[tuple[fx.Node, bool]], statics: list[fx.Node]) -> fx.Graph:
    """``[*statics] -> [guard]``: every multiplier ``m`` (a divisor: ``1 / m``) has ``2**-4 <= |m| <= 2**64``."""
    g = fx.Graph()
    env = {s: g.placeholder(s.name) for s in statics}
    for s in statics:
        env[s].meta = dict(s.meta)
    get = node_copier(g, env)
    cond: fx.Node | None = None
    for m, divisor in multipliers:
        a = g.call_function(_aten.abs.default, (get(m),))
        low, high = (1.0 / _GUARD_HIGH, 1.0 / _GUARD_LOW) if divisor else (_GUARD_LOW, _GUARD_HIGH)
        lo = g.call_function(_aten.ge.Scalar, (a, low))
        hi = g.call_function(_aten.le.Scalar, (a, high))
        both = g.call_function(_aten.logical_and.default, (lo, hi))
        _meta_like(a, m)
        for b in (lo, hi, both):
            _meta_like(b, m, torch.bool)
        if cond is not None:
            cond = g.call_function(_aten.logical_and.default, (cond, both))
            _meta_like(cond, m, torch.bool)
        else:
            cond = both
    g.output((cond,))
    g.eliminate_dead_code()
    return g


class _Plan(NamedTuple):
    """What a carrier candidate rebuilds, found by :func:`_plan` before any graph is written."""

    inputs: list[fx.Node]
    states: list[fx.Node]
    statics: list[fx.Node]
    outs: list[fx.Node]
    #: states restated from the carrier (one step back) and inputs recovered from it
    restated: list[int]
    recovered: list[int]
    #: input -> the chain from the carrier down to it: (node, position of the operand on the chain)
    paths: dict[int, list[tuple[fx.Node, int]]]
    #: the static multipliers on the chains (``True``: a divisor), answered by the guard
    multipliers: list[tuple[fx.Node, bool]]


def _plan(
    fwd: fx.Graph, deps: dict[fx.Node, frozenset[fx.Node]], c: fx.Node, n_in: int, n_out: int, n_st: int
) -> _Plan | None:
    """Which states ``c`` restates and which inputs it recovers, or ``None`` when it cannot rebuild what is saved.

    ``deps``: :func:`_deps` of ``fwd`` (the same for every candidate).
    """
    phs, outs = placeholders(fwd), [o for o in graph_output_nodes(fwd) if isinstance(o, fx.Node)]
    inputs, states, statics = phs[:n_in], phs[n_in : n_in + n_st], phs[n_in + n_st :]
    needed = frozenset().union(*(deps[s] for s in outs[n_out + n_st :]))
    per_step, static_set = frozenset(inputs), frozenset(statics)
    restated = [j for j in range(n_st) if states[j] in needed]
    recovered = [i for i in range(n_in) if inputs[i] in needed]
    for j in restated:
        new = outs[n_out + j]
        found = cone(new, {c})  # the new state from the carrier and static inputs alone
        if new.op == "placeholder" or found is None or not found[1] <= static_set:
            return None
    paths = {}
    for i in recovered:
        path = _inversion_path(c, inputs[i], deps, per_step)
        if path is None:
            return None
        for n, pos in path:  # the chain's other operands: statics and restated states only
            for a in (a for k, a in enumerate(n.args) if k != pos and isinstance(a, fx.Node)):
                if not deps[a] <= static_set | {states[j] for j in restated}:
                    return None
        paths[i] = path
    multipliers: list[tuple[fx.Node, bool]] = []
    for path in paths.values():
        for n, pos in path:
            if _packet(n) in ("mul", "div"):
                m = n.args[1 - pos]
                if isinstance(m, fx.Node):
                    if not deps[m] <= static_set or not deps[m]:
                        return None
                    multipliers.append((m, _packet(n) == "div"))
                elif not isinstance(m, (int, float)) or not _scale_ok(float(m), _packet(n) == "div"):
                    return None
    return _Plan(inputs, states, statics, outs, restated, recovered, paths, multipliers)


def _backward_graph(fwd: fx.Graph, bwd: fx.Graph, c: fx.Node, plan: _Plan, n_saved: int) -> fx.Graph | None:
    """``bwd`` reading the carrier (and the restated states, the guard, the fallback inputs) for its saved values.

    ``None`` when a value carrying the recovery's rounding would reach a threshold.
    """
    inputs, states, statics, restated, recovered = plan.inputs, plan.states, plan.statics, plan.restated, plan.recovered
    guarded = bool(plan.multipliers)
    g = fx.Graph()
    c_ph = g.placeholder("carrier")
    c_ph.meta = dict(c.meta)
    env: dict[fx.Node, fx.Node] = {c: c_ph}
    for j in restated:
        env[states[j]] = g.placeholder(f"prev_state_{j}")
        env[states[j]].meta = dict(states[j].meta)
    fallback = {}
    for i in recovered if guarded else ():
        fallback[i] = g.placeholder(f"fallback_input_{i}")
        fallback[i].meta = dict(inputs[i].meta)
    guard_ph = g.placeholder("guard") if guarded else None
    if guard_ph is not None:
        _meta_like(guard_ph, c, torch.bool)
    for s in statics:
        env[s] = g.placeholder(s.name)
        env[s].meta = dict(s.meta)
    bwd_phs = placeholders(bwd)
    saved, tangents = plan.outs[len(plan.outs) - n_saved :], bwd_phs[n_saved:]
    for t in tangents:
        env[t] = g.placeholder(t.name)
        env[t].meta = dict(t.meta)
    get = node_copier(g, env)
    approx: set[fx.Node] = set()
    # forward nodes whose value the backward has: the carrier, and the recovered chain below it
    known: dict[fx.Node, fx.Node] = {c: c_ph}
    for i, path in plan.paths.items():
        vals = {c: c_ph}
        for n, pos in path:
            other = n.args[1 - pos] if len(n.args) == 2 else None
            other_value = get(other) if isinstance(other, fx.Node) else other
            vals[n.args[pos]] = _inverse(g, _packet(n), pos, vals[n], other_value, guard_ph)  # type: ignore[index]
        lower = [cast(fx.Node, p.args[pos]) for p, pos in reversed(path)][1:]
        for n in [inputs[i], *lower]:  # x, then the path upwards
            value = vals[n]
            if guard_ph is not None:
                recomputed = fallback[i] if n is inputs[i] else copy_node(g, n, get)
                value = g.call_function(_aten.where.self, (guard_ph, value, recomputed))
                _meta_like(value, c)
            env[n] = value
            known[n] = value
            approx.add(value)
    # the backward's nodes, each saved value or recomputation of one replaced by what the backward has
    old_env: dict[fx.Node, fx.Node] = {ph: get(s) for ph, s in zip(bwd_phs, saved)}
    for t in tangents:
        old_env[t] = env[t]
    fkeys = _structural_keys(fwd, {p: ("ph", k) for k, p in enumerate(placeholders(fwd))})
    replace = {fkeys[n]: v for n, v in known.items()}
    bkeys = _structural_keys(bwd, {ph: fkeys[s] for ph, s in zip(bwd_phs, saved)})
    for n in bwd.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            g.output(tuple(old_env[a] if isinstance(a, fx.Node) else a for a in n.args[0]))
            continue
        hit = replace.get(bkeys[n])
        old_env[n] = hit if hit is not None else copy_node(g, n, lambda a: old_env[a])
    g.eliminate_dead_code()
    return None if _rounding_reaches_threshold(g, approx) else g


def _restate_graph(c: fx.Node, plan: _Plan, n_out: int) -> fx.Graph:
    """``(carrier, *statics) -> restated states``: a state from the carrier one step back."""
    restate = fx.Graph()
    renv = {c: restate.placeholder("carrier")}
    renv[c].meta = dict(c.meta)
    for s in plan.statics:
        renv[s] = restate.placeholder(s.name)
        renv[s].meta = dict(s.meta)
    rget = node_copier(restate, renv)
    restate.output(tuple(rget(plan.outs[n_out + j]) for j in plan.restated))
    restate.eliminate_dead_code()
    return restate


def _forward_saving(fwd: fx.Graph, c: fx.Node, plan: _Plan, vis: int) -> fx.Graph:
    """``fwd`` returning its visible results and then the carrier as its one saved value."""
    new_fwd = fx.Graph()
    fenv: dict[fx.Node, fx.Node] = {}
    for node in fwd.nodes:
        if node.op == "output":
            new_fwd.output(tuple(fenv[v] for v in [*plan.outs[:vis], c]))
            continue
        fenv[node] = copy_node(new_fwd, node, lambda a: fenv[a])
    new_fwd.eliminate_dead_code()
    return new_fwd


def _try(
    fwd: fx.Graph, bwd: fx.Graph, deps: dict[fx.Node, frozenset[fx.Node]], c: fx.Node, n_in: int, n_out: int, n_st: int
) -> CarrierGraphs | None:
    """The carrier graphs of candidate ``c``, or ``None`` when it cannot stand in for the saved values."""
    plan = _plan(fwd, deps, c, n_in, n_out, n_st)
    if plan is None:
        return None
    vis = n_out + n_st
    g = _backward_graph(fwd, bwd, c, plan, len(plan.outs) - vis)
    if g is None:
        return None
    restate, new_fwd = _restate_graph(c, plan, n_out), _forward_saving(fwd, c, plan, vis)
    for graph in (g, restate, new_fwd):
        graph.lint()
    guard = _guard_graph(plan.multipliers, plan.statics) if plan.multipliers else None
    return CarrierGraphs(new_fwd, g, restate, guard, tuple(plan.restated), tuple(plan.recovered))


def _rounding_reaches_threshold(g: fx.Graph, approx: set[fx.Node]) -> bool:
    """Whether a value carrying the inversion's rounding reaches a comparison or another jump."""
    tainted = set(approx)
    for n in g.nodes:
        if n.op != "call_function" or n in tainted:
            continue
        hit = [a for a in n.all_input_nodes if a in tainted]
        if not hit:
            continue
        if _packet(n) in _CONTINUOUS or (_packet(n) == "where" and n.args[0] not in tainted):
            tainted.add(n)
            continue
        return True
    return False


def find_carrier(
    fwd: fx.Graph, bwd: fx.Graph, num_inputs: int, num_outputs: int, num_states: int
) -> CarrierGraphs | None:
    """Rewrite a minimised forward/backward pair to save one carrier sequence, when that reads less.

    Args:
        fwd: ``[*inputs, *states, *statics] -> [*outputs, *states, *saved]``
            (after :func:`flexsn_trace.saved.minimize_saved`).
        bwd: ``[*saved, *tangents] -> [*grads]``.
        num_inputs, num_outputs, num_states: the core's arity.

    Returns:
        :class:`CarrierGraphs` for the first intermediate forward node (in
        graph order) that works, or ``None`` when the saved values cost two
        passes over the sequences or fewer (a carrier is written and read
        back: two), or no node restates every needed state and recovers
        every needed input (see the module docstring).
    """
    outs = graph_output_nodes(fwd)
    if not all(isinstance(o, fx.Node) for o in outs):
        return None
    phs = placeholders(fwd)
    inputs, statics = set(phs[:num_inputs]), set(phs[num_inputs + num_states :])
    visible = set(outs[: num_outputs + num_states])
    saved = {o for o in outs[num_outputs + num_states :] if isinstance(o, fx.Node) and o not in statics}
    # passes over [T, *shape] memory: an input or a visible result is read back (1); a state before
    # the step or an intermediate is written and read back (2)
    old_cost = sum(1 if s in inputs or s in visible else 2 for s in saved)
    deps = _deps(fwd)
    per_step = frozenset(phs[: num_inputs + num_states])
    for c in fwd.nodes:
        # a visible result keeps its dtype (the carrier is stored in float32): never a carrier
        if c.op != "call_function" or not deps[c] & per_step or c in visible or old_cost <= 2:
            continue
        try:
            found = _try(fwd, bwd, deps, c, num_inputs, num_outputs, num_states)
        except KeyError:  # the backward needs a placeholder the carrier does not give
            found = None
        if found is not None:
            return found
    return None
