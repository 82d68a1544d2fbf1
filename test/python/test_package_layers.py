"""The Python package's one-way layers (ARCHITECTURE.md).

From the bottom: the native extensions and utilities; the tracing core
(flydsl.tracing: text builder, values, types, locations, errors, control
flow); the device queries (flydsl.runtime); the raw MLIR builders
(flydsl._mlir); fx (flydsl.expr) and the extensions on it
(flydsl.extension); the launch layer and the tools on top (flydsl.compiler,
flydsl.testing, flydsl.cli, the package itself).

Two checks read every import statement of the package, those inside
functions included: no module imports a layer above its own, and no
modules import each other in a circle (within a layer a lower module never
reaches back to a higher one; fx's value classes call what is defined above
them through flydsl.expr._late). A third imports each layer in a fresh
interpreter and looks at what that loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

PACKAGE_ROOT = REPO_ROOT / "frontend" / "python"

LAYERS = [  # bottom first: module-name prefixes
    ("flydsl._fly", "flydsl._fly_runtime", "flydsl._fly_compiler", "flydsl.utils"),
    ("flydsl.tracing",),
    ("flydsl.runtime",),
    ("flydsl._mlir",),
    ("flydsl.expr", "flydsl.utils.smem_allocator"),  # (FlyDSL's path for an IR builder)
    ("flydsl.extension",),
    ("flydsl.compiler", "flydsl.testing", "flydsl.cli", "flydsl.autotune", "flydsl.__main__",
     "flydsl"),
]


def layer_of(module: str) -> int:
    best, depth = None, -1
    for rank, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and p.count(".") > depth:
                best, depth = rank, p.count(".")
    assert best is not None, module
    return best


def package_modules() -> dict[str, Path]:
    modules = {}
    for path in (PACKAGE_ROOT / "flydsl").rglob("*.py"):
        parts = path.relative_to(PACKAGE_ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imports_of(module: str, path: Path, known) -> set[str]:
    """The package's modules `module` imports anywhere in its code."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            # `from pkg import name` imports pkg.name when that is a module
            names = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin
                     for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known and n != module)
    return found


@pytest.fixture(scope="module")
def graph():
    modules = package_modules()
    known = set(modules) | {"flydsl._fly_runtime", "flydsl._fly_compiler"}
    return {m: imports_of(m, p, known) for m, p in modules.items()}


def test_no_module_imports_a_layer_above_its_own(graph):
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                    if layer_of(d) > layer_of(m))
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_no_import_cycles(graph):
    """Tarjan's strongly connected components of the import graph."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "modules importing each other in a circle: " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_the_checks_see_function_local_imports(graph):
    # numeric's methods reach fx.math through _late, never by an import
    assert "flydsl.expr.math" not in graph["flydsl.expr.numeric"]
    assert "flydsl.expr._late" in graph["flydsl.expr.numeric"]
    assert "flydsl.runtime.device" in graph["flydsl.expr._warp"]  # a function-local import


LOADED = [  # module imported in a fresh interpreter, package prefixes it must not load
    ("flydsl.tracing.tracer", ("flydsl.expr", "flydsl.compiler", "flydsl.extension", "flydsl._mlir")),
    ("flydsl.tracing.ast_rewriter", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl._mlir.ir", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl._mlir.dialects.arith", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl._mlir.passmanager", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl.expr", ("flydsl.compiler",)),
    ("flydsl.extension.coop", ("flydsl.compiler",)),
]


def loaded_by(module: str) -> list[str]:
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE_ROOT)!r})\n"
            f"import {module}\n"
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('flydsl'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("module,forbidden", LOADED, ids=[m for m, _ in LOADED])
def test_a_layer_does_not_load_the_layers_above(module, forbidden):
    above = [m for m in loaded_by(module) if m.startswith(forbidden)]
    assert not above, f"importing {module} loads {above}"


def test_the_launch_layer_stands_on_both():
    loaded = loaded_by("flydsl.compiler")
    assert "flydsl.expr" in loaded and "flydsl.tracing.tracer" in loaded
