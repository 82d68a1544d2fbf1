"""Pictures of layouts: a layout, a swizzled (composed) layout, and the
thread-value layouts of a tiled copy, an MMA atom and a tiled MMA, as text
(`layout_text`), SVG (`layout_svg`) and Typst (`fx.utils.print_typst`).

What is drawn is read from the compiler: every cell's index, and every
(thread, value)'s cell, is a `fly.crd2idx` the C++ algebra infers on the
static types (the same route as the tracer's type inference); the atoms'
and tiled atoms' layouts are their type members. Nothing here computes a
layout. The argument can be a static value of a trace (fx.Layout,
fx.TiledCopy, ...), a type (fx.LayoutType, a type handle) or a text: the
layout syntax `(4,8):(1,4)` (a shape alone, `(4,8)`, is its compact
column-major layout), a swizzled layout `S<3,3,3> o (8,64):(64,1)`
(or with its offset, `S<3,3,3> o 0 o (8,64):(64,1)`), a type text
`!fly.tiled_copy<...>`, or what printing a FlyDSL value shows
(`Layout<(4,8):(1,4)>`, `ComposedLayout<...>`).

Grids: a layout of rank 1 is one row; of rank 2, rows are its first mode
and columns its second (a nested mode counts as its size, its coordinate
taken colexicographically). A thread-value layout (thread, value) -> index
of an M x N tile is drawn on the tile, index = m + n * M; an MMA's B
operand (N x K) is drawn K rows by N columns, index = n + k * N. When
several (thread, value) pairs reach one cell, the one with the smallest
thread (then value) is shown.

Colours (the defaults; `color=` replaces them): a layout cell of index i
has INDEX_PALETTE[i % 8] (greys: #ffffff #999999 #cccccc #666666 #e5e5e5
#808080 #b2b2b2 #4c4c4c), a thread-value cell of thread t has
THREAD_PALETTE[t % 8] (#afafff #afffaf #ffffaf #ffafaf #d2d2ff #d2ffd2
#ffffd2 #ffd2d2), the palettes of FlyDSL's print_typst. A `color`
function takes the index, or (thread, value), and returns "#rrggbb".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import _fly
from ._core import FlyValue, fail

__all__ = ["layout_text", "layout_svg"]

# Greys by index (CuTe's print_latex palette, as FlyDSL's print_typst).
INDEX_PALETTE = ("#ffffff", "#999999", "#cccccc", "#666666",
                 "#e5e5e5", "#808080", "#b2b2b2", "#4c4c4c")
# Pastels by thread (CuTe's TV palette).
THREAD_PALETTE = ("#afafff", "#afffaf", "#ffffaf", "#ffafaf",
                  "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2")


def index_colour(index: int) -> str:
    return INDEX_PALETTE[index % len(INDEX_PALETTE)]


def thread_colour(thread: int, value: int) -> str:
    return THREAD_PALETTE[thread % len(THREAD_PALETTE)]


# -- the model: grids of cells --------------------------------------------------------

@dataclass
class Grid:
    """rows x cols cells; a cell is its key, (index,) or (thread, value)."""

    title: str
    rows: int
    cols: int
    cells: dict = field(default_factory=dict)
    numbered: bool = True  # rows and columns numbered (not a rank-1 layout's one row)

    def label(self, r: int, c: int) -> tuple:
        """The lines of a cell's label: ("5",), ("T3", "V1"), () if empty."""
        key = self.cells.get((r, c))
        if key is None:
            return ()
        return (str(key[0]),) if len(key) == 1 else (f"T{key[0]}", f"V{key[1]}")


@dataclass
class Figure:
    """What a picture shows: `kind` "layout" (one grid), "copy" (Src, Dst
    side by side) or "mma" (B above C, A left of C); a caption of text
    lines; the grids by name."""

    kind: str
    caption: list
    grids: dict

    def label_extent(self) -> tuple:
        """(characters, lines) of the widest and tallest label of any grid,
        row and column numbers included: one cell size fits all, so that
        the grids of an MMA line up."""
        chars, lines = 1, 1
        for grid in self.grids.values():
            chars = max(chars, len(str(max(grid.rows, grid.cols) - 1)))
            for rc in grid.cells:
                label = grid.label(*rc)
                chars = max(chars, *(len(s) for s in label))
                lines = max(lines, len(label))
        return chars, lines

    def colour_of(self, color=None):
        """key -> "#rrggbb" of this figure's cells."""
        if self.kind == "layout":
            f = color or index_colour
            return lambda key: f(key[0])
        f = color or thread_colour
        return lambda key: f(key[0], key[1])


