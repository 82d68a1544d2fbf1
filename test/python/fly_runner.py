"""Run many small IR cases through one `fly-opt --split-input-file` call.

Each case is one `func.func @NAME() { ... return }` chunk. The result tells,
per case, the ops fly-opt printed back (name and result type text) or the
diagnostics it reported on the case's lines. A crash of the whole process is
reported as such, and `find_crashers` narrows it down to the cases that
crash on their own.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "Assertion", "LLVM ERROR", "Segmentation fault")
SPLIT = "// -----"


@dataclass
class Case:
    name: str
    body: list  # IR lines inside the function (no `return`)
    args: str = ""  # function arguments, e.g. "%a: i32"


@dataclass
class CaseResult:
    ops: list = field(default_factory=list)  # [(op name, result type text)]
    lines: list = field(default_factory=list)  # printed lines of the function, aliases resolved
    errors: list = field(default_factory=list)  # diagnostic lines
    printed: bool = False


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    cases: dict  # name -> CaseResult
    filename: str

    @property
    def crashed(self) -> bool:
        return self.returncode < 0 or any(m in self.stderr for m in CRASH_MARKERS)


def case_text(case: Case) -> str:
    lines = [f"func.func @{case.name}({case.args}) {{"]
    lines += ["  " + ln for ln in case.body]
    lines += ["  return", "}"]
    return "\n".join(lines)


def build_module(cases):
    """The split file and, per case, its [first, last] line numbers."""
    out, ranges, line = [], {}, 1
    for i, case in enumerate(cases):
        if i:
            out.append(SPLIT)
            line += 1
        text = case_text(case)
        n = text.count("\n") + 1
        ranges[case.name] = (line, line + n - 1)
        out.append(text)
        line += n
    return "\n".join(out) + "\n", ranges


_ALIAS = re.compile(r"^(![A-Za-z_][\w.$-]*) = (.*)$")
_FUNC = re.compile(r"func\.func @([\w.$-]+)\(")
_OP = re.compile(r"=\s*(fly(?:_rocdl)?\.[\w.]+)")
_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note|remark): (.*)$")


def resolve_aliases(text: str, aliases: dict) -> str:
    if not aliases:
        return text
    # Longest names first so that !a1 does not eat the prefix of !a10.
    for name in sorted(aliases, key=len, reverse=True):
        text = re.sub(re.escape(name) + r"(?![\w.$-])", lambda _m, v=aliases[name]: v, text)
    return text


def parse_output(stdout: str, cases: dict):
    for chunk in stdout.split(SPLIT):
        aliases = {}
        for ln in chunk.splitlines():
            m = _ALIAS.match(ln.strip())
            if m and not ln.startswith(" "):
                aliases[m.group(1)] = resolve_aliases(m.group(2), aliases)
        current = None
        for ln in chunk.splitlines():
            m = _FUNC.search(ln)
            if m:
                current = cases.setdefault(m.group(1), CaseResult())
                current.printed = True
                current.lines.append(resolve_aliases(ln, aliases))
                continue
            if current is None:
                continue
            ln = resolve_aliases(ln, aliases)
            current.lines.append(ln)
            m = _OP.search(ln)
            if m and m.group(1) != "fly.static":
                result = ln.rsplit(" -> ", 1)[1].strip() if " -> " in ln else None
                current.ops.append((m.group(1), result))


def parse_diagnostics(stderr: str, ranges: dict, cases: dict, filename: str):
    spans = sorted((lo, hi, name) for name, (lo, hi) in ranges.items())
    for ln in stderr.splitlines():
        m = _DIAG.match(ln)
        if not m or m.group(4) != "error":
            continue
        line = int(m.group(2))
        for lo, hi, name in spans:
            if lo <= line <= hi:
                cases.setdefault(name, CaseResult()).errors.append(ln)
                break


def run(fly_opt: str, cases, extra_args=(), timeout=300, split=True) -> RunResult:
    """split=True: one chunk per case (`--split-input-file`). split="auto":
    first the whole file as one module (much faster: fly-opt sets up a
    context per chunk), and only if that fails, again chunk by chunk."""
    text, ranges = build_module(cases)
    with tempfile.TemporaryDirectory(prefix="flytest") as d:
        path = os.path.join(d, "cases.mlir")
        with open(path, "w") as f:
            f.write(text)
        base = [fly_opt, *extra_args, path]
        proc = None
        if split == "auto":
            proc = subprocess.run(base, capture_output=True, text=True, timeout=timeout)
            if proc.returncode != 0 or any(m in proc.stderr for m in CRASH_MARKERS):
                proc = None
        if proc is None:
            proc = subprocess.run([fly_opt, "--split-input-file", *extra_args, path],
                                  capture_output=True, text=True, timeout=timeout)
    results = {c.name: CaseResult() for c in cases}
    parse_output(proc.stdout, results)
    parse_diagnostics(proc.stderr, ranges, results, path)
    return RunResult(proc.returncode, proc.stdout, proc.stderr, results, path)


def find_crashers(fly_opt: str, cases, extra_args=(), limit=5):
    """Bisect a crashing batch down to single crashing cases."""
    found = []

    def go(group):
        if len(found) >= limit:
            return
        r = run(fly_opt, group, extra_args)
        if not r.crashed:
            return
        if len(group) == 1:
            found.append((group[0], r.returncode, tail(r.stderr)))
            return
        mid = len(group) // 2
        go(group[:mid])
        go(group[mid:])

    go(list(cases))
    return found


def tail(text: str, n=12) -> str:
    return "\n".join(text.splitlines()[-n:])


def seed_from_env(default: int = 20250601) -> int:
    """Seed of a randomized test: $FLY_TEST_SEED or a fixed default, so a
    failure reproduces by exporting the seed its message prints."""
    return int(os.environ.get("FLY_TEST_SEED", default))
