#!/usr/bin/env bash
# Configure (once) and build FlyDSL in build/ with CMake + Ninja, Release.
# FLY_JOBS sets the number of parallel jobs (default 2, the cores of our
# machines).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=build
JOBS=${FLY_JOBS:-2}

# Once configured, ninja reruns CMake by itself when a CMakeLists.txt changes.
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # The Python extension is built for the python3 that runs the tests.
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v python3)"
fi
ninja -C "$BUILD_DIR" -j "$JOBS"
