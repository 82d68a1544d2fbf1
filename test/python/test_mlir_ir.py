"""flydsl._mlir.ir, MLIR's Python `ir` API on the tracer: the type classes
over the compiler's type handles (get, isinstance, casts that raise
ValueError), attributes (built, parsed and read back through the
compiler), values, the value casters, contexts, locations and insertion
points, and the located MLIRErrors of bad input."""

from __future__ import annotations

import math
import struct
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, marker_lines
from flydsl import _fly
from flydsl._mlir import _values, ir
from flydsl._mlir.dialects import arith, func
from flydsl._mlir.extras import types as T
from flydsl.tracing.errors import TraceError
from flydsl.tracing.ir import Value as CoreValue

LINES = marker_lines(__file__)


def test_importing_the_builders_does_not_load_the_compiler():
    code = (f"import sys; sys.path.insert(0, {str(REPO_ROOT / 'frontend' / 'python')!r})\n"
            "from flydsl._mlir import ir, passmanager\n"
            "from flydsl._mlir.dialects import arith, vector, llvm, rocdl, gpu, memref, math, "
            "scf, func, builtin, fly, fly_rocdl\n"
            "from flydsl._mlir.extras import types\n"
            "print('flydsl._fly_compiler' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"]


# -- types ------------------------------------------------------------------------

def test_types_are_the_compilers_handles_and_the_classes_check_them():
    i32 = ir.IntegerType.get_signless(32)
    assert i32 is _fly.parse_type("i32") or i32 == _fly.parse_type("i32")
    assert isinstance(i32, ir.Type) and isinstance(i32, ir.IntegerType)
    assert not isinstance(i32, ir.FloatType) and not isinstance(i32, ir.VectorType)
    assert (i32.width, i32.is_signless, i32.is_signed) == (32, True, False)
    assert ir.IntegerType.get_unsigned(8).is_unsigned and str(ir.IntegerType.get_signed(4)) == "si4"
    assert str(ir.IndexType.get()) == "index" and isinstance(T.index(), ir.IndexType)
    for cls, text in [(ir.F16Type, "f16"), (ir.BF16Type, "bf16"), (ir.F64Type, "f64"),
                      (ir.Float8E4M3FNType, "f8E4M3FN"), (ir.Float4E2M1FNType, "f4E2M1FN")]:
        t = cls.get()
        assert str(t) == text and isinstance(t, cls) and isinstance(t, ir.FloatType)
        assert not isinstance(t, ir.F32Type)
    assert ir.F32Type.get().width == 32 and ir.Float8E5M2Type.get().width == 8
    assert not isinstance("i32", ir.Type) and not isinstance(3, ir.IntegerType)


def test_shaped_and_function_types():
    f32 = T.f32()
    v = ir.VectorType.get([2, 4], f32)
    assert str(v) == "vector<2x4xf32>" and isinstance(v, ir.ShapedType)
    assert (v.shape, v.rank, v.element_type) == ([2, 4], 2, f32)
    assert str(ir.VectorType.get([4], f32, scalable=[True])) == "vector<[4]xf32>"
    dyn = ir.ShapedType.get_dynamic_size()
    m = ir.MemRefType.get([4, dyn], T.i8(), memory_space=ir.IntegerAttr.get(T.i64(), 3))
    assert str(m) == "memref<4x?xi8, 3>" and m.shape == [4, dyn]
    assert ir.ShapedType.is_dynamic_size(m.shape[1]) and m.memory_space == "3 : i64"
    assert str(T.memref(8, element_type=f32, memory_space=3)) == "memref<8xf32, 3>"
    assert str(T.vector(4, element_type=T.f16())) == "vector<4xf16>"
    assert str(ir.RankedTensorType.get([3], T.bool())) == "tensor<3xi1>"
    fn = ir.FunctionType.get([T.i32(), f32], [v])
    assert isinstance(fn, ir.FunctionType) and fn.inputs == [T.i32(), f32] and fn.results == [v]
    assert str(T.function(inputs=[], results=[T.i64()])) == "() -> i64"
    assert str(ir.TupleType.get_tuple([f32, T.i32()])) == "tuple<f32, i32>"