# -- reading the argument --------------------------------------------------------------

# FlyDSL's printed class names -> type kinds (`Layout<...>` is `!fly.layout<...>`).
_PRINTED = {"Layout": "layout", "ComposedLayout": "composed_layout", "TiledCopy": "tiled_copy",
            "TiledMma": "tiled_mma", "MmaAtom": "mma_atom", "CopyAtom": "copy_atom"}
_NAMES = {**{kind: name for name, kind in _PRINTED.items()}, "tile": "Tile", "int_tuple": "IntTuple"}
_DRAWN = ("layout", "composed_layout", "tiled_copy", "tiled_mma", "mma_atom")


def _parse(api: str, text: str):
    s = text.strip()
    if not s.startswith("!"):
        head = s.split("<", 1)[0]
        if head in _PRINTED and s.endswith(">"):
            s = s[len(head) + 1:-1]
            kind = _PRINTED[head]
        elif " o " in s:
            parts = s.split(" o ")
            if len(parts) == 2:  # inner o outer: the zero offset
                parts.insert(1, "0")
            s, kind = " o ".join(parts), "composed_layout"
        else:
            kind = "layout"
        if kind == "layout" and ":" not in s:  # a shape: its compact layout
            s = f"!fly.int_tuple<{s}>"
        s = s if s.startswith("!") else f"!fly.{kind}<{s}>"
    try:
        h = _fly.parse_type(s)
        return _infer("fly.make_layout", h) if h.kind == "int_tuple" else h
    except _fly.Error as err:
        error = str(err)
    fail(api, f"invalid layout {text!r}: {error}")


def subject_type(api: str, x):
    """The static type handle of what is to be drawn."""
    if isinstance(x, str):
        h = _parse(api, x)
    elif isinstance(x, FlyValue):
        h = x.ir.type
    elif isinstance(x, _fly.Type):
        h = x
    elif isinstance(getattr(x, "handle", None), _fly.Type):  # fx.LayoutType, ...
        h = x.handle
    else:
        fail(api, f"draws a layout, swizzled layout, tiled copy, MMA atom or tiled MMA "
                  f"(a value, a type or a text such as \"(4,8):(1,4)\"), not {type(x).__name__} "
                  f"{x!r}"[:200])
    if h.kind not in _DRAWN:
        fail(api, f"cannot draw {h}: it is not a layout, swizzled layout, tiled copy, MMA atom "
                  "or tiled MMA")
    if not h.is_static:
        fail(api, f"{printed(h)} is not static: only layouts with static shapes and strides "
                  "can be drawn")
    return h


def printed(h) -> str:
    """A type as FlyDSL prints its value: `Layout<(4,8):(1,4)>`."""
    text = str(h)
    name = _NAMES.get(h.kind)
    return f"{name}{text[text.find('<'):]}" if name else text


# -- the algebra's answers ------------------------------------------------------------

def _infer(op, *operands):
    (r,) = _fly.infer(op, list(operands))
    return r


def _tuple(text: str):
    return _fly.parse_type(f"!fly.int_tuple<{text}>")


def _index(api, coord: str, layout) -> int:
    value = _infer("fly.crd2idx", _tuple(coord), layout).value
    if not isinstance(value, int):
        fail(api, f"{printed(layout)} maps {coord} to {value}, not to an index: only layouts "
                  "to integers can be drawn")
    return value


def _mode_sizes(layout) -> tuple:
    """The size of each top-level mode of a layout (or composed layout)."""
    outer = layout.members["outer"] if layout.kind == "composed_layout" else layout
    sizes = _infer("fly.int_tuple_product_each", _infer("fly.get_shape", outer)).value
    return sizes if isinstance(sizes, tuple) else (sizes,)


def _ints(t) -> tuple:
    """An int tuple type's ints."""
    v = t.value
    return v if isinstance(v, tuple) else (v,)


