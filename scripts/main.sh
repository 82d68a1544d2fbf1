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

# 3. The vector-add reference kernel (examples/vector_add.mlir: 128-bit
#    universal copies under a bounds predicate) through the whole pipeline,
#    stages A, B and C, to a gfx942 code object (lld in-process, no ROCm):
#    its resources and its 128-bit global memory instructions.
KERNEL=examples/vector_add.mlir
OBJECT=build/vector_add.gfx942.hsaco
echo
echo "=== fly-compile $KERNEL --chip=gfx942 -o $OBJECT"
build/bin/fly-compile "$KERNEL" --chip=gfx942 -o "$OBJECT" --print-resources
/usr/lib/llvm-22/bin/llvm-objdump -d "$OBJECT" | grep -E "global_(load|store)"

# 4. The same kernel written in Python (examples/vector_add.py), traced,
#    compiled for the CPU emulator (no GPU here; HIP is used when it has a
#    device) and run on shapes ragged in M and in N (100 x 200, 100 x 1001,
#    37 x 70; 128-bit and 32-bit copies); the example checks C = A + B and
#    the guard space around it against numpy and ends with PASS.
echo
echo "=== python3 examples/vector_add.py"
python3 examples/vector_add.py
