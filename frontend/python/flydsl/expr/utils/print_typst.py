"""print_typst: the picture of a layout, swizzled layout, tiled copy, MMA
atom or tiled MMA (fx._draw's figures, read from the compiler's algebra)
as Typst source, FlyDSL's `fx.utils.print_typst`."""

from __future__ import annotations

import os
import sys
from typing import Callable

from .._draw import Figure, Grid, figure

__all__ = ["print_typst"]

_HEADER = ("#set page(width: auto, height: auto, margin: 8pt)\n"
           "#set text(font: (\"DejaVu Sans Mono\", \"New Computer Modern\"), size: 9pt)\n")


def _string(text: str) -> str:
    """A Typst string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _caption(lines) -> str:
    return ("#box(inset: 6pt, stroke: 0.5pt + black, radius: 2pt)"
            f"[#raw(block: true, {_string(chr(10).join(lines))})]")


def _cell_pt(fig: Figure) -> tuple:
    """(width, height) of a cell in pt: the widest label (9pt monospace,
    about 5.4pt a character) and the tallest (10pt a line), with a margin."""
    chars, lines = fig.label_extent()
    return max(18.0, 5.5 * chars + 6.0), max(18.0, 10.0 * lines + 6.0)


def _grid(grid: Grid, colour, size) -> str:
    w, h = size
    out = [f'#align(center, text(weight: "bold", size: 11pt)[{grid.title}])', "", "#grid(",
           "  columns: (" + ", ".join([f"{w:g}pt"] * (grid.cols + 1)) + "),",
           "  rows: (" + ", ".join([f"{h:g}pt"] * (grid.rows + 1)) + "),",
           "  align: center + horizon,", "  stroke: 0.5pt + black,",
           "  grid.cell(stroke: none)[],"]
    out += [f"  grid.cell(stroke: none)[*{c}*]," for c in range(grid.cols)]
    for r in range(grid.rows):
        out.append(f"  grid.cell(stroke: none)[*{r}*],")
        for c in range(grid.cols):
            key = grid.cells.get((r, c))
            fill = colour(key) if key is not None else "#ffffff"
            content = " #linebreak() ".join(grid.label(r, c))
            out.append(f'  grid.cell(fill: rgb("{fill}"))[{content}],')
    out.append(")")
    return "\n".join(out)


def _body(fig: Figure, color) -> str:
    colour = fig.colour_of(color)
    size = _cell_pt(fig)
    g = {name: _grid(grid, colour, size) for name, grid in fig.grids.items()}
    doc = _caption(fig.caption) + "\n\n"
    if fig.kind == "layout":
        return doc + g["Layout"] + "\n"
    if fig.kind == "copy":
        return doc + ("#grid(\n  columns: 2,\n  column-gutter: 20pt,\n"
                      f"  [\n{g['Src']}\n  ],\n  [\n{g['Dst']}\n  ],\n)\n")
    # B above C, A left of C.
    return doc + ("#grid(\n  columns: 2,\n  gutter: 12pt,\n  align: center + horizon,\n"
                  f"  [],\n  [\n{g['B']}\n  ],\n  [\n{g['A']}\n  ],\n  [\n{g['C']}\n  ],\n)\n")


def print_typst(arg, *, color: Callable | None = None, file: str | None = None) -> None:
    """Writes the picture of `arg` as a Typst document.

    `arg` is a static layout or composed (swizzled) layout, an MMA atom, a
    tiled MMA or a tiled copy: a value of a trace, a type, or a text such
    as "(4,8):(1,4)" or "S<3,3,3> o (8,64):(64,1)". A layout is a grid of
    the index of each coordinate; a tiled copy its Src and Dst
    thread-value grids side by side; an MMA atom or tiled MMA its B grid
    above C and A left of C, each cell "T<thread> V<value>". `color` maps
    an index (layouts) or (thread, value) (the others) to "#rrggbb"; by
    default a grey by index % 8, a pastel by thread % 8. Without `file` the
    document goes to stdout; with it, it is appended to the file, after a
    `#pagebreak()` when the file has pages already (the set rules only
    once, at its top)."""
    body = _body(figure("utils.print_typst", arg), color)
    if file is None:
        sys.stdout.write(_HEADER + "\n" + body)
        return
    has_pages = os.path.isfile(file) and os.path.getsize(file) > 0
    with open(file, "a") as f:
        f.write("\n#pagebreak()\n\n" + body if has_pages else _HEADER + "\n" + body)
