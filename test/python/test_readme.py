"""The README's first example (a FlyDSL-style kernel) runs as printed, on
the emulator for a wave64 and a wave32 chip, and prints PASS."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO_ROOT


def first_python_block() -> str:
    text = (REPO_ROOT / "README.md").read_text()
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "the README has no ```python example"
    return match.group(1)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_the_readme_kernel_runs_as_printed(tmp_path, arch):
    script = tmp_path / "readme_example.py"
    script.write_text(first_python_block())
    env = dict(os.environ, ARCH=arch, FLYDSL_RUNTIME_KIND="emu",
               FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("COMPILE_ONLY", None)
    env["PYTHONPATH"] = str(REPO_ROOT / "frontend" / "python")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "PASS", out.stdout


def test_the_readme_sanitizer_example_reports_what_it_shows(tmp_path):
    """The planted bug of "The emulator as a kernel sanitizer", run under
    FLYDSL_EMU_CHECK=1, fails with the report the README prints."""
    text = (REPO_ROOT / "README.md").read_text()
    section = text[text.index("## The emulator as a kernel sanitizer"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1).strip().splitlines()
    script = tmp_path / "planted.py"
    # The imports the example leaves out, on the lines the report counts.
    script.write_text("import torch\n\nimport flydsl.compiler as flyc\nimport flydsl.expr as fx\n"
                      "\n\n" + code)
    env = dict(os.environ, ARCH="gfx942", FLYDSL_RUNTIME_KIND="emu", FLYDSL_EMU_CHECK="1",
               FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("COMPILE_ONLY", None)
    env["PYTHONPATH"] = str(REPO_ROOT / "frontend" / "python")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert out.returncode == 1
    got = out.stderr.replace(str(script), "planted.py").strip().splitlines()[-len(shown):]
    assert got == shown, out.stderr