def test_casting_a_type_returns_it_or_raises_value_error():
    v = ir.Type.parse("vector<4xi32>")
    assert ir.VectorType(v) is v and ir.ShapedType(v) is v and ir.Type(v) is v
    with pytest.raises(ValueError, match=r"Cannot cast type to IntegerType \(from vector<4xi32>\)"):
        ir.IntegerType(v)
    with pytest.raises(ValueError, match="F32Type"):
        ir.F32Type(T.f16())
    assert ir.IntegerType.isinstance(T.i8()) and not ir.IntegerType.isinstance(v)
    assert ir.IntegerType.static_typeid == ir.TypeID("builtin.integer")
    assert v.typeid == ir.VectorType.static_typeid.name


def test_a_type_that_does_not_parse_is_a_located_error():
    with pytest.raises(ir.MLIRError) as err:
        ir.Type.parse("vector<4xnope>")  # L:bad_type
    assert err.value.lineno == LINES["bad_type"] and err.value.filename == __file__
    assert "cannot parse type 'vector<4xnope>'" in str(err.value)
    assert isinstance(err.value, TraceError)
    with pytest.raises(ir.MLIRError, match="positive int"):
        ir.IntegerType.get_signless(0)


# -- attributes -------------------------------------------------------------------

def test_scalar_attributes_are_canonical_and_read_back():
    a = ir.IntegerAttr.get(T.i32(), 7)
    assert str(a) == "7 : i32" and a.value == 7 and int(a) == 7 and a.type == T.i32()
    assert ir.IntegerAttr.get(T.ui8(), 255).value == 255
    assert ir.IntegerAttr.get(T.i8(), -3).value == -3
    assert ir.IntegerAttr.get(T.index(), 5).type == T.index()
    f = ir.FloatAttr.get(T.f32(), 1.5)
    assert str(f) == "1.500000e+00 : f32" and f.value == 1.5 and float(f) == 1.5
    assert math.isnan(ir.FloatAttr.get(T.f32(), float("nan")).value)
    assert ir.FloatAttr.get(T.f16(), float("-inf")).value == float("-inf")
    assert ir.FloatAttr.get_f64(0.25).type == T.f64()
    # Python writes these without a point (1e+30), MLIR's literal has one
    for value in (1e30, -1e30, 1e-05, 5e-324):
        assert ir.FloatAttr.get_f64(value).value == value
    assert ir.FloatAttr.get(T.f32(), -1e30).value == struct.unpack("f", struct.pack("f", -1e30))[0]
    assert ir.BoolAttr.get(True).value is True and str(ir.BoolAttr.get(False)) == "false"
    s = ir.StringAttr.get('say "hi"\n')
    assert s.value == 'say "hi"\n' and str(s) == '"say \\22hi\\22\\0A"'
    assert str(ir.UnitAttr.get()) == "unit"
    assert ir.TypeAttr.get(T.f16()).value == T.f16()
    assert ir.FlatSymbolRefAttr.get("kernel").value == "kernel"
    assert str(ir.SymbolRefAttr.get(["mod", "fn"])) == "@mod::@fn"


def test_container_attributes():
    arr = ir.ArrayAttr.get([ir.IntegerAttr.get(T.i64(), 1), ir.StringAttr.get("x")])
    assert len(arr) == 2 and isinstance(arr[0], ir.IntegerAttr) and arr[1].value == "x"
    assert [str(a) for a in arr] == ["1 : i64", '"x"'] and len(arr + [ir.UnitAttr.get()]) == 3
    d = ir.DictAttr.get({"a": ir.IntegerAttr.get(T.i32(), 2), "b.c": ir.UnitAttr.get()})
    assert "a" in d and d["a"].value == 2 and len(d) == 2 and d[0].name == "a"
    dense = ir.DenseI32ArrayAttr.get([3, -1, 4])
    assert list(dense) == [3, -1, 4] and str(dense) == "array<i32: 3, -1, 4>" and dense[2] == 4
    assert list(ir.DenseF32ArrayAttr.get([0.5])) == [0.5]
    assert list(ir.DenseBoolArrayAttr.get([True, False])) == [True, False]
    splat = ir.DenseElementsAttr.get_splat(T.vector(4, element_type=T.f32()),
                                           ir.FloatAttr.get(T.f32(), 2.0))
    assert str(splat) == "dense<2.000000e+00> : vector<4xf32>" and splat.is_splat
    assert isinstance(splat, ir.DenseFPElementsAttr) and not isinstance(splat, ir.DenseIntElementsAttr)
    listed = ir.DenseElementsAttr.get([[1, 2], [3, 4]], type=T.i32())
    assert str(listed) == "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"


