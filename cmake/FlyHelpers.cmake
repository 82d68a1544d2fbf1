# Shared helpers for FlyDSL targets.

# fly_link_mlir(target): link the shared libMLIR and libLLVM (never the
# static component libraries: links then take seconds).
function(fly_link_mlir target)
  target_link_libraries(${target} PUBLIC MLIR LLVM)
endfunction()
