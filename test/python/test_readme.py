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