def test_parsed_attributes_downcast_and_casts_check():
    a = ir.Attribute.parse("array<i64: 1, 2>")
    assert isinstance(a, ir.DenseI64ArrayAttr) and list(a) == [1, 2]
    assert isinstance(ir.Attribute.parse("true"), ir.IntegerAttr)
    assert ir.BoolAttr(ir.Attribute.parse("true")).value is True
    assert isinstance(ir.Attribute.parse("@f"), ir.FlatSymbolRefAttr)
    assert str(ir.Attribute.parse("#gpu<dim x>")) == "#gpu<dim x>"
    with pytest.raises(ValueError, match="Cannot cast attribute to IntegerAttr"):
        ir.IntegerAttr(ir.StringAttr.get("x"))
    assert ir.IntegerAttr.get(T.i32(), 1) == ir.Attribute.parse("1 : i32")


def test_an_attribute_that_does_not_parse_is_a_located_error():
    with pytest.raises(ir.MLIRError) as err:
        ir.IntegerAttr.get(T.f32(), 3)  # L:bad_attr
    assert err.value.lineno == LINES["bad_attr"]
    assert "cannot parse attribute '3 : f32'" in str(err.value)


def test_attribute_builders_of_the_generated_modules():
    assert ir.AttrBuilder.contains("I32Attr") and ir.AttrBuilder.contains("Arith_CmpIPredicateAttr")
    assert str(ir.AttrBuilder.get("DenseI64ArrayAttr")([4, 5], None)) == "array<i64: 4, 5>"
    assert str(ir.AttrBuilder.get("Arith_CmpIPredicateAttr")(arith.CmpIPredicate.ult, None)) \
        == "6 : i64"
    assert str(ir.AttrBuilder.get("Arith_FastMathAttr")(arith.FastMathFlags.nnan
                                                         | arith.FastMathFlags.ninf, None)) \
        == "#arith.fastmath<nnan,ninf>"

    @ir.register_attribute_builder("TestOnly_Attr")
    def _build(value, context):
        return ir.IntegerAttr.get(T.i16(), value)
    try:
        assert str(ir.AttrBuilder.get("TestOnly_Attr")(9, None)) == "9 : i16"
        with pytest.raises(RuntimeError, match="already registered"):
            ir.register_attribute_builder("TestOnly_Attr")(_build)
    finally:
        del ir.AttrBuilder._builders["TestOnly_Attr"]


# -- contexts, values, casters ----------------------------------------------------

def test_without_a_context_there_is_no_current_one_and_ops_are_located_errors():
    with pytest.raises(ValueError, match="No current Context"):
        ir.Context.current  # noqa: B018
    with pytest.raises(ValueError, match="No current InsertionPoint"):
        ir.InsertionPoint.current  # noqa: B018
    with pytest.raises(ir.MLIRError) as err:
        arith.constant(T.i32(), 1)  # L:no_context
    assert err.value.lineno == LINES["no_context"] and "with ir.Context()" in str(err.value)


