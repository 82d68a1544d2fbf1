#!/usr/bin/env bash
# The pip path, end to end, in fresh virtual environments of the first
# python3 on PATH:
#
#   1. `pip wheel .` builds the wheel (scikit-build-core, pyproject.toml);
#      its files are the package, the extension and the two tools only;
#   2. the wheel is installed into a fresh venv and used with the build
#      directory moved away and no LD_LIBRARY_PATH or PYTHONPATH, from a
#      directory outside the checkout: examples/vector_add.py on the CPU
#      emulator, a module built with flydsl._mlir's generated dialect
#      modules, `flydsl env`, `fly-opt` and `fly-compile` from the venv's
#      bin/, the pytest plugin's entry point; the RUNPATH of every installed ELF file holds only
#      $ORIGIN-relative entries and the LLVM 22 library directory, and no
#      installed file names the build directory or the checkout;
#   3. `pip uninstall` removes every file it installed;
#   4. `pip install -e .` into a fresh venv: the package's Python files are
#      the checkout's, the extension and the tools the venv's; the example
#      runs again, then the uninstall removes every file again.
#
# Each pip build uses the same CMake build directory (FLY_PIP_BUILD_DIR,
# default build-pip/): the first build is a full one, the next ones reuse
# it. Any failure stops the script with a message and a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
BUILD_DIR=$(realpath -m "${FLY_PIP_BUILD_DIR:-$REPO/build-pip}")
LLVM_LIB=/usr/lib/llvm-22/lib
WORK=$(mktemp -d /tmp/fly-pip.XXXXXX)

log() { echo "[test_pip] $*"; }
die() { echo "[test_pip] FAILED: $*" >&2; exit 1; }

# The build directory is moved aside while the installed wheel is checked
# (step 2); put it back on any exit.
restore_build_dir() {
  if [ -d "$BUILD_DIR.away" ] && [ ! -e "$BUILD_DIR" ]; then mv -T "$BUILD_DIR.away" "$BUILD_DIR"; fi
  rm -rf "$BUILD_DIR.away"  # a stale one, when both are there
}
cleanup() {
  restore_build_dir
  rm -rf "$WORK"
}
trap cleanup EXIT
# A run that was killed in step 2 left the build directory moved aside.
restore_build_dir

PIP_ARGS=(--disable-pip-version-check --no-input)
BUILD_ARGS=(--config-settings=build-dir="$BUILD_DIR")

# in_venv VENV COMMAND...: run COMMAND with only the venv's bin/ and the
# system's on PATH, in $WORK (outside the checkout), with a clean
# environment (no PYTHONPATH, no LD_LIBRARY_PATH) and the CPU emulator.
in_venv() {
  local venv=$1
  shift
  (cd "$WORK" && env -i PATH="$venv/bin:/usr/bin:/bin" HOME="$WORK/home" \
     FLYDSL_RUNTIME_KIND=emu FLYDSL_RUNTIME_CACHE_DIR="$WORK/cache" "$@")
}

new_venv() {
  rm -rf "$1"
  "$PYTHON" -m venv "$1" || die "cannot make a venv with $PYTHON -m venv"
}

# installed_files VENV OUT: every file the flydsl distribution installed
# (its RECORD), one absolute path a line.
installed_files() {
  in_venv "$1" python -c '
import importlib.metadata as md, sys
files = md.files("flydsl")
if not files:
    sys.exit("flydsl has no RECORD")
for f in files:
    print(f.locate().resolve())
' >"$2" || die "cannot list the files of the installed flydsl in $1"
  [ -s "$2" ] || die "the installed flydsl lists no files"
}

# run_example VENV CHIP: examples/vector_add.py on the emulator of CHIP;
# it checks its results against numpy and ends with PASS.
run_example() {
  local out
  cp examples/vector_add.py "$WORK/vector_add.py"
  out=$(in_venv "$1" ARCH="$2" python vector_add.py 2>&1) ||
    die "examples/vector_add.py (ARCH=$2) exited non-zero:"$'\n'"$out"
  [ "$(tail -n 1 <<<"$out")" = PASS ] || die "examples/vector_add.py (ARCH=$2) did not end with PASS:"$'\n'"$out"
  ! grep -Eq 'WRONG|FAIL' <<<"$out" || die "examples/vector_add.py (ARCH=$2) reported a wrong result:"$'\n'"$out"
  log "examples/vector_add.py on the $2 emulator: PASS ($(grep -c ': ok$' <<<"$out") shapes ok)"
}

