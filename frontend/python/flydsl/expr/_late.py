"""Functions a lower module of fx calls but a higher one defines.

fx is built in one-way layers (numeric at the bottom; then the elementwise
emitters, arith and math; the layout types of `typing`; `primitive` and
the modules on it). A value class near the bottom still has methods whose
work is done above it: `Float32.exp2()` is fx.math.exp2, `Layout.idx2crd`
is fx.idx2crd, `Vector.select` the elementwise select. Such a method calls
`late.<name>`, and the module that defines the function provides it here
when it is imported (`provide(exp2=exp2)`), so no module imports one above
it. Importing flydsl.expr imports every providing module, so every name is
there before traced code runs.
"""

from __future__ import annotations


class _Late:
    """The provided functions, as attributes (plain instance attributes, so
    that a call costs what a module global's does)."""

    def __getattr__(self, name: str):  # only for a name not provided
        raise AttributeError(
            f"fx's {name!r} is provided by a module of flydsl.expr that is not imported "
            "yet (import flydsl.expr first)")


late = _Late()


def provide(**functions) -> None:
    """Make each `name=function` available as `late.name`; a name is
    provided once (two modules providing one name is a layering mistake)."""
    provided = vars(late)
    for name, fn in functions.items():
        if provided.get(name, fn) is not fn:
            raise RuntimeError(f"fx's late-bound {name!r} is provided twice")
        provided[name] = fn
