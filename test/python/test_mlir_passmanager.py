"""Standalone modules built as FlyDSL's compiler tests build them
(`Context()`, `Module.create()`, `InsertionPoint`, `func.FuncOp` +
`add_entry_block`) and run through this product's C++ passes with
`PassManager.parse("builtin.module(...)").run(module.operation)`: the module
then holds the pipeline's result, as ops that can be inspected (a kernel of
fly ops and inline asm through the pipeline's stages among them); pass
failures are MLIRErrors at the failing op's line."""

from __future__ import annotations

import pytest

from conftest import marker_lines
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, fly, func, gpu, llvm
from flydsl._mlir.dialects.fly import IntTupleType, LayoutType
from flydsl._mlir.extras import types as T
from flydsl._mlir.passmanager import PassManager

LINES = marker_lines(__file__)


def _offset_module():
    """func @offset(i, j) = crd2idx((i, j), (4,8):(8,1)), in fly ops."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("offset", ([T.i32(), T.i32()], [T.i32()]))
        with ir.InsertionPoint(f.add_entry_block()):
            i, j = f.arguments
            coord = fly.make_int_tuple(IntTupleType.get((None, None)), [i, j])
            layout = fly.static(LayoutType.get((4, 8), (8, 1)))
            func.ReturnOp([fly.get_scalar(fly.crd2idx(coord, layout))])
    return module


def test_fly_layout_lowering_turns_the_algebra_into_arith():
    with ir.Context(), ir.Location.unknown():
        module = _offset_module()
        assert "fly.crd2idx" in str(module)
        PassManager.parse("builtin.module(fly-layout-lowering,canonicalize,cse)").run(
            module.operation)
        assert module.operation.verify()
        text = str(module)
        assert "fly." not in text
        assert "arith.muli %arg0, %c8_i32 : i32" in text and "arith.addi %0, %arg1 : i32" in text
        # The result is ops of this module again: inspected, extended, printed.
        (offset,) = module.body.operations
        assert isinstance(offset, func.FuncOp) and offset.name.value == "offset"
        names = [op.name for op in offset.entry_block.operations]
        assert names == ["arith.constant", "arith.muli", "arith.addi", "func.return"]
        constant = offset.entry_block.operations[0]
        assert isinstance(constant, arith.ConstantOp) and constant.literal_value == 8
        ret = offset.entry_block.operations[-1]
        assert ret.operands[0].owner.name == "arith.addi"
        with ir.InsertionPoint(module.body):
            func.FuncOp("added_after", ([], []), visibility="private")
        assert "func.func private @added_after()" in str(module)
        assert module.operation.verify()


def test_the_pipeline_runs_on_a_parsed_module_and_passes_compose():
    with ir.Context():
        text = str(_built_in_context())
        module = ir.Module.parse(text)
        pm = PassManager.parse("builtin.module(fly-canonicalize)")
        pm.add("fly-layout-lowering")
        pm.add("canonicalize")
        assert str(pm) == "builtin.module(fly-canonicalize,fly-layout-lowering,canonicalize)"
        pm.run(module.operation)
        assert "arith.muli" in str(module) and "fly.crd2idx" not in str(module)


def _built_in_context():
    with ir.Location.unknown():
        return _offset_module()


def test_fx_values_and_raw_builders_write_into_the_same_standalone_module():
    import flydsl.expr as fx

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("mixed", ([T.i32()], [T.i32()]))
            with ir.InsertionPoint(f.add_entry_block()):
                (n,) = f.arguments
                three = fx.Int32(arith.ConstantOp(T.i32(), 3).result)
                total = three * fx.Int32(n) + 1          # fx's ops, written as text here
                func.ReturnOp([arith.addi(total.ir_value(), n)])
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        text = str(module)
        assert "arith.muli %arg0, %c3_i32 : i32" in text
        assert module.operation.verify()


def _scale_kernel_module():
    """A gpu.module whose kernel scales its work-item's element of a
    64-float tensor in place, in fly ops, with an asm wait (of result type
    !llvm.void, as FlyDSL's kernels write asm without outputs)."""
    module = ir.Module.create()
    module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    with ir.InsertionPoint(module.body):
        kernels = gpu.GPUModuleOp("kernels")
        with ir.InsertionPoint(kernels.body):
            tensor = ir.Type.parse("!fly.memref<f32, global, 64:1, align<16>>")
            kernel = gpu.GPUFuncOp(ir.FunctionType.get([tensor, T.f32()], []), sym_name="scale",
                                   kernel=True)
            with ir.InsertionPoint(kernel.add_entry_block()):
                data, factor = kernel.arguments
                tid = arith.index_cast(T.i32(), gpu.thread_id(gpu.Dimension.x))
                element = fly.add_offset(fly.get_iter(data), tid)
                scaled = arith.mulf(fly.ptr_load(element), factor)
                llvm.inline_asm(ir.Type.parse("!llvm.void"), [], "s_waitcnt vmcnt(0)", "",
                                has_side_effects=True)
                fly.ptr_store(scaled, element)
                gpu.ReturnOp([])
    return module


def test_a_kernel_of_fly_ops_through_the_pipelines_stages():
    """The pre_binary stage turns the kernel into an LLVM function of ROCDL
    and LLVM ops (the asm kept as written); the emulator stage then runs
    the asm's semantics (a wait: nothing) in the emulator's kernel body."""
    with ir.Context(), ir.Location.unknown():
        module = _scale_kernel_module()
        assert module.operation.verify()
        PassManager.parse("builtin.module(fly-pipeline{chip=gfx942 stage=pre_binary})").run(
            module.operation)
        (kernels,) = module.body.operations
        (scale,) = kernels.body.operations
        assert scale.name == "llvm.func" and "rocdl.kernel" in scale.attributes
        names = [op.name for op in scale.regions[0].blocks[0].operations]
        assert names[0] == "rocdl.workitem.id.x" and not any(n.startswith("fly.") for n in names)
        assert {"llvm.getelementptr", "llvm.load", "llvm.fmul", "llvm.inline_asm",
                "llvm.store"} <= set(names)
        text = str(module)
        assert 'llvm.inline_asm has_side_effects "s_waitcnt vmcnt(0)", ""  : () -> !llvm.void' in text
        assert "{alignment = 4 : i64} : !llvm.ptr<1> -> f32" in text  # the global load
        PassManager.parse("builtin.module(fly-pipeline{chip=gfx942 stage=emulator})").run(
            module.operation)
        text = str(module)
        assert "llvm.inline_asm" not in text and "llvm.func internal @scale_body(" in text
        assert module.operation.verify()


def test_a_failing_pass_is_an_error_at_the_ops_line():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body):
            kernels = gpu.GPUModuleOp("kernels")
            with ir.InsertionPoint(kernels.body):
                kernel = gpu.GPUFuncOp(ir.FunctionType.get([], []), sym_name="kern", kernel=True)
                with ir.InsertionPoint(kernel.add_entry_block()):
                    gpu.ReturnOp([])
            host = func.FuncOp("host", ([], []))
            with ir.InsertionPoint(host.add_entry_block()):
                one = arith.constant(T.index(), 1)
                wide = arith.constant(T.index(), 4096)
                gpu.LaunchFuncOp(None, [], ir.SymbolRefAttr.get(["kernels", "kern"]),  # L:launch
                                 one, one, one, wide, one, one, [])
                func.ReturnOp([])
        assert module.operation.verify()
        with pytest.raises(ir.MLIRError) as err:
            PassManager.parse("builtin.module(fly-check-launches{chip=gfx942})").run(
                module.operation)
        assert err.value.lineno == LINES["launch"] and err.value.filename == __file__
        assert "launch of kernel" in str(err.value) and "fly-check-launches" in str(err.value)


def test_pipelines_and_targets_that_cannot_run_are_errors():
    with ir.Context(), ir.Location.unknown():
        with pytest.raises(ir.MLIRError, match="builtin.module\\(pass1,pass2"):
            PassManager.parse("canonicalize")
        module = _offset_module()
        with pytest.raises(ir.MLIRError) as err:
            PassManager.parse("builtin.module(no-such-pass)").run(module.operation)  # L:no_pass
        assert err.value.lineno == LINES["no_pass"] and "no-such-pass" in str(err.value)
        f = module.body.operations[0]
        with pytest.raises(ir.MLIRError, match="standalone module"):
            PassManager.parse("builtin.module(cse)").run(f.operation)
