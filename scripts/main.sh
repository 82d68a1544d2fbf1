#!/usr/bin/env bash
# The main job: set up, build, then run fly-opt on the layout-algebra example
# (examples/layout_algebra.mlir) and print what it makes of it:
#   1. --fly-canonicalize folds every op whose result is fully static;
#   2. --fly-layout-lowering then turns the algebra on dynamic values into
#      arith, and the upstream --canonicalize tidies that arith (steps 2, 3
#      and 5 of the pipeline, SPEC §3).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh

FLY_OPT=build/bin/fly-opt
EXAMPLE=examples/layout_algebra.mlir

echo
echo "=== fly-opt $EXAMPLE --fly-canonicalize"
"$FLY_OPT" "$EXAMPLE" --fly-canonicalize
echo
echo "=== fly-opt $EXAMPLE --fly-canonicalize --fly-layout-lowering --canonicalize"
"$FLY_OPT" "$EXAMPLE" --fly-canonicalize --fly-layout-lowering --canonicalize
