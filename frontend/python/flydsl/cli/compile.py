"""`flydsl compile SCRIPT.py [--arch gfxNNN ...] [-j N] [-- ARGS ...]`:
ahead-of-time compilation. The script runs once per arch, in parallel
processes, with COMPILE_ONLY=1 and ARCH=<arch>: each of its @flyc.jit
calls (and flyc.compile calls) compiles for that chip into the disk cache
(FLYDSL_RUNTIME_CACHE_DIR) instead of running; then a table per arch
gives each compiled kernel's resources, as the code object's metadata
states them.

Each script process is `python -m flydsl.cli.compile REPORT SCRIPT ARGS`:
it runs the script as `__main__` and writes one JSON line per compile or
cache load (and one for an exception escaping the script) to REPORT."""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from ._output import UserError, table

_log = logging.getLogger("flydsl")

DESCRIPTION = """\
Run SCRIPT once per --arch with COMPILE_ONLY=1 and ARCH set, in up to N
parallel processes: every @flyc.jit / flyc.compile call it makes compiles
for that chip into the disk cache (FLYDSL_RUNTIME_CACHE_DIR, default
~/.flydsl/cache) without running. Then print, per arch, a table of the
compiled kernels: VGPRs, SGPRs, AGPRs, spills (VGPR/SGPR), static LDS
bytes, scratch bytes per lane, code bytes, wave size, and whether the
artifact was compiled now (miss) or found in the cache (hit) with its key
prefix. A script that raises is reported with its file:line and the exit
status is 1. Arguments after -- are passed to the script (sys.argv).
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid job count {text!r}: a positive integer")
    return value


def _add_options(parser) -> None:
    parser.add_argument("--arch", action="append", default=[], metavar="gfxNNN",
                        help="a chip to compile for; repeat it or give a comma-separated "
                             "list (default: ARCH, else the device's, else gfx942)")
    parser.add_argument("-j", "--jobs", type=_positive, default=os.cpu_count() or 1,
                        metavar="N",
                        help="processes at once (default: the number of cores, %(default)s here)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show what the script prints on stdout")


def add_parser(sub) -> None:
    """Registers the verb on the `flydsl` parser's subparsers."""
    c = sub.add_parser("compile", help="compile a script's kernels for chips, filling the cache",
                       description=DESCRIPTION, usage="flydsl compile [-h] SCRIPT [--arch gfxNNN] "
                       "[-j N] [-v] [-- ARGS ...]",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("script", metavar="SCRIPT", help="the Python script whose jit calls to compile")
    c.add_argument("script_args", nargs=argparse.REMAINDER, metavar="-- ARGS",
                   help="arguments for the script, after --")
    _add_options(c)
    c.set_defaults(func=_cmd_compile)


def _split_arguments(args) -> list:
    """The script's arguments (after `--`); the options between SCRIPT and
    `--` are read into `args`."""
    rest = list(args.script_args)
    cut = rest.index("--") if "--" in rest else len(rest)
    head, tail = rest[:cut], rest[cut + 1:]
    if head:
        options = argparse.ArgumentParser(prog="flydsl compile SCRIPT", add_help=False)
        _add_options(options)
        known, unknown = options.parse_known_args(head, namespace=args)
        if unknown:
            raise UserError(f"unrecognized arguments: {' '.join(unknown)} (arguments for the "
                              "script go after --)")
    return tail


# ---------------------------------------------------------------- the parent

def _arches(requested: list) -> list:
    from flydsl import _fly

    chips = list(_fly.supported_chips())
    arches = []
    for item in requested:
        for name in (n.strip() for n in item.split(",")):
            if not name:
                continue
            match = next((c for c in chips if c.lower() == name.lower()), None)
            if match is None:
                raise UserError(f"unknown arch '{name}' (the known chips: {', '.join(chips)})")
            if match not in arches:
                arches.append(match)
    if arches:
        return arches
    from flydsl.compiler.env import Environment
    from flydsl.tracing.errors import FlyDSLError

    try:
        return [Environment.read().arch]
    except FlyDSLError as err:
        raise UserError(str(err)) from None


def _child_environment(arch: str) -> dict:
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, COMPILE_ONLY="1", ARCH=arch)
    # compiled for the chip, and compiled (not only looked up)
    for name in ("FLYDSL_RUNTIME_KIND", "FLYDSL_RUNTIME_RUN_ONLY"):
        env.pop(name, None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def _run_job(script: str, script_args: list, arch: str) -> dict:
    """Runs the script for one arch: its compiles, its error (if any), its
    output, its time."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="flydsl-compile-") as tmp:
        report = os.path.join(tmp, "report.jsonl")
        proc = subprocess.run([sys.executable, "-m", "flydsl.cli.compile", report, script,
                               *script_args], env=_child_environment(arch),
                              capture_output=True, text=True)
        records = []
        if os.path.exists(report):
            with open(report) as f:
                records = [json.loads(line) for line in f if line.strip()]
    compiles = [r for r in records if r["type"] == "compile"]
    errors = [r for r in records if r["type"] == "error"]
    error = None
    if errors:
        e = errors[-1]
        error = f"{e['file']}:{e['line']}: {e['message']}" if e.get("file") else e["message"]
    elif proc.returncode != 0:
        error = f"{script}: the script process ended with status {proc.returncode}"
    return {"arch": arch, "compiles": compiles, "error": error, "status": proc.returncode,
            "stdout": proc.stdout, "stderr": proc.stderr, "seconds": time.perf_counter() - start}


HEADER = ("function", "kernel", "vgpr", "sgpr", "agpr", "spill v/s", "lds", "scratch",
          "code", "wave", "cache")


def resource_rows(compiles: list) -> list:
    """The table's rows (HEADER's columns), one per kernel of each compile."""
    rows = []
    for c in compiles:
        outcome = c["cache"] + (f" {c['key'][:16]}" if c["key"] else "")
        for k in c["kernels"]:
            r = k["resources"]
            rows.append((c["function"], k["name"], r["vgprs"], r["sgprs"], r["agprs"],
                         f"{r['vgpr_spills']}/{r['sgpr_spills']}", r["lds_bytes"],
                         r["scratch_bytes"], r["code_bytes"],
                         r["wave_size"], outcome))
    return rows


def _summary(job: dict) -> str:
    n = len(job["compiles"])
    hits = sum(c["cache"] == "hit" for c in job["compiles"])
    state = f"failed: {job['error']}" if job["error"] else "ok"
    return (f"{job['arch']}: {state} ({n} compile{'s' * (n != 1)}: {n - hits} compiled, "
            f"{hits} from the cache; {job['seconds']:.2f} s)")


def _cmd_compile(args) -> int:
    from flydsl.compiler.env import Environment
    from flydsl.tracing.errors import FlyDSLError

    script = os.path.abspath(args.script)
    if not os.path.isfile(script):
        raise UserError(f"no such script: {args.script}")
    script_args = _split_arguments(args)
    arches = _arches(args.arch)
    try:
        Environment.current()  # the flydsl logger, at FLYDSL_DEBUG_LOG_LEVEL
    except FlyDSLError as err:
        raise UserError(str(err)) from None

    lock = threading.Lock()

    def job(arch):
        result = _run_job(script, script_args, arch)
        with lock:  # the script's stderr (its log lines, a traceback) in one piece
            sys.stderr.write(result["stderr"])
            sys.stderr.flush()
            _log.info("compile job %s for %s: %s", args.script, arch,
                      _summary(result).split(": ", 1)[1])
        return result

    with ThreadPoolExecutor(max_workers=min(args.jobs, len(arches))) as pool:
        jobs = list(pool.map(job, arches))
    failed = False
    for i, result in enumerate(jobs):
        if args.verbose and result["stdout"]:
            sys.stdout.write(result["stdout"])
        if i:
            print()
        print(_summary(result))
        rows = resource_rows(result["compiles"])
        if rows:
            print("\n".join(table([HEADER] + rows)))
        failed = failed or result["error"] is not None
    sys.stdout.flush()
    return 1 if failed else 0


# ---------------------------------------------------------------- the child

def _location(err: BaseException, script: str):
    """(file, line) to report for an exception out of the script: a FlyDSL
    error's user location, else the innermost frame in the script, else the
    innermost frame."""
    if getattr(err, "filename", None) and getattr(err, "lineno", None):
        return err.filename, err.lineno
    frames = traceback.extract_tb(err.__traceback__)
    mine = [f for f in frames if os.path.realpath(f.filename) == script]
    frame = (mine or frames or [None])[-1]
    return (frame.filename, frame.lineno) if frame else (script, 0)


def _child(argv: list) -> int:
    import runpy

    from flydsl.compiler import jit_function

    report_path, script, *script_args = argv
    script = os.path.realpath(script)
    report = open(report_path, "a")

    def write(record):
        report.write(json.dumps(record) + "\n")
        report.flush()

    def observe(record, compiled):
        write({"type": "compile", **record,
               "kernels": [{"name": k["name"], "resources": k["resources"]}
                           for k in compiled.kernels]})

    jit_function.compile_observers.append(observe)
    sys.argv = [script, *script_args]
    sys.path[0] = os.path.dirname(script)
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit:
        if exit.code not in (None, 0):
            write({"type": "error", "file": None, "line": None,
                   "message": f"{script}: the script exited with {exit.code!r}"})
            return exit.code if isinstance(exit.code, int) else 1
    except BaseException as err:
        file, line = _location(err, script)
        tb = err.__traceback__  # from the script's frames on
        while tb is not None and os.path.realpath(tb.tb_frame.f_code.co_filename) != script:
            tb = tb.tb_next
        traceback.print_exception(type(err), err, tb or err.__traceback__)
        message = f"{type(err).__name__}: {getattr(err, 'bare_message', err)}"
        write({"type": "error", "file": file, "line": line, "message": message})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
