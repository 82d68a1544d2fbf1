#!/usr/bin/env python3
"""Run a GPU test suite written for FlyDSL (its own `tests/`, or a user's)
on the emulator, file by file, and print a table of the outcomes.

    scripts/flydsl_suite.py --arch gfx942 path/to/FlyDSL/tests \
        --exclude tests/mlir --exclude tests/kernels

Each file runs in its own pytest process with the emulated GPU plugin
(`-p flydsl.testing.emulated_gpu`), from the file's directory tree root so
that its conftest.py files apply, and with a time budget; the table gives
the chip, passed / failed / skipped / errors and seconds per file, then the
totals. `--arch-for TEXT=CHIP` runs the files whose path contains TEXT on
that chip instead of `--arch`'s (repeatable, the first match wins), e.g.
`--arch-for gfx950=gfx950 --arch-for rdna=gfx1201` for a kernel suite
whose files target several chips.
`--failures FILE` writes each failed test's short reason there; arguments
after `--` go to each pytest.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def run_file(path: Path, root: Path, arch: str, budget: int, extra: list[str]):
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env = dict(os.environ, ARCH=arch)
        env.pop("FLYDSL_GPU_ARCH", None)
        start = time.perf_counter()
        try:
            out = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "flydsl.testing.emulated_gpu",
                 "-p", "no:cacheprovider", "--junitxml", str(report), *extra,
                 str(path.relative_to(root))],
                cwd=root, env=env, capture_output=True, text=True, timeout=budget)
            tail = (out.stdout + out.stderr)[-3000:]
        except subprocess.TimeoutExpired:
            return {"file": path, "arch": arch, "timeout": True, "seconds": budget,
                    "failures": []}
        seconds = time.perf_counter() - start
        counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
        failures = []
        if report.exists():
            for case in ET.parse(report).getroot().iter("testcase"):
                name = f"{case.get('classname')}::{case.get('name')}"
                outcome = "passed"
                for child in case:
                    if child.tag in ("failure", "error"):
                        outcome = "failed" if child.tag == "failure" else "errors"
                        # the message, else the traceback's last line (a
                        # collection error says only "collection failure")
                        lines = [ln for ln in (child.text or "").splitlines() if ln.strip()]
                        why = child.get("message") or ""
                        if lines and why in ("", "collection failure"):
                            why = lines[-1].strip()
                        failures.append((name, why[:300]))
                    elif child.tag == "skipped":
                        outcome = "skipped"
                        failures.append((name, "SKIP " + (child.get("message") or "")[:200]))
                counts[outcome] += 1
        else:
            failures.append((str(path), tail))
            counts["errors"] += 1
        return {"file": path, "arch": arch, "timeout": False, "seconds": seconds, **counts,
                "failures": failures, "rc": out.returncode, "tail": tail}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", type=Path, help="the test tree (its conftest.py files apply)")
    parser.add_argument("--arch", default="gfx942")
    parser.add_argument("--arch-for", action="append", default=[], metavar="TEXT=CHIP",
                        help="the chip of the files whose path contains TEXT (repeatable)")
    parser.add_argument("--exclude", action="append", default=[],
                        help="a directory or file to leave out (repeatable)")
    parser.add_argument("--only", action="append", default=[],
                        help="run only files whose path contains this (repeatable)")
    parser.add_argument("--budget", type=int, default=1800, help="seconds per file")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--failures", type=Path, help="write each failure's reason here")
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.pytest_args = extra

    tests = args.tests.resolve()
    root = tests.parent
    excluded = [(Path.cwd() / e).resolve() for e in args.exclude]
    files = sorted(p for p in tests.rglob("test_*.py")
                   if not any(p == e or e in p.parents for e in excluded)
                   and (not args.only or any(o in str(p) for o in args.only)))
    rules = []
    for rule in args.arch_for:
        text, sep, chip = rule.partition("=")
        if not sep or not text or not chip:
            parser.error(f"--arch-for {rule!r}: expected TEXT=CHIP")
        rules.append((text, chip))

    def arch_of(path: Path) -> str:
        return next((chip for text, chip in rules if text in str(path)), args.arch)

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: run_file(p, root, arch_of(p), args.budget,
                                                   args.pytest_args), files))

    totals = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    print("| file | chip | passed | failed | skipped | errors | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in results:
        name = r["file"].relative_to(root)
        if r["timeout"]:
            print(f"| {name} | {r['arch']} | | | | timeout | {r['seconds']:.0f} |")
            continue
        for key in totals:
            totals[key] += r[key]
        print(f"| {name} | {r['arch']} | {r['passed']} | {r['failed']} | {r['skipped']} | "
              f"{r['errors']} | "
              f"{r['seconds']:.0f} |")
    print(f"| **total** ({len(files)} files) | | {totals['passed']} | {totals['failed']} | "
          f"{totals['skipped']} | {totals['errors']} | "
          f"{sum(r['seconds'] for r in results):.0f} |")
    if args.failures:
        with open(args.failures, "w") as out:
            for r in results:
                for name, why in r["failures"]:
                    out.write(f"{r['file'].relative_to(root)} :: {name}\n    {why}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