# check_pytest_plugin VENV: the package registers its pytest plugin
# (pytest11 entry point flydsl_emulated_gpu, switched on by
# FLYDSL_EMULATED_GPU), and the modules it names are installed.
check_pytest_plugin() {
  local out
  out=$(in_venv "$1" python -c '
import importlib.metadata as md, importlib.util
(ep,) = [e for e in md.entry_points(group="pytest11") if e.name == "flydsl_emulated_gpu"]
assert ep.value == "flydsl.testing.pytest_entry", ep.value
for name in ("flydsl.testing.pytest_entry", "flydsl.testing.emulated_gpu", "flydsl.testing.torch_cuda"):
    assert importlib.util.find_spec(name), name
print(ep.value)
' 2>&1) || die "the pytest plugin's entry point is missing:"$'\n'"$out"
  log "pytest11 entry point: flydsl_emulated_gpu = $out"
}

# check_mlir_builders VENV: flydsl._mlir's generated dialect modules build,
# verify and print a standalone module through the installed compiler.
check_mlir_builders() {
  local out
  out=$(in_venv "$1" python -c '
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, func
with ir.Context(), ir.Location.unknown():
    module = ir.Module.create()
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("add", ([i32, i32], [i32]))
        with ir.InsertionPoint(f.add_entry_block()):
            func.ReturnOp([arith.addi(*f.arguments)])
    assert module.operation.verify()
    assert "arith.addi %arg0, %arg1 : i32" in str(module), str(module)
print("ok")
' 2>&1) || die "flydsl._mlir does not build a module:"$'\n'"$out"
  log "flydsl._mlir: a standalone module built, verified and printed"
}

# check_commands VENV: the flydsl command and the tools, from VENV/bin.
check_commands() {
  local venv=$1 out tool
  for tool in flydsl fly-opt fly-compile; do
    [ "$(in_venv "$venv" sh -c "command -v $tool")" = "$venv/bin/$tool" ] ||
      die "$tool is not the venv's ($venv/bin/$tool) on its PATH"
  done
  out=$(in_venv "$venv" flydsl env 2>&1) || die "flydsl env failed:"$'\n'"$out"
  grep -q "^flydsl $VERSION$" <<<"$out" || die "flydsl env does not say 'flydsl $VERSION':"$'\n'"$out"
  grep -q '^emulator: available$' <<<"$out" || die "flydsl env has no emulator:"$'\n'"$out"
  grep -Eq '^gfx942 +CDNA3 +64 ' <<<"$out" || die "flydsl env lists no gfx942 (wave 64):"$'\n'"$out"
  log "flydsl env: $(head -n 1 <<<"$out"), $(grep -c '^gfx' <<<"$out") chips"
  out=$(in_venv "$venv" fly-opt --version 2>&1) || die "fly-opt --version failed:"$'\n'"$out"
  grep -q 'LLVM version 22\.' <<<"$out" || die "fly-opt --version names no LLVM 22:"$'\n'"$out"
  out=$(in_venv "$venv" fly-opt --help 2>&1) || die "fly-opt --help failed:"$'\n'"$out"
  grep -q -- '--fly-pipeline' <<<"$out" || die "fly-opt --help has no --fly-pipeline:"$'\n'"$out"
  # The tool at work: vector_add.mlir lowered by stage A for gfx942 holds
  # the ROCDL kernel.
  out=$(in_venv "$venv" fly-opt "$REPO/examples/vector_add.mlir" \
          '--fly-pipeline=stage=pre_binary chip=gfx942' 2>&1) ||
    die "fly-opt examples/vector_add.mlir --fly-pipeline failed:"$'\n'"$out"
  grep -q 'rocdl.kernel' <<<"$out" || die "fly-opt's stage pre_binary made no rocdl.kernel:"$'\n'"$out"
  out=$(in_venv "$venv" fly-compile --help 2>&1) || die "fly-compile --help failed:"$'\n'"$out"
  log "fly-opt: $(grep -m1 'LLVM version' <<<"$(in_venv "$venv" fly-opt --version)" | sed 's/^ *//'), --fly-pipeline works; fly-compile --help works"
}

# check_elf_files LIST: the RUNPATH (or RPATH) of every ELF file in LIST has
# only $ORIGIN-relative entries and the LLVM 22 library directory, and each
# finds every library it needs (ldd, with a clean environment).
check_elf_files() {
  local file entry dynamic runpath missing count=0
  while read -r file; do
    [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    count=$((count + 1))
    dynamic=$(readelf -d "$file") || die "readelf -d $file failed"
    runpath=$(sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]$/\2/p' <<<"$dynamic")
    [ -n "$runpath" ] || die "$file has no RUNPATH: it would not find libMLIR/libLLVM"
    IFS=: read -r -a entries <<<"$runpath"
    for entry in "${entries[@]}"; do
      case "$entry" in
        '$ORIGIN' | '$ORIGIN/'*) ;;
        "$LLVM_LIB" | "$LLVM_LIB/") ;;
        *) die "$file: RUNPATH entry $entry is neither \$ORIGIN-relative nor $LLVM_LIB" ;;
      esac
    done
    missing=$(env -i PATH=/usr/bin:/bin ldd "$file" | grep 'not found' || true)
    [ -z "$missing" ] || die "$file: libraries not found without LD_LIBRARY_PATH:"$'\n'"$missing"
    log "$(basename "$file"): RUNPATH $runpath"
  done <"$1"
  [ "$count" -ge 4 ] || die "expected at least 4 ELF files (_fly_runtime, _fly_compiler, fly-opt, fly-compile), found $count"
}

