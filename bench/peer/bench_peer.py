"""This product against FlyDSL 0.4.2 on the same kernel sources (SPEC §12):
prints a table, never asserts.

The kernels are bench/peer/kernels/*.py, written in the shared API so that
both products import the very same file: each defines JIT (a @flyc.jit
function) and compile_args() (CPU tensors to compile it for). For each
kernel and each product, on one chip (default gfx942):
- cold ms: the first call of JIT with COMPILE_ONLY=1 (trace -> code
  object, nothing launched) in a fresh process with an empty disk cache,
  timed inside the process from just before the call to its return (imports
  and argument construction are outside, and a gc.collect() runs before the
  clock starts, so that neither product pays for the full collection that
  importing torch leaves due); the median of --repeat processes. FlyDSL
  loads its compiler (MLIR) when it is imported, this product on first use
  (SPEC 12); that load is made before the clock too, so both columns time
  the same work, and is shown on its own:
- compiler load ms: loading this product's compiler extension (libMLIR),
  the part of its first trace that FlyDSL does at import;
- cold CPU ms: the same call's CPU time (time.process_time, all threads of
  the process), which other load on the machine disturbs less than the
  wall clock;
- VGPRs, SGPRs, scratch bytes: the code object's kernel metadata
  (.vgpr_count, .sgpr_count, .private_segment_fixed_size) -- ours from the
  compiled function's .resources, FlyDSL's from the metadata in the ISA it
  dumps (FLYDSL_DUMP_IR=1: <dump dir>/<kernel>/*_final_isa.s);
- instructions: the machine instructions of the kernel's body up to its last
  s_endpgm, counted by one parser from our .isa() (a disassembly) and
  FlyDSL's dumped assembly (directives, labels and comments skipped);
and the ratio ours / FlyDSL of each.

FlyDSL runs in its own venv as a subprocess (COMPILE_ONLY=1, ROCM_PATH with
an llvm/bin/ld.lld, no PYTHONPATH); without that venv the table has our
column only and says so.

    python3 bench/peer/bench_peer.py [--chip gfx942] [--repeat 5]
        [--flydsl-python /opt/flydsl-0.4.2/bin/python] [--rocm-path /opt/fake-rocm]
        [--kernels vector_add,preshuffle_gemm]
"""

import argparse
import gc
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
KERNELS = ["vector_add", "buffer_copy", "tiled_mma", "preshuffle_gemm", "lds_mfma_gemm"]
METRICS = [("cold ms", "ms", "{:.1f}"), ("cold CPU ms", "cpu_ms", "{:.1f}"),
           ("compiler load", "load_ms", "{:.1f}"),
           ("VGPRs", "vgprs", "{:d}"), ("SGPRs", "sgprs", "{:d}"),
           ("scratch B", "scratch", "{:d}"), ("instructions", "instructions", "{:d}")]


# ---- the worker: runs in either product's interpreter ------------------------------

