"""Client of test/tools/fly-emu-run's generic mode: a ROCDL-level (or Fly
IR) kernel run once on the emulator with buffers and scalars from the
command line (`--arg=buf:i32:64:iota`, `--arg=i64:250`, ...), every buffer
printed after the launch."""

from __future__ import annotations

import subprocess


def i32_words(values):
    """32-bit words as the signed decimal list fly-emu-run's i32 buffers take."""
    return ",".join(str(int(v) - (1 << 32) if int(v) >= 1 << 31 else int(v)) for v in values)


def run_kernel(tool, kernel_file, kernel, chip, block, args, expect_ok=True):
    """The buffers after the launch, {argument index: [value text, ...]};
    with expect_ok=False, the launch must fail and its stderr is returned."""
    cmd = [tool, str(kernel_file), f"--kernel={kernel}", f"--chip={chip}",
           f"--block={block},1,1"] + [f"--arg={a}" for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if not expect_ok:
        assert proc.returncode != 0, proc.stdout
        return proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        name, _, values = line.partition(":")
        out[int(name[3:])] = values.split()
    return out