# check_no_build_paths LIST: no installed file names the build directory
# or the checkout.
check_no_build_paths() {
  local file
  while read -r file; do
    case "$file" in *.pyc) continue ;; esac
    for path in "$BUILD_DIR" "$REPO/"; do
      ! grep -qF "$path" "$file" || die "$file holds the path $path"
    done
  done <"$1"
}

# uninstall_and_check VENV LIST: pip uninstall removes every listed file.
uninstall_and_check() {
  local venv=$1 file left=()
  in_venv "$venv" python -m pip uninstall "${PIP_ARGS[@]}" -y flydsl >/dev/null ||
    die "pip uninstall flydsl failed in $venv"
  while read -r file; do
    [ ! -e "$file" ] || left+=("$file")
  done <"$2"
  [ ${#left[@]} -eq 0 ] || die "left after pip uninstall: ${left[*]}"
  in_venv "$venv" python -c 'import flydsl' 2>/dev/null && die "flydsl still imports after pip uninstall"
  for tool in flydsl fly-opt fly-compile; do
    [ ! -e "$venv/bin/$tool" ] || die "$venv/bin/$tool is left after pip uninstall"
  done
  log "pip uninstall removed all $(wc -l <"$2") files"
}

VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' frontend/python/flydsl/__init__.py)
[ -n "$VERSION" ] || die "no __version__ in frontend/python/flydsl/__init__.py"
log "flydsl $VERSION with $PYTHON; CMake build directory $BUILD_DIR"

# --- 1. pip wheel . -------------------------------------------------------------
venv=$WORK/venv
new_venv "$venv"
start=$(date +%s)
"$venv/bin/python" -m pip wheel "${PIP_ARGS[@]}" "${BUILD_ARGS[@]}" --no-deps -w "$WORK/wheelhouse" . ||
  die "pip wheel . failed"
wheels=("$WORK"/wheelhouse/flydsl-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || die "pip wheel made no single flydsl wheel: ${wheels[*]}"
wheel=${wheels[0]}
log "pip wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB, in $(($(date +%s) - start)) s"
# What the wheel holds: the package (its Python files and the extension),
# the two tools as scripts, and the metadata; nothing else.
"$PYTHON" - "$wheel" "$VERSION" "$REPO/frontend/python/flydsl" <<'EOF' || die "the wheel's contents are wrong"
import pathlib, sys, zipfile
wheel, version, package = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
names = set(zipfile.ZipFile(wheel).namelist())
data, info = f"flydsl-{version}.data/", f"flydsl-{version}.dist-info/"
errors = []
for name in sorted(names):
    if not (name.startswith(("flydsl/", info)) or name in (data + "scripts/fly-opt", data + "scripts/fly-compile")):
        errors.append(f"unexpected file {name}")
# Every Python file of the package (the source tree's, as git has them) is in.
sources = {f"flydsl/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")
           if "__pycache__" not in p.parts}
errors += [f"missing {s}" for s in sorted(sources - names)]
extensions = sorted(n for n in names if n.startswith("flydsl/_fly") and n.endswith(".so"))
if [n.split(".")[0] for n in extensions] != ["flydsl/_fly_compiler", "flydsl/_fly_runtime"]:
    errors.append(f"expected flydsl/_fly_compiler*.so and flydsl/_fly_runtime*.so, found {extensions}")
# flydsl._mlir's dialect modules, generated by the build (not in git).
generated = [f"flydsl/_mlir/dialects/_{name}_gen.py" for name in (
    "arith_ops", "arith_enum", "vector_ops", "vector_enum", "llvm_ops", "llvm_intr_ops",
    "llvm_enum", "rocdl_ops", "gpu_ops", "gpu_enum", "memref_ops", "math_ops", "scf_ops",
    "func_ops", "builtin_ops", "fly_ops", "fly_enum", "fly_rocdl_ops")]
errors += [f"missing the generated {g}" for g in generated if g not in names]
for script in ("fly-opt", "fly-compile"):
    if data + "scripts/" + script not in names:
        errors.append(f"missing the tool {script}")
if not any(n == info + "entry_points.txt" for n in names):
    errors.append("no entry_points.txt (the flydsl command)")
for line in errors:
    print("  " + line, file=sys.stderr)
print(f"[test_pip] the wheel holds {len(names)} files: {len(sources)} Python files, "
      f"{', '.join(extensions) or '-'}, fly-opt, fly-compile")
sys.exit(1 if errors else 0)
EOF

# --- 2. the wheel, installed, without its build directory --------------------------
mv -T "$BUILD_DIR" "$BUILD_DIR.away"
in_venv "$venv" python -m pip install "${PIP_ARGS[@]}" "$wheel" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; die "pip install of the wheel failed"; }
site=$(in_venv "$venv" python -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
where=$(in_venv "$venv" python -c 'import flydsl, flydsl._fly_runtime as r, flydsl._fly_compiler as c; print(flydsl.__file__); print(r.__file__); print(c.__file__)') ||
  die "import flydsl failed in the venv"
[ "$(sed -n 1p <<<"$where")" = "$site/flydsl/__init__.py" ] || die "flydsl is not the venv's: $where"
[[ "$(sed -n 2p <<<"$where")" == "$site/flydsl/_fly_runtime."*.so ]] || die "flydsl._fly_runtime is not the venv's: $where"
[[ "$(sed -n 3p <<<"$where")" == "$site/flydsl/_fly_compiler."*.so ]] || die "flydsl._fly_compiler is not the venv's: $where"
log "installed: $site/flydsl"
installed_files "$venv" "$WORK/files.txt"
check_elf_files "$WORK/files.txt"
check_no_build_paths "$WORK/files.txt"
run_example "$venv" gfx942
check_mlir_builders "$venv"
check_commands "$venv"
check_pytest_plugin "$venv"
mv -T "$BUILD_DIR.away" "$BUILD_DIR"

# --- 3. pip uninstall ------------------------------------------------------------
uninstall_and_check "$venv" "$WORK/files.txt"

# --- 4. pip install -e . ---------------------------------------------------------
venv=$WORK/venv-editable
new_venv "$venv"
start=$(date +%s)
(cd "$WORK" && "$venv/bin/python" -m pip install "${PIP_ARGS[@]}" "${BUILD_ARGS[@]}" -e "$REPO") \
  >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; die "pip install -e . failed"; }
log "pip install -e . in $(($(date +%s) - start)) s"
site=$(in_venv "$venv" python -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
where=$(in_venv "$venv" python -c 'import flydsl, flydsl._fly_compiler as f, flydsl.expr as fx; print(flydsl.__file__); print(f.__file__); print(fx.__file__)') ||
  die "import flydsl failed in the editable venv"
[ "$(sed -n 1p <<<"$where")" = "$REPO/frontend/python/flydsl/__init__.py" ] ||
  die "the editable flydsl is not the checkout's: $where"
[ "$(sed -n 3p <<<"$where")" = "$REPO/frontend/python/flydsl/expr/__init__.py" ] ||
  die "the editable flydsl.expr is not the checkout's: $where"
[[ "$(sed -n 2p <<<"$where")" == "$site/flydsl/_fly_compiler."*.so ]] ||
  die "the editable flydsl._fly_compiler is not the one installed in the venv: $where"
log "editable: flydsl from $REPO/frontend/python/flydsl, its extension from $site/flydsl"
installed_files "$venv" "$WORK/files.txt"
check_elf_files "$WORK/files.txt"
run_example "$venv" gfx1100
check_commands "$venv"
check_pytest_plugin "$venv"
uninstall_and_check "$venv" "$WORK/files.txt"
[ -f "$REPO/frontend/python/flydsl/__init__.py" ] || die "the uninstall removed the checkout's sources"

log "ok"
