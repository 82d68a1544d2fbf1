"""The flydsl command: `flydsl env`, `flydsl cache ...`, `flydsl layout ...`,
`flydsl compile ...` (cli/compile.py).

`main(argv=None) -> int` is the entry point (console script or
`python -m flydsl`)."""
import argparse
import json
import os
import re
import sys
import time

from . import layout
from ._output import UserError, table

__all__ = ["main"]


def _fly():
    from flydsl import _fly
    return _fly


# ---------------------------------------------------------------- env

def _env_data():
    import flydsl
    fly = _fly()
    status = dict(fly.hip_runtime_status())
    chips = []
    for name in fly.supported_chips():
        info = fly.chip_info(name)
        matrix = [m for m, has in (("mfma", info["has_mfma"]), ("wmma", info["has_wmma"])) if has]
        chips.append({"name": name, "family": info["family"], "wave_size": info["wave_size"],
                      "lds_bytes": info["lds_bytes_per_workgroup"],
                      "max_workgroup_size": info["max_workgroup_size"], "matrix": matrix})
    return {
        "version": flydsl.__version__,
        "toolchain_identity": fly.toolchain_identity(),
        "llvm_version": (re.search(r"llvm ([0-9][0-9.]*)", fly.toolchain_identity()) or [None, None])[1],
        "hip": {"library_found": bool(status.get("library_found")),
                "library": status.get("path") or status.get("library"),
                "device_count": status.get("device_count", 0),
                "error": status.get("error")},
        "emulator": True,
        "chips": chips,
    }


def _cmd_env(args):
    data = _env_data()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    hip = data["hip"]
    print(f"flydsl {data['version']}")
    print(f"toolchain: {data['toolchain_identity']}")
    print(f"LLVM: {data['llvm_version']}")
    if hip["library_found"]:
        print(f"HIP runtime: {hip['library']} loads, {hip['device_count']} device(s)")
    else:
        print("HIP runtime: libamdhip64.so not found")
    if hip["error"]:
        print(f"  {hip['error']}")
    print("emulator: available")
    print()
    rows = [("chip", "family", "wave", "LDS bytes", "max WG", "matrix")]
    for c in data["chips"]:
        rows.append((c["name"], c["family"], c["wave_size"], c["lds_bytes"],
                     c["max_workgroup_size"], ",".join(c["matrix"]) or "-"))
    print("\n".join(table(rows)))
    return 0


# ---------------------------------------------------------------- cache

def _cache_dir():
    from flydsl.compiler.env import Environment
    return Environment.read().cache_dir


def _cache(directory):
    """The disk cache in `directory`, or None when there is none yet (the
    listing verbs create nothing)."""
    return _fly().DiskCache.open(directory) if os.path.isdir(directory) else None


def _entries(cache):
    """[(digest, path, bytes, modified)] of every complete entry, as the
    C++ cache finds them (a file being written is none)."""
    return cache.entries() if cache is not None else []


def _age(seconds):
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= n:
            return f"{int(seconds // n)}{unit}"
    return f"{int(seconds)}s"


def _duration(text):
    m = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"invalid duration {text!r}: expected a number and a unit s, m, h or d (e.g. 7d, 12h, 30m)")
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def _remove(cache, entries):
    removed, nbytes = 0, 0
    for digest, _, size, _ in entries:
        if cache.remove(digest):
            removed += 1
            nbytes += size
    return removed, nbytes


def _cmd_cache(args):
    directory = _cache_dir()
    cache = _cache(directory)
    entries = _entries(cache)
    if cache is not None:
        directory = cache.directory
    if args.cache_cmd == "info":
        print(f"directory: {directory}")
        print(f"entries: {len(entries)}")
        print(f"bytes: {sum(e[2] for e in entries)}")
    elif args.cache_cmd == "list":
        now = time.time()
        for digest, _, size, modified in entries:
            print(f"{digest[:16]}  {size:>10}  {_age(max(0.0, now - modified))}")
    elif args.cache_cmd == "clear":
        n, b = _remove(cache, entries)
        print(f"removed {n} entries ({b} bytes) from {directory}")
    elif args.cache_cmd == "prune":
        cutoff = time.time() - args.older_than
        n, b = _remove(cache, [e for e in entries if e[3] < cutoff])
        print(f"removed {n} entries ({b} bytes) older than {_age(args.older_than)} from {directory}")
    return 0


# ---------------------------------------------------------------- main

def _parser():
    p = argparse.ArgumentParser(prog="flydsl", description="The FlyDSL command-line tool.")
    sub = p.add_subparsers(dest="cmd", metavar="VERB")
    sub.required = True
    e = sub.add_parser("env", help="version, toolchain, runtimes and the chip table",
                       description="Show the version, toolchain identity, runtimes and chip table.")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(func=_cmd_env)
    c = sub.add_parser("cache", help="inspect or clean the disk cache",
                       description="The disk cache (FLYDSL_RUNTIME_CACHE_DIR, default ~/.flydsl/cache).")
    cs = c.add_subparsers(dest="cache_cmd", metavar="ACTION")
    cs.required = True
    cs.add_parser("info", help="directory, entries, bytes", description="Directory, entry count, bytes.")
    cs.add_parser("list", help="one line per entry: key prefix, size, age",
                  description="One line per entry: key prefix, size in bytes, age.")
    cs.add_parser("clear", help="remove all entries", description="Remove every entry.")
    pr = cs.add_parser("prune", help="remove entries older than a duration",
                       description="Remove entries older than DURATION (e.g. 7d, 12h, 30m).")
    pr.add_argument("--older-than", required=True, type=_duration, metavar="DURATION")
    c.set_defaults(func=_cmd_cache)
    layout.add_parser(sub, layout.run)  # cli/layout.py
    from .compile import add_parser as add_compile_parser
    add_compile_parser(sub)
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except UserError as err:
        print(f"flydsl {args.cmd}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
