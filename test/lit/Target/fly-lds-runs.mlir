// load_vec/store_vec of a shared tensor in runs: (4,2):(1,64) f16 is two
// runs of 4 consecutive halves, 128 bytes apart. fly-layout-lowering makes
// each run one 8-byte vector access (insert/extract_strided_slice join
// them), so every chip reads and writes the tile with two 64-bit LDS
// accesses, the second at offset:128, and stores the 16 bytes to global
// memory with one 128-bit store.
//
// DEFINE: %{chip} =
// DEFINE: %{compile} = fly-opt %s --pass-pipeline="builtin.module(fly-canonicalize,fly-layout-lowering,fly-int-swizzle-simplify,canonicalize,convert-fly-to-rocdl,canonicalize,gpu.module(convert-scf-to-cf,cse,convert-gpu-to-rocdl{chipset=%{chip} index-bitwidth=0 runtime=HIP use-bare-ptr-memref-call-conv=true}))" | fly-compile --chip=%{chip} --from=binary_prep --isa

// REDEFINE: %{chip} = gfx942
// RUN: %{compile} | FileCheck %s --check-prefix=DS9
// REDEFINE: %{chip} = gfx950
// RUN: %{compile} | FileCheck %s --check-prefix=DS9
// REDEFINE: %{chip} = gfx1100
// RUN: %{compile} | FileCheck %s --check-prefix=DS11
// REDEFINE: %{chip} = gfx1101
// RUN: %{compile} | FileCheck %s --check-prefix=DS11
// REDEFINE: %{chip} = gfx1102
// RUN: %{compile} | FileCheck %s --check-prefix=DS11
// REDEFINE: %{chip} = gfx1200
// RUN: %{compile} | FileCheck %s --check-prefix=DS11
// REDEFINE: %{chip} = gfx1201
// RUN: %{compile} | FileCheck %s --check-prefix=DS11
// REDEFINE: %{chip} = gfx1250
// RUN: %{compile} | FileCheck %s --check-prefix=DS11

// DS9-LABEL:  lds_runs:
// DS9:        ds_read_b64 {{v\[[0-9]+:[0-9]+\]}}, [[P:v[0-9]+]] //
// DS9-NEXT:   ds_read_b64 {{v\[[0-9]+:[0-9]+\]}}, [[P]] offset:128
// DS9-NOT:    ds_read
// DS9:        ds_write_b64 [[P]], {{v\[[0-9]+:[0-9]+\]}} //
// DS9:        ds_write_b64 [[P]], {{v\[[0-9]+:[0-9]+\]}} offset:128
// DS9-NOT:    ds_write
// DS9:        global_store_dwordx4
// DS9:        s_endpgm
// DS11-LABEL: lds_runs:
// DS11:       ds_load_b64 {{v\[[0-9]+:[0-9]+\]}}, [[P:v[0-9]+]] //
// DS11-NEXT:  ds_load_b64 {{v\[[0-9]+:[0-9]+\]}}, [[P]] offset:128
// DS11-NOT:   ds_load
// DS11:       ds_store_b64 [[P]], {{v\[[0-9]+:[0-9]+\]}} //
// DS11:       ds_store_b64 [[P]], {{v\[[0-9]+:[0-9]+\]}} offset:128
// DS11-NOT:   ds_store
// DS11:       global_store_b128
// DS11:       s_endpgm

module attributes {gpu.container_module} {
  gpu.module @lds_runs_module {
    gpu.func @lds_runs(%g: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %s = fly.get_dyn_shared : !fly.ptr<f16, shared, align<16>>
      %l = fly.static : !fly.layout<(4,2):(1,64)>
      %m = fly.make_view(%s, %l) : (!fly.ptr<f16, shared, align<16>>, !fly.layout<(4,2):(1,64)>)
      %r = fly.memref.load_vec(%m) : (!fly.memref<f16, shared, (4,2):(1,64), align<16>>)
      %r2 = arith.addf %r, %r : vector<8xf16>
      fly.memref.store_vec(%r2, %m) : (vector<8xf16>, !fly.memref<f16, shared, (4,2):(1,64), align<16>>)
      %p = fly.make_ptr(%g) : (!llvm.ptr<1>) -> !fly.ptr<f16, global, align<16>>
      fly.ptr.store(%r2, %p) : (vector<8xf16>, !fly.ptr<f16, global, align<16>>)
      gpu.return
    }
  }
}
