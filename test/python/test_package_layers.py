"""The Python package's one-way layers (ARCHITECTURE.md): the tracing core
(flydsl.tracing) imports nothing of fx or the launch layer; fx
(flydsl.expr, and flydsl.extension on it) imports the core but not the
launch layer (flydsl.compiler); the launch layer sits on both. Each is
checked in a fresh interpreter by what importing it loads."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO_ROOT

LAYERS = [  # module imported, package prefixes it must not load
    ("flydsl.tracing.tracer", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl.tracing.ast_rewriter", ("flydsl.expr", "flydsl.compiler", "flydsl.extension")),
    ("flydsl.expr", ("flydsl.compiler",)),
    ("flydsl.extension.coop", ("flydsl.compiler",)),
]


def loaded_by(module: str) -> list[str]:
    code = (f"import sys; sys.path.insert(0, {str(REPO_ROOT / 'frontend' / 'python')!r})\n"
            f"import {module}\n"
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('flydsl'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("module,forbidden", LAYERS, ids=[m for m, _ in LAYERS])
def test_a_layer_does_not_import_the_layers_above(module, forbidden):
    above = [m for m in loaded_by(module) if m.startswith(forbidden)]
    assert not above, f"importing {module} loads {above}"


def test_the_launch_layer_stands_on_both():
    loaded = loaded_by("flydsl.compiler")
    assert "flydsl.expr" in loaded and "flydsl.tracing.tracer" in loaded
