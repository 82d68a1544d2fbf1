"""The grids of a Typst layout picture, read back from its text: each
titled `#grid(...)` block as (title, columns, [(fill, content), ...]) of
its filled cells in row-major order (the row and column labels, cells
without a fill, are left out). Used on FlyDSL 0.4.2's print_typst output
(data/typst_flydsl_0.4.2.py) and on ours, so the two can be compared cell
by cell without either's layout code."""

from __future__ import annotations

import re

_TITLE = re.compile(r'#align\(center, text\([^)]*\)\[(?P<title>[^\]]*)\]\)')
_COLUMNS = re.compile(r"columns: \((?P<cols>[^)]*)\)")
_CELL = re.compile(r'grid\.cell\(fill: rgb\("(?P<fill>[^"]*)"\)\)\[(?P<body>.*)\],\s*$')


def _innermost(body: str) -> str:
    """The text of the innermost [...] of a cell body (the body itself
    when it has none): its content."""
    start = body.rfind("[")
    if start < 0:
        return body.strip()
    return body[start + 1:body.index("]", start)].strip()


def grids(text: str) -> list[dict]:
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _TITLE.search(lines[i])
        if not m:
            i += 1
            continue
        title = m.group("title")
        while not lines[i].strip().startswith("#grid("):
            i += 1
        cols = len(_COLUMNS.search(lines[i + 1]).group("cols").split(","))
        cells = []
        i += 1
        while lines[i].strip() != ")":
            c = _CELL.search(lines[i])
            if c:
                fill = c.group("fill").lower()
                cells.append((fill if fill != "white" else "#ffffff", _innermost(c.group("body"))))
            i += 1
        found.append({"title": title, "columns": cols, "cells": cells})
    return found
