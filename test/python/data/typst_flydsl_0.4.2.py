"""Writes typst_flydsl_0.4.2.json: the cells of FlyDSL 0.4.2's
fx.utils.print_typst pictures of a few layouts, a tiled copy and a tiled
MMA, read back with ../typst_cells.py. Run with FlyDSL 0.4.2 itself:

  COMPILE_ONLY=1 ROCM_PATH=/opt/fake-rocm ARCH=gfx950 \
      /opt/flydsl-0.4.2/bin/python test/python/data/typst_flydsl_0.4.2.py
"""
import json
import os
import sys
import tempfile

import flydsl.compiler as flyc
import flydsl.expr as fx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import typst_cells  # noqa: E402

OUT = tempfile.mkdtemp()
TEXTS = {}


def draw(name, obj):
    path = os.path.join(OUT, name + ".typ")
    fx.utils.print_typst(obj, file=path)
    TEXTS[name] = str(obj)


@flyc.jit
def pictures():
    draw("layout", fx.make_layout((4, 8), (1, 4)))
    draw("nested", fx.make_layout(((2, 2), 4), ((1, 8), 2)))
    draw("swizzle_303", fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 0, 3)),
                                                fx.make_ordered_layout((8, 8), (1, 0))))
    draw("swizzle_333", fx.make_composed_layout(fx.static(fx.SwizzleType.get(3, 3, 3)),
                                                fx.make_layout((8, 64), (64, 1))))
    atom = fx.make_copy_atom(fx.UniversalCopy32b(), fx.Float32)
    draw("tiled_copy", fx.make_tiled_copy_tv(atom, fx.make_ordered_layout((4, 8), (1, 0)),
                                             fx.make_layout((1, 4), (1, 1))))
    draw("tiled_mma", fx.make_tiled_mma(fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 16, fx.Float16)),
                                        fx.make_layout((2, 2, 1), (1, 2, 0))))


pictures()
data = {"origin": "FlyDSL 0.4.2 fx.utils.print_typst, by test/python/data/typst_flydsl_0.4.2.py",
        "cases": {}}
for name, printed in TEXTS.items():
    with open(os.path.join(OUT, name + ".typ")) as f:
        data["cases"][name] = {"printed": printed, "grids": typst_cells.grids(f.read())}
with open(os.path.join(HERE, "typst_flydsl_0.4.2.json"), "w") as f:
    json.dump(data, f, separators=(",", ":"))
    f.write("\n")
