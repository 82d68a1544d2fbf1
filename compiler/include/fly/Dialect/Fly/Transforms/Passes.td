//===- Passes.td - Passes of the fly dialect ---------------*- tablegen -*-===//

#ifndef FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
#define FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of SPEC §3 (fly-canonicalize, fly-layout-lowering, ...) are
// declared here, one file per pass in lib/Dialect/Fly/Transforms.

#endif // FLY_DIALECT_FLY_TRANSFORMS_PASSES_TD