def load_kernel(name):
    spec = importlib.util.spec_from_file_location(f"peer_{name}", HERE / "kernels" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def instruction_count(asm):
    """Machine instructions of one kernel's text: lines whose first token is
    a mnemonic (not a directive, label or comment), up to the last
    s_endpgm (what follows it is padding)."""
    mnemonics = []
    for line in asm.splitlines():
        text = line.split("//")[0].split(";")[0].strip()
        if not text or text.startswith(".") or text.endswith(":"):
            continue
        token = text.split()[0]
        if re.fullmatch(r"[a-z][a-z0-9_]*", token):
            mnemonics.append(token)
    if "s_endpgm" in mnemonics:
        mnemonics = mnemonics[:len(mnemonics) - mnemonics[::-1].index("s_endpgm")]
    return len(mnemonics)


def flydsl_dump(dump_dir):
    """{kernel: figures} from FlyDSL's dumped final ISA files."""
    out = {}
    for path in sorted(Path(dump_dir).rglob("*final_isa.s")):
        asm = path.read_text()
        meta = asm[asm.index("amdhsa.kernels:"):] if "amdhsa.kernels:" in asm else ""
        # One "  - ." entry per kernel; its own keys are the ones indented by 4.
        for entry in re.split(r"\n  - (?=\.)", meta)[1:]:
            fields = dict(re.findall(r"^(?:    )?\.([a-z_]+):[ \t]+(\S+)$", entry, re.M))
            name = fields["name"]
            body = asm.split(f"\n{name}:", 1)[1].split(".Lfunc_end", 1)[0]
            out[name] = {"vgprs": int(fields["vgpr_count"]), "sgprs": int(fields["sgpr_count"]),
                         "scratch": int(fields["private_segment_fixed_size"]),
                         "instructions": instruction_count(body)}
    return out


def ours_figures(mod, args):
    import flydsl.compiler as flyc

    compiled = flyc.compile(mod.JIT, *args)
    isa = compiled.isa()
    out = {}
    for name, r in compiled.resources.items():
        body = isa.split(f"{name}:", 1)[1] if f"{name}:" in isa else isa
        out[name] = {"vgprs": r["vgprs"], "sgprs": r["sgprs"], "scratch": r["scratch_bytes"],
                     "instructions": instruction_count(body)}
    return out


def worker(name, product, mode):
    import flydsl

    mod = load_kernel(name)
    args = mod.compile_args()
    # The cyclic collector owes a full pass over torch's import-time objects
    # (about 100 ms here); whichever allocation comes next pays it. Pay it
    # before the clock starts, in both products, as timeit does by turning
    # the collector off.
    load_ms = None
    if product == "ours":  # what FlyDSL's import did: load the compiler
        from flydsl import _fly

        start = time.perf_counter()
        _fly.compiler()
        load_ms = (time.perf_counter() - start) * 1e3
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    mod.JIT(*args)
    ms = (time.perf_counter() - start) * 1e3
    cpu_ms = (time.process_time() - cpu) * 1e3
    result = {"ms": ms, "cpu_ms": cpu_ms, "load_ms": load_ms,
              "package": str(Path(flydsl.__file__).parent)}
    if mode == "inspect":
        result["kernels"] = (ours_figures(mod, args) if product == "ours"
                             else flydsl_dump(os.environ["FLYDSL_DUMP_DIR"]))
    print(json.dumps(result))


# ---- the driver ---------------------------------------------------------------

def run_worker(python, env, name, product, mode):
    with tempfile.TemporaryDirectory(prefix="fly-peer-") as tmp:
        env = dict(env, FLYDSL_RUNTIME_CACHE_DIR=str(Path(tmp) / "cache"))
        if mode == "inspect" and product == "flydsl":
            env.update(FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=str(Path(tmp) / "dump"))
        proc = subprocess.run([python, str(Path(__file__).resolve()), "--worker", name, "--product", product,
                               "--mode", mode], env=env, cwd=tmp, capture_output=True, text=True)
    if proc.returncode:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
        return {"error": tail}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(products, name, repeat):
    """{product: figures} of one kernel: an inspect run per product, then
    `repeat` timing runs, the products taking turns (so that both see the
    same load on the machine), and the median of each product's times."""
    results, times = {}, {}
    for product, (python, env) in products.items():
        info = run_worker(python, env, name, product, "inspect")
        kernels = info.get("kernels", {})
        if "error" not in info and len(kernels) != 1:
            info = {"error": f"expected one kernel, got {sorted(kernels)}"}
        results[product] = info if "error" in info else dict(next(iter(kernels.values())),
                                                             package=info["package"])
        times[product] = {"ms": [], "cpu_ms": []} | ({"load_ms": []} if product == "ours" else {})
    for _ in range(repeat):
        for product, (python, env) in products.items():
            if "error" in results[product]:
                continue
            run = run_worker(python, env, name, product, "time")
            if "error" in run:
                results[product] = run
            else:
                for key, values in times[product].items():
                    values.append(run[key])
    for product, figures in results.items():
        if "error" not in figures:
            figures.update({key: statistics.median(values) for key, values in times[product].items()})
    return results


def cell(fmt, value):
    return fmt.format(value) if value is not None else "-"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chip", default="gfx942")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flydsl-python", default="/opt/flydsl-0.4.2/bin/python")
    parser.add_argument("--rocm-path", default="/opt/fake-rocm")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--worker")
    parser.add_argument("--product", choices=["ours", "flydsl"])
    parser.add_argument("--mode", choices=["time", "inspect"])
    opts = parser.parse_args()
    if opts.worker:
        return worker(opts.worker, opts.product, opts.mode)

    base = {k: v for k, v in os.environ.items() if not k.startswith(("FLYDSL_", "PYTHONPATH"))}
    base.update(COMPILE_ONLY="1", ARCH=opts.chip)
    ours_env = dict(base, PYTHONPATH=str(REPO / "frontend" / "python"))
    fly_env = dict(base, ROCM_PATH=opts.rocm_path)
    have_flydsl = Path(opts.flydsl_python).exists()

    print(f"Same kernel sources (bench/peer/kernels) on {opts.chip}, COMPILE_ONLY=1: ours vs FlyDSL 0.4.2 "
          f"({opts.flydsl_python}).")
    print(f"cold ms: the first JIT call in a fresh process with an empty cache, median of {opts.repeat} "
          f"processes (load average at the start: {os.getloadavg()[0]:.1f}); registers and scratch: "
          "the kernel metadata; instructions: the kernel's ISA.")
    if not have_flydsl:
        print(f"FlyDSL's venv ({opts.flydsl_python}) is missing: our column only.")
    print(f"{'kernel':<17}{'metric':<14}{'ours':>10}{'FlyDSL':>10}{'ours/FlyDSL':>13}")
    products = {"ours": (sys.executable, ours_env)}
    if have_flydsl:
        products["flydsl"] = (opts.flydsl_python, fly_env)
    errors = []
    for name in opts.kernels.split(","):
        results = measure(products, name, opts.repeat)
        ours, theirs = results["ours"], results.get("flydsl", {})
        for product, figures in results.items():
            if "error" in figures:
                errors.append(f"{name}, {product}: {figures['error']}")
        for i, (label, key, fmt) in enumerate(METRICS):
            a, b = ours.get(key), theirs.get(key)
            if a is None or b is None:
                ratio = "-"
            else:
                ratio = f"{a / b:.2f}" if b else ("same" if a == b else "inf")
            print(f"{name if i == 0 else '':<17}{label:<14}{cell(fmt, a):>10}{cell(fmt, b):>10}{ratio:>13}")
    if have_flydsl and "package" in theirs:
        print(f"FlyDSL imported from {theirs['package']}")
    for line in errors:
        print("error:", line)


if __name__ == "__main__":
    sys.exit(main())
