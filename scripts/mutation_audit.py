#!/usr/bin/env python3
"""Plants known bugs, one at a time, and checks that the test suite catches each.

Each mutation below is a one-place change to the product's source (an
algebra condition, an alignment rule, an emulator lane or rounding, a
buffer range check, a cache-key component, an fx.arith formula, the AST
rewriter's loop-carried names) that a test must notice. For each one the
script applies it, rebuilds when it touched C++ (ninja -C build), runs
pytest over test/python with -x (stop at the first failure), records the
first failing test and the seconds it took, and restores the file (also on
an error or Ctrl-C) and rebuilds. It ends with a table and exits 1 when a
mutation went uncaught.

    scripts/mutation_audit.py                  # every mutation
    scripts/mutation_audit.py --list           # their names
    scripts/mutation_audit.py "cache key: the chip dropped" --tests test/python/test_frontend_cache.py

It refuses to start when a file it would mutate has uncommitted changes,
so it never mixes a mutation with work in progress. Tests run with -x, so a
mutation is reported by the first test file (in pytest's order) that
catches it; --tests narrows the run to show what a given file catches. A
test stuck in a hang is ended by the suite's per-test budget (300 s,
test/python/pytest.ini).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str
    old: str
    new: str


MUTATIONS = [
    Mutation("algebra: coalesce merges across basis directions", "compiler/lib/Algebra/Layout.cpp",
             "pd.basis() == d.basis() && ps.value() * pd.value() == d.value()) {",
             "ps.value() * pd.value() == d.value()) {"),
    Mutation("alignment: a pointer offset keeps the base's alignment",
             "compiler/lib/Dialect/Fly/IR/FlyMemoryOps.cpp",
             "  return std::min(alignment, int64_t(1) << shift);\n}", "  return alignment;\n}"),
    Mutation("alignment: copy loads claim the vector's width",
             "compiler/lib/Conversion/FlyToROCDL/FlyToROCDL.cpp",
             "  return LLVM::LoadOp::create(rewriter, loc, type, src,\n"
             "                              srcType.getAlignment());",
             "  return LLVM::LoadOp::create(rewriter, loc, type, src,\n"
             "                              std::max<int64_t>(srcType.getAlignment(), count * "
             "srcType.getElementType().getIntOrFloatBitWidth() / 8));"),
    Mutation("emulator lane: ds_bpermute wraps at 32 lanes", "runtime/emu/WaveOps.cpp",
             "uint32_t src = (w.aux[i] >> 2) & laneMask;", "uint32_t src = (w.aux[i] >> 2) & 31u;"),
    Mutation("emulator rounding: xf32 inputs not truncated to TF32", "runtime/emu/Matrix.cpp",
             "      bits &= ~0x1FFFu;", "      bits |= 0u;"),
    Mutation("emulator rounding: bf16 D truncated", "runtime/emu/Matrix.cpp",
             "h = uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1)) >> 16);", "h = uint16_t(bits >> 16);"),
    Mutation("buffer range: one dword past num_records in range", "runtime/emu/Buffer.cpp",
             "return offset + bytes <= rsrc->num_records;",
             "return offset + bytes <= rsrc->num_records + 4;"),
    Mutation("cache key: the chip dropped", "frontend/python/flydsl/compiler/cache_key.py",
             '                         ("chip", env.arch),\n', ""),
    Mutation("cache key: the options dropped", "frontend/python/flydsl/compiler/cache_key.py",
             '                         ("options", f"O{env.opt_level} debug_info={env.debug_info}")]',
             "                         ]"),
    Mutation("fx.arith: ceil_div without its round-up", "frontend/python/flydsl/expr/arith.py",
             "    return q + cast(inexact, cls)", "    return q"),
    Mutation("rewriter: a while loop's carried names dropped",
             "frontend/python/flydsl/compiler/ast_rewriter.py",
             "        names = _assigned(s.body)\n"
             "        self.scopes.append(_Scope(\"loop\", \"a `while` loop\", names))",
             "        names = []\n"
             "        self.scopes.append(_Scope(\"loop\", \"a `while` loop\", names))"),
]


def build():
    proc = subprocess.run(["ninja", "-C", str(REPO / "build")], capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"the build failed:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")


def run(mutation: Mutation, tests: list[str]) -> tuple[bool, str, float]:
    """(caught, the first failing test or pytest's last line, seconds)."""
    path = REPO / mutation.file
    original = path.read_text()
    count = original.count(mutation.old)
    if count != 1:
        sys.exit(f"{mutation.name}: the text to change occurs {count} times in {mutation.file} "
                 "(the source moved on: update the mutation)")
    native = not mutation.file.endswith(".py")
    try:
        path.write_text(original.replace(mutation.old, mutation.new))
        if native:
            build()
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               *tests], capture_output=True, text=True, cwd=REPO)
        seconds = time.monotonic() - start
    finally:
        path.write_text(original)
        if native:
            build()
    failed = re.findall(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", proc.stdout, re.M)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-200:]
    return proc.returncode != 0, failed[0] if failed else last, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="print the mutations' names and stop")
    parser.add_argument("--tests", nargs="+", default=["test/python"],
                        help="what pytest runs (default: test/python)")
    args = parser.parse_args()
    if args.list:
        print("\n".join(m.name for m in MUTATIONS))
        return 0
    chosen = [m for m in MUTATIONS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTATIONS}
    if unknown:
        sys.exit(f"no such mutation: {', '.join(sorted(unknown))} (see --list)")
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *{m.file for m in chosen}],
                           capture_output=True, text=True, cwd=REPO).stdout.strip()
    if dirty:
        sys.exit(f"uncommitted changes in files this would mutate:\n{dirty}")

    rows, missed = [], 0
    for m in chosen:
        caught, by, seconds = run(m, args.tests)
        missed += not caught
        rows.append((m.name, by if caught else f"MISSED ({by})", f"{seconds:.0f} s"))
        print(" | ".join(rows[-1]), flush=True)
    print("\n| mutation | caught by | seconds |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