def _function(inputs, build):
    """A standalone module with `func @f(inputs)` built by build(args)."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", (inputs, []))
            with ir.InsertionPoint(f.add_entry_block()):
                build(*f.arguments)
                func.ReturnOp([])
        return module


def test_values_are_the_cores_and_know_their_owner(monkeypatch):
    # the plain values, without the casters fx registers (ArithValue: its `==`
    # is a comparison op; test_arith_value.py covers it)
    monkeypatch.setattr(_values, "_VALUE_CASTERS", {})
    seen = {}

    def build(x):
        c = arith.constant(T.i32(), 3)
        s = arith.addi(x, c)
        seen.update(x=x, c=c, s=s)
        assert isinstance(s, ir.Value) and isinstance(s, ir.OpResult) and isinstance(s, CoreValue)
        assert isinstance(CoreValue("%9", T.i32()), ir.Value)  # a value the fx layer wrote
        assert s.type == T.i32() and s.result_number == 0
        assert isinstance(s.owner, arith.AddIOp) and s.owner.operands[1] == c
        assert c.owner.literal_value == 3 and isinstance(c.owner, arith.ConstantOp)
        assert isinstance(x, ir.BlockArgument) and x.arg_number == 0 and x.owner.owner.name.value == "f"
        assert ir.Value(s) == s and ir.Value(s).owner == s.owner
        assert s.owner.result == s and s.owner.results.types == [T.i32()]
    module = _function([T.i32()], build)
    assert module.operation.verify()
    assert "arith.addi %arg0, %c3_i32 : i32" in str(module)


def test_value_casters_wrap_results_and_block_arguments(monkeypatch):
    monkeypatch.setattr(_values, "_VALUE_CASTERS", {})

    class Wrapped(ir.Value):
        pass

    @ir.register_value_caster(ir.IntegerType.static_typeid)
    def wrap(value):
        return Wrapped(value)

    with pytest.raises(RuntimeError, match="already registered"):
        ir.register_value_caster(ir.IntegerType.static_typeid)(wrap)
    ir.register_value_caster("index", lambda v: ("index", v))  # by a type's kind

    def build(x, y):
        assert isinstance(x, Wrapped) and not isinstance(y, Wrapped)  # i32 and f32 arguments
        s = arith.addi(x, x)
        assert isinstance(s, Wrapped) and s.owner.name == "arith.addi"
        assert arith.index_cast(T.index(), s)[0] == "index"
        assert not isinstance(arith.addf(y, y), Wrapped)
    _function([T.i32(), T.f32()], build)
    ir.register_value_caster(ir.IntegerType, lambda v: "replaced", replace=True)
    _function([T.i32(), T.f32()], lambda x, y: None)  # the caster runs on x
    assert _values.cast_value(CoreValue("%1", T.i8())) == "replaced"


def test_locations():
    assert str(ir.Location.file("a.py", 3, 4)) == 'loc("a.py":3:4)'
    assert str(ir.Location.name("n", ir.Location.unknown())) == 'loc("n"(unknown))'
    fused = ir.Location.fused([ir.Location.file("a.py", 1, 1), ir.Location.unknown()])
    assert str(fused) == 'loc(fused["a.py":1:1, unknown])'
    with ir.Location.file("b.py", 9, 2) as loc:
        assert ir.Location.current == loc

    def build(x):
        arith.addi(x, x)  # L:default_loc
        arith.addi(x, x, loc=ir.Location.file("given.py", 7, 1))
    text = _function([T.i32()], build).operation.get_asm(enable_debug_info=True)
    assert f'"{__file__}":{LINES["default_loc"]}:1' in text and '"given.py":7:1' in text


def test_insertion_points_before_an_op_at_the_begin_and_at_the_terminator():
    import flydsl.expr as fx

    def build(x):
        last = arith.constant(T.i32(), 3)
        with ir.InsertionPoint(last.owner):
            arith.constant(T.i32(), 2)      # before `last`
        block = ir.InsertionPoint.current.block
        with ir.InsertionPoint.at_block_begin(block):
            arith.constant(T.i32(), 0)
            arith.constant(T.i32(), 1)      # after the 0, before the rest
            fx.Int32(x) + 5                 # fx writes at the insertion point too
        func.ReturnOp([])
        with ir.InsertionPoint.at_block_terminator(block):
            arith.constant(T.i32(), 4)
        with pytest.raises(ValueError, match="no terminator"):
            ir.InsertionPoint.at_block_terminator(ir.Block(None))
        moved = arith.constant(T.i32(), 9, ip=ir.InsertionPoint(last.owner))
        block.append(moved.owner)            # moved after the return: ends the block
        moved.owner.erase()

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", ([T.i32()], []))
            with ir.InsertionPoint(f.add_entry_block()):
                build(*f.arguments)
        text = str(module)
        values = [int(line.split("arith.constant ")[1].split(" ")[0])
                  for line in text.splitlines() if "arith.constant" in line]
        assert values == [0, 1, 5, 2, 3, 4], text
        assert text.index("arith.addi") < text.index("arith.constant 2 ")
        assert module.operation.verify()
