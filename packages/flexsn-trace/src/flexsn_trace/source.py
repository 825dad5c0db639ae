"""The text of a function a core runs: its ``def`` or ``lambda`` node in its file, parsed with Python's ``ast``.

:mod:`flexsn_trace.unfollowed` reads it for the reads the place search cannot follow, and
:mod:`flexsn_trace.side_effects` for the changes a core makes outside its arguments.
"""

from __future__ import annotations

import ast
import functools
import linecache
import types

__all__ = ["Function", "own_node"]

#: a function's node: a ``def`` (or ``async def``) or a ``lambda``
Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@functools.lru_cache(maxsize=8)
def _functions_by_line(source: str) -> dict[int, list[Function]]:
    """The ``def``\\ s and ``lambda``\\ s of ``source`` (a whole file's text) by the line their code starts on (a
    ``def``'s first decorator, a lambda's keyword); empty when it does not parse. Cached, and walked once: one file
    holds many cores and helpers."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, list[Function]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(min([node.lineno, *(d.lineno for d in node.decorator_list)]), []).append(node)
        elif isinstance(node, ast.Lambda):
            out.setdefault(node.lineno, []).append(node)
    return out


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]


def own_node(func: types.FunctionType) -> Function | None:
    """The ``def`` or ``lambda`` of ``func`` in its file's text (``linecache``: a notebook cell's too), or ``None``.

    A ``def`` is the one of ``func``'s name starting (at its first decorator) on its code's first line; a
    ``lambda`` the innermost one on that line whose text holds every position its code's instructions carry
    (``co_positions``: two lambdas on one line are told apart). A function whose file's text is not its own (made
    by ``exec`` under a file's name, a file edited since) matches nothing, or the node its positions point at.
    """
    code = func.__code__
    text = "".join(linecache.getlines(code.co_filename, func.__globals__))
    here = _functions_by_line(text).get(code.co_firstlineno, [])
    if func.__name__ != "<lambda>":
        return next((n for n in here if not isinstance(n, ast.Lambda) and n.name == func.__name__), None)
    # the text each instruction comes from; zero-width positions are the interpreter's own (RESUME at column 0)
    spans = {
        ((line, col), (end_line, end_col)) for line, end_line, col, end_col in code.co_positions()
        if line is not None and end_line is not None and col is not None and end_col is not None
        and (end_line, end_col) > (line, col)
    }
    best: ast.Lambda | None = None
    for node in here:
        if isinstance(node, ast.Lambda):
            start, end = _span(node)
            if all(start <= a and b <= end for a, b in spans) and (best is None or _span(best)[0] < start):
                best = node
    return best
