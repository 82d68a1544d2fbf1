#!/usr/bin/env bash
# Set up a Debian 12 machine, as root, to build and test FlyDSL.
#
# Installs what is missing and nothing else, so it can be run any number of
# times: on a machine that already has everything it only checks (a few
# seconds).
#   - Debian packages: LLVM/MLIR 22 (SPEC §1), cmake, ninja, g++, Python headers,
#     and Debian's HIP runtime (libamdhip64-5): the tests check the HIP
#     loader's no-device path against the real library (there is no GPU);
#   - Python tools, with the pip of the first python3 on PATH: lit, pytest,
#     pytest-timeout (a hung test fails with its name), numpy, nanobind, pycute (from the nvidia-cutlass wheel, without its
#     dependencies: we only need that pure-Python module, the algebra oracle),
#     blake3 (the reference the disk cache's hashes are tested against),
#     and torch's CPU build (the tests pass torch tensors to kernels);
#   - the flydsl package on that python3's path (a .pth file).
set -euo pipefail

DEBIAN_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 liblld-22-dev llvm-22-tools
  cmake ninja-build g++ python3-dev
  libamdhip64-5 librsvg2-bin
)
MLIR_CONFIG=/usr/lib/llvm-22/lib/cmake/mlir/MLIRConfig.cmake

log() { echo "[setup] $*"; }
die() { echo "[setup] error: $*" >&2; exit 1; }

# --- Debian 12 (or 13) --------------------------------------------------------
[ -r /etc/debian_version ] ||
  die "this is not a Debian system (no /etc/debian_version); FlyDSL is set up on Debian 12."
debian_version=$(cat /etc/debian_version)
# Debian 12 is the supported release. On Debian 13 we try the same package
# names and stop, naming the package, if its archive lacks one.
case "$debian_version" in
  12.*) debian_suites="bookworm, bookworm-updates, bookworm-security" ;;
  13.*) debian_suites="trixie, trixie-updates, trixie-security"
        log "Debian $debian_version: not the supported Debian 12; trying the same packages" ;;
  *) die "Debian $debian_version found; FlyDSL is set up on Debian 12 (bookworm)," \
         "whose archive has the LLVM/MLIR 22 packages (${DEBIAN_PACKAGES[*]})." ;;
esac

# --- Python: the first python3 on PATH --------------------------------------
command -v python3 >/dev/null || die "no python3 on PATH."
# Resolve wrappers such as pyenv's shims to the interpreter itself.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
log "using $PYTHON ($("$PYTHON" --version 2>&1)), the first python3 on PATH"
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  # Debian's own python3 gets pip from a package; any other python3 must
  # bring its own.
  [ "$PYTHON" = /usr/bin/python3 ] || die "$PYTHON has no pip (python3 -m pip)."
  DEBIAN_PACKAGES+=(python3-pip)
fi
# scripts/test_pip.sh makes virtual environments (python3 -m venv), which
# need ensurepip: Debian's python3 has it from a package.
if ! "$PYTHON" -c 'import ensurepip' >/dev/null 2>&1; then
  [ "$PYTHON" = /usr/bin/python3 ] || die "$PYTHON has no ensurepip (python3 -m venv needs it)."
  DEBIAN_PACKAGES+=(python3-venv)
fi

# --- Debian packages ---------------------------------------------------------
missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  log "Debian packages: all present"
else
  log "Debian packages to install: ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || die "installing packages needs root; run this script as root."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  for pkg in "${missing[@]}"; do
    candidate=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
    if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
      die "package $pkg is not in the archive of this Debian $debian_version machine" \
          "(check /etc/apt/sources.list*: $debian_suites)."
    fi
  done
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$MLIR_CONFIG" ]; then
  die "$MLIR_CONFIG is missing although libmlir-22-dev is installed:" \
      "CMake cannot find MLIR without it. Reinstall the package" \
      "(apt-get install --reinstall libmlir-22-dev) and check 'dpkg -L libmlir-22-dev'."
fi

# --- Python tools ------------------------------------------------------------
# Prints the pip package of each module that does not import. pycute must
# have Layout: an unrelated PyPI package is also named pycute, and only the
# module in the nvidia-cutlass wheel has the layout algebra.
missing_python_packages() {
  "$PYTHON" -c '
import importlib
for module, package in [("lit", "lit"), ("pytest", "pytest"),
                        ("pytest_timeout", "pytest-timeout"), ("numpy", "numpy"),
                        ("nanobind", "nanobind"), ("pycute", "nvidia-cutlass"),
                        ("blake3", "blake3"),
                        ("torch", "torch==2.13.0+cpu")]:
    try:
        importlib.import_module(module)
        if module == "pycute":
            importlib.import_module(module).Layout
    except (ImportError, AttributeError):
        print(package)
'
}

read -r -a pip_missing <<<"$(missing_python_packages | tr '\n' ' ')"
if [ ${#pip_missing[@]} -eq 0 ]; then
  log "Python tools: lit, pytest, pytest-timeout, numpy, nanobind, pycute, blake3, torch present"
else
  pip_args=(--disable-pip-version-check --no-input --root-user-action=ignore)
  # Debian's own python3 refuses pip installs unless told otherwise (PEP 668).
  stdlib=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
  [ ! -f "$stdlib/EXTERNALLY-MANAGED" ] || pip_args+=(--break-system-packages)
  plain=()
  for pkg in "${pip_missing[@]}"; do
    [ "$pkg" = nvidia-cutlass ] || plain+=("$pkg")
  done
  if [ ${#plain[@]} -gt 0 ]; then
    log "pip install ${plain[*]}"
    "$PYTHON" -m pip install "${pip_args[@]}" "${plain[@]}"
  fi
  if [[ " ${pip_missing[*]} " == *" nvidia-cutlass "* ]]; then
    log "pip install --no-deps nvidia-cutlass (for its pycute module)"
    "$PYTHON" -m pip install "${pip_args[@]}" --no-deps nvidia-cutlass
  fi
  # pyenv shows new console scripts (lit, pytest) on PATH only after a rehash.
  if command -v pyenv >/dev/null; then pyenv rehash; fi
  still_missing=$(missing_python_packages | tr '\n' ' ')
  [ -z "$still_missing" ] ||
    die "still not importable with $PYTHON after pip install: $still_missing" \
        "(if pycute is the one: an unrelated PyPI package is also named pycute; pip uninstall pycute)."
fi

# --- the flydsl package -------------------------------------------------------
# `import flydsl` works in any interpreter of $PYTHON, from any directory and
# without environment variables: a .pth file in its site-packages puts
# frontend/python on the path (the build writes the extensions flydsl/_fly_*.so
# there).
package_dir="$(cd "$(dirname "$0")/.." && pwd)/frontend/python"
site_dir=$("$PYTHON" -c 'import site; print(site.getsitepackages()[0])')
pth="$site_dir/flydsl-source-tree.pth"
if [ "$(cat "$pth" 2>/dev/null)" != "$package_dir" ]; then
  mkdir -p "$site_dir"
  echo "$package_dir" > "$pth" || die "cannot write $pth (the flydsl package's path entry)"
  log "flydsl: $pth -> $package_dir"
fi

log "ready"