def _layout_grid(api, layout) -> Grid:
    sizes = _mode_sizes(layout)
    if len(sizes) > 2:
        fail(api, f"{printed(layout)} has rank {len(sizes)}; only rank-1 and rank-2 layouts are "
                  "drawn (take a mode, or group modes first)")
    rows, cols = (1, sizes[0]) if len(sizes) == 1 else sizes
    grid = Grid("Layout", rows, cols, numbered=len(sizes) == 2)
    for i in range(rows):
        for j in range(cols):
            crd = f"{j}" if len(sizes) == 1 else f"({i},{j})"
            grid.cells[(i, j)] = (_index(api, crd, layout),)
    return grid


def _tv_grid(api, title, layout, rows, cols, transposed=False) -> Grid:
    """The cells of a (thread, value) -> index layout on a rows x cols tile
    (index = r + c * rows; `transposed`: index = c + r * cols)."""
    sizes = _mode_sizes(layout)
    if len(sizes) != 2:
        fail(api, f"{printed(layout)} is not a (thread, value) layout")
    threads, values = sizes
    grid = Grid(title, rows, cols)
    for t in range(threads):
        for v in range(values):
            idx = _index(api, f"({t},{v})", layout)
            if not 0 <= idx < rows * cols:
                fail(api, f"{printed(layout)} maps (thread {t}, value {v}) to {idx}, outside "
                          f"the {rows}x{cols} tile")
            cell = (idx // cols, idx % cols) if transposed else (idx % rows, idx // rows)
            grid.cells.setdefault(cell, (t, v))
    return grid


def _tile_sizes(api, tile) -> tuple:
    """The size of each mode of a tile type ([4|32], [4:1|(8,4):(4,1)])."""
    from ._ir_types import _split_tile
    sizes = []
    for mode in _split_tile(str(tile)[len("!fly.tile<"):-1]):
        if ":" in mode:
            sizes.append(_infer("fly.size", _fly.parse_type(f"!fly.layout<{mode}>")).value)
        elif mode.isdigit():
            sizes.append(int(mode))
        else:
            fail(api, f"the tile {tile} has a mode {mode!r} without a size")
    return tuple(sizes)


def _mma_grids(api, m, n, k, a, b, c) -> dict:
    return {"B": _tv_grid(api, "B (K x N)", b, k, n, transposed=True),
            "A": _tv_grid(api, "A (M x K)", a, m, k),
            "C": _tv_grid(api, "C (M x N)", c, m, n)}


def figure(api: str, x) -> Figure:
    """The picture of x (see the module's docstring), from the compiler's
    algebra."""
    h = subject_type(api, x)
    if h.kind in ("layout", "composed_layout"):
        return Figure("layout", [printed(h)], {"Layout": _layout_grid(api, h)})
    members = h.members
    if h.kind == "tiled_copy":
        sizes = _tile_sizes(api, members["tile"])
        if len(sizes) != 2:
            fail(api, f"{printed(h)} tiles {len(sizes)} modes; only 2-D tiles (M x N) are drawn")
        m, n = sizes
        caption = ["Tiled Copy", f"  Tile MN:         {printed(members['tile'])}",
                   f"  TV layout:       {printed(members['layout_tv'])}",
                   f"  Src TV layout:   {printed(members['layout_src_tv_tiled'])}",
                   f"  Dst TV layout:   {printed(members['layout_dst_tv_tiled'])}"]
        return Figure("copy", caption, {
            "Src": _tv_grid(api, "Src (M x N)", members["layout_src_tv_tiled"], m, n),
            "Dst": _tv_grid(api, "Dst (M x N)", members["layout_dst_tv_tiled"], m, n)})
    if h.kind == "mma_atom":
        m, n, k = _ints(members["shape_mnk"])
        caption = ["MMA Atom", f"  Shape MNK:    {printed(members['shape_mnk'])}",
                   f"  Thr layout:   {printed(members['thr_layout'])}",
                   f"  TV layout A:  {printed(members['layout_A_tv'])}",
                   f"  TV layout B:  {printed(members['layout_B_tv'])}",
                   f"  TV layout C:  {printed(members['layout_C_tv'])}"]
        return Figure("mma", caption, _mma_grids(api, m, n, k, members["layout_A_tv"],
                                                 members["layout_B_tv"], members["layout_C_tv"]))
    m, n, k = _ints(members["tile_size_mnk"])
    caption = ["Tiled MMA", f"  Atom:            {printed(members['atom'])}",
               f"  Atom layout:     {printed(members['atom_layout'])}",
               f"  Tile size MNK:   {printed(members['tile_size_mnk'])}",
               f"  Thr layout VMNK: {printed(members['thr_layout_vmnk'])}",
               f"  TV layout A:     {printed(members['tv_layout_A_tiled'])}",
               f"  TV layout B:     {printed(members['tv_layout_B_tiled'])}",
               f"  TV layout C:     {printed(members['tv_layout_C_tiled'])}"]
    return Figure("mma", caption, _mma_grids(api, m, n, k, members["tv_layout_A_tiled"],
                                             members["tv_layout_B_tiled"],
                                             members["tv_layout_C_tiled"]))


# -- text ---------------------------------------------------------------------------------

_ANSI = (31, 32, 33, 34, 35, 36)


def _grid_text(grid: Grid, colour: bool) -> list:
    labels = {rc: "".join(grid.label(*rc)) for rc in grid.cells}
    width = max([len(s) for s in labels.values()] + [len(str(grid.cols - 1))])
    lead = len(str(grid.rows - 1))
    lines = []
    if grid.numbered:
        lines.append(" " * (lead + 2) + " ".join(str(j).rjust(width) for j in range(grid.cols)))
    for i in range(grid.rows):
        cells = []
        for j in range(grid.cols):
            s = labels.get((i, j), ".").rjust(width)
            key = grid.cells.get((i, j))
            if colour and key is not None:
                s = f"\x1b[{_ANSI[key[0] % len(_ANSI)]}m{s}\x1b[0m"
            cells.append(s)
        lines.append((f"{str(i).rjust(lead)}| " if grid.numbered else "") + " ".join(cells))
    return lines


def layout_text(layout, *, color: bool = False) -> str:
    """The picture of a layout (or swizzled layout, tiled copy, MMA atom,
    tiled MMA) as text: a caption line, then each grid with its column
    numbers above and its row numbers before `| `; a layout cell shows its
    index, a thread-value cell `T<thread>V<value>` (`.` where no pair
    lands). A rank-1 layout is one line of indices. `color=True` adds ANSI
    colours (by index, or by thread)."""
    fig = figure("layout_text", layout)
    lines = list(fig.caption)
    for name, grid in fig.grids.items():
        if fig.kind != "layout":
            lines.append(grid.title)
        lines.extend(_grid_text(grid, color))
    return "\n".join(lines) + "\n"


# -- SVG ----------------------------------------------------------------------------------

_FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
_CHAR_W, _TITLE_CHAR_W, _LINE_H = 7.0, 8.5, 12.0
_PAD, _GAP, _TITLE_H, _CAPTION_H = 6.0, 24.0, 20.0, 15.0


def _cell_size(fig: Figure) -> tuple:
    chars, lines = fig.label_extent()
    w = max(22.0, _CHAR_W * max(chars, 2) + 8.0)
    return w, max(w if lines == 1 else 0.0, _LINE_H * lines + 10.0)


def _grid_width(grid: Grid, w: float) -> float:
    """The width a grid takes: its row numbers, its cells, its title."""
    return w + max(w * grid.cols, _TITLE_CHAR_W * len(grid.title))


def _svg_grid(out, grid: Grid, x: float, y: float, w: float, h: float, colour) -> tuple:
    import html  # only drawing needs it: not imported with flydsl.expr
    """Draws a grid with its title at (x, y); returns its (width, height).
    Cell (r, c) is the rectangle at (x0 + c*w, y0 + r*h), (x0, y0) the
    group's data-x, data-y."""
    x0, y0 = x + w, y + _TITLE_H + h
    width, height = _grid_width(grid, w), _TITLE_H + h * (grid.rows + 1)
    out.append(f'<g class="grid" data-title="{html.escape(grid.title)}" data-x="{x0:g}" '
               f'data-y="{y0:g}" data-cell-width="{w:g}" data-cell-height="{h:g}" '
               f'data-rows="{grid.rows}" data-cols="{grid.cols}">')
    # Centred over the cells, or from their left edge when wider than they are.
    centred = _TITLE_CHAR_W * len(grid.title) <= w * grid.cols
    out.append(f'<text x="{x0 + w * grid.cols / 2 if centred else x0:g}" y="{y + 14:g}" '
               f'text-anchor="{"middle" if centred else "start"}" font-weight="bold" '
               f'font-size="13">{html.escape(grid.title)}</text>')
    for c in range(grid.cols):
        out.append(f'<text class="col-label" x="{x0 + (c + 0.5) * w:g}" y="{y0 - h / 2 + 4:g}" '
                   f'text-anchor="middle" font-weight="bold">{c}</text>')
    for r in range(grid.rows):
        out.append(f'<text class="row-label" x="{x + w / 2:g}" y="{y0 + (r + 0.5) * h + 4:g}" '
                   f'text-anchor="middle" font-weight="bold">{r}</text>')
        for c in range(grid.cols):
            key = grid.cells.get((r, c))
            fill = colour(key) if key is not None else "#ffffff"
            cx, cy = x0 + c * w, y0 + r * h
            out.append(f'<rect x="{cx:g}" y="{cy:g}" width="{w:g}" height="{h:g}" '
                       f'fill="{html.escape(fill)}" stroke="#000000" stroke-width="0.5"/>')
            label = grid.label(r, c)
            if label:
                top = cy + h / 2 - _LINE_H * (len(label) - 1) / 2 + 4
                spans = "".join(f'<tspan x="{cx + w / 2:g}" y="{top + i * _LINE_H:g}">'
                                f'{html.escape(s)}</tspan>' for i, s in enumerate(label))
                out.append(f'<text class="cell" x="{cx + w / 2:g}" y="{top:g}" '
                           f'text-anchor="middle">{spans}</text>')
    out.append("</g>")
    return width, height


def layout_svg(layout, file: str | None = None, *, color=None) -> str:
    """The picture of a layout (or swizzled layout, tiled copy, MMA atom,
    tiled MMA) as an SVG document, returned and, when `file` is given,
    written there. A caption (the layout's text) on top; a layout is one
    grid of indices, a tiled copy its Src and Dst grids side by side, an MMA
    its B grid above C and A left of C, each cell `T<thread>` over
    `V<value>`. Each grid is a `<g class="grid">` whose data-x / data-y are
    the top-left corner of cell (0, 0) and data-cell-width /
    data-cell-height the pitch of the cells. Colours as the module says."""
    import html
    fig = figure("layout_svg", layout)
    colour = fig.colour_of(color)
    w, h = _cell_size(fig)
    body = []
    top = _PAD + _CAPTION_H * len(fig.caption) + 6
    for i, line in enumerate(fig.caption):
        body.append(f'<text class="caption" x="{_PAD:g}" y="{_PAD + 11 + i * _CAPTION_H:g}" '
                    f'xml:space="preserve">{html.escape(line)}</text>')
    g = fig.grids
    if fig.kind == "layout":
        gw, gh = _svg_grid(body, g["Layout"], _PAD, top, w, h, colour)
        width, height = gw, gh
    elif fig.kind == "copy":
        sw, sh = _svg_grid(body, g["Src"], _PAD, top, w, h, colour)
        dw, dh = _svg_grid(body, g["Dst"], _PAD + sw + _GAP, top, w, h, colour)
        width, height = sw + _GAP + dw, max(sh, dh)
    else:
        a_width = _grid_width(g["A"], w)
        bw, bh = _svg_grid(body, g["B"], _PAD + a_width + _GAP, top, w, h, colour)
        aw, ah = _svg_grid(body, g["A"], _PAD, top + bh + _GAP, w, h, colour)
        _svg_grid(body, g["C"], _PAD + a_width + _GAP, top + bh + _GAP, w, h, colour)
        width, height = a_width + _GAP + bw, bh + _GAP + ah
    caption_w = _CHAR_W * max(len(s) for s in fig.caption)
    total_w = _PAD * 2 + max(width, caption_w)
    total_h = top + height + _PAD
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:g}" height="{total_h:g}" '
           f'viewBox="0 0 {total_w:g} {total_h:g}" font-family="{_FONT}" font-size="11">\n'
           f'<rect x="0" y="0" width="{total_w:g}" height="{total_h:g}" fill="#ffffff"/>\n'
           + "\n".join(body) + "\n</svg>\n")
    if file is not None:
        try:
            with open(file, "w") as f:
                f.write(svg)
        except OSError as err:
            fail("layout_svg", f"cannot write {file}: {err.strerror}")
    return svg

