"""Seeded random calls of flydsl._mlir's raw builders, standalone (a func
in an `ir.Module`) and inside a traced @flyc.kernel: every op class of the
dialect modules, its builder function and `build_generic`, and
`ir.Operation.create`, with operands, result types and attributes chosen
from their parameters (read from the generated source) but often wrong:
values of other types, wrong counts, None, Python numbers, strings, bad
enums, attributes of the wrong kind, odd `loc=` and `ip=`.

Each call ends in one of the expected outcomes (the counts are printed):
- "built": it returns, and then the module verifies ("module verifies"),
  or MLIR's verifier reports an error at the line of an op of this file or
  at the location the call gave its op ("module: located verifier error";
  "...at an op without a file location" for an op given loc=unknown);
- "located error": a FlyDSL error (MLIRError, TraceError) naming the op,
  located at the call's line in this file (or at its `loc=`);
- "signature error": the TypeError Python raises when the arguments do not
  bind to the builder's parameters.
Anything else is a bug ("unexpected: ..."): an abort or segfault of the
process (the fuzzing runs in a subprocess, which reports the seed and the
call it died in), a hang, an exception of another type (AttributeError,
KeyError, ... out of the runtime or the generated code), an error located
elsewhere or not at all (a C++ message located in the text the builders
wrote). The bugs it found are the cases of _regressions.

Run as a script for more seeds and the counts per outcome:
    python test/python/test_mlir_fuzz.py --seeds 1-20 --calls 3000 [--kernel]
"""

from __future__ import annotations

import argparse
import enum
import importlib
import inspect
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import flydsl
import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl import _fly
from flydsl._mlir import ir
from flydsl._mlir._context import parse_diagnostics
from flydsl._mlir.dialects import (arith, builtin, func, gpu, llvm, math, memref, rocdl, scf,
                                   vector)
from flydsl._mlir.extras import types as T
from flydsl.tracing.errors import FlyDSLError
from flydsl.tracing.trace import Trace

THIS_FILE = os.path.realpath(__file__)
DIALECTS = ("arith", "vector", "llvm", "rocdl", "gpu", "memref", "math", "scf", "func", "fly",
            "fly_rocdl", "builtin")
STANDALONE_CALLS = 2000      # in the test: two seeds of 1000
KERNEL_CALLS = 1000          # in the test: one seed
CALLS_PER_EPISODE = 40       # a fresh module (or kernel) after this many calls
CHILD_TIMEOUT_S = 240        # a child running longer than this hangs


def _lines_marked():
    lines = {}
    for number, line in enumerate(Path(__file__).read_text().splitlines(), 1):
        found = re.search(r"# L:(\w+)$", line)
        if found:
            lines[found.group(1)] = number
    return lines


LINES = _lines_marked()
# The lines the builders are called from: every located error of a call is
# at one (or at the location the call gave its op, `loc=`).
CALL_LINES = {LINES["call"], LINES["next"]}
ELSEWHERE = ("elsewhere.py", 3)   # the file location the calls give as loc= now and then


# -- the builders and their parameters ---------------------------------------------

@dataclass
class Param:
    name: str
    kind: str            # operand, operands, result, results, attr, unit, successor, ...
    optional: bool = False
    attr_kind: str = ""  # the attribute builder's ODS name (kind attr)
    names: tuple = ()    # the op's attribute names (kind attributes), op names (kind op_name)


@dataclass
class Builder:
    qualname: str        # arith.addf, arith.AddFOp
    call: object
    op_names: tuple      # the ops it builds: one of them names its errors (() for
                         # Operation.create: the name it is given)
    params: list
    binding_names: tuple  # what Python's own TypeError of a wrong call names
    generic: bool = False  # build_generic, Operation.create: operands, results and
                           # attributes as lists and a dict, of any count


_PATTERNS = [  # (regex over an __init__'s source, kind, optional)
    (r"^\s*operands\.append\((\w+)\)$", "operand", False),
    (r"if (\w+) is not None: operands\.append\(\1\)", "operand", True),
    (r"operands\.extend\(_get_op_results_or_values\((\w+)\)\)", "operands", False),
    (r"operands\.append\(_get_op_results_or_values\((\w+)\)\)", "operands", False),
    (r"^\s*results\.append\((\w+)\)$", "result", False),
    (r"if (\w+) is not None: results\.append\(\1\)", "result", True),
    (r"results\.extend\((\w+)\)", "results", False),
    (r"if bool\((\w+)\): attributes", "unit", True),
    (r"_ods_successors\.append\((\w+)\)", "successor", False),
    (r"_ods_successors\.extend\((\w+)\)", "successors", False),
    (r"regions = \d+ \+ (\w+)", "regions", False),
]
_ATTRIBUTE = re.compile(r"(if (\w+) is not None: )?attributes\[\"[^\"]+\"\] = \((\w+) if \(\s*"
                        r"isinstance\(\3, _ods_ir\.Attribute\) or\s*not _ods_ir\.AttrBuilder"
                        r"\.contains\('([^']+)'\)")


def _init_params(cls) -> dict:
    """{parameter: Param} of a generated op class's constructor, from its
    source; a hand-written constructor's parameters are of kind 'any'."""
    init = inspect.unwrap(cls.__init__)
    try:
        source = inspect.getsource(init)
    except (OSError, TypeError):
        source = ""
    kinds = {}
    for pattern, kind, optional in _PATTERNS:
        for name in re.findall(pattern, source, re.M):
            kinds[name] = Param(name, kind, optional)
    for _, optional_name, name, attr_kind in _ATTRIBUTE.findall(source):
        kinds[name] = Param(name, "attr", bool(optional_name), attr_kind)
    params = {}
    for p in inspect.signature(init).parameters.values():
        if p.name == "self":
            continue
        if p.name in ("loc", "ip"):
            params[p.name] = Param(p.name, p.name, True)
        elif p.name == "results" and p.default is None:
            params[p.name] = Param(p.name, "results", True)
        else:
            found = kinds.get(p.name, Param(p.name, "any", p.default is not p.empty))
            found.optional = found.optional or p.default is not p.empty
            params[p.name] = found
    return params


def _op_classes(module) -> dict:
    return {name: cls for name, cls in vars(module).items()
            if isinstance(cls, type) and issubclass(cls, ir.OpView) and cls.OPERATION_NAME}


def collect_builders() -> list:
    """Every op class and builder function of the dialect modules."""
    builders = []
    for dialect in DIALECTS:
        module = importlib.import_module(f"flydsl._mlir.dialects.{dialect}")
        classes = _op_classes(module)
        for name, cls in sorted(classes.items()):
            if name.startswith("_"):
                continue
            params = list(_init_params(cls).values())
            builders.append(Builder(f"{dialect}.{name}", cls, (cls.OPERATION_NAME,), params,
                                    _binding_names(cls)))
            builders.append(Builder(f"{dialect}.{name}.build_generic", cls.build_generic,
                                    (cls.OPERATION_NAME,), _generic_params(_attribute_names(cls)),
                                    ("OpView.build_generic()",), generic=True))
        for name, fn in sorted(vars(module).items()):
            if name.startswith("_") or not inspect.isfunction(fn):
                continue
            try:
                source = inspect.getsource(inspect.unwrap(fn))
            except OSError:
                continue
            called = [c for c in re.findall(r"\b([A-Z]\w*)\(", source) if c in classes]
            if not called:
                continue  # not a builder (int_tuple_text, ...)
            renamed = {}  # the function's parameter -> the class's
            for inner, outer in re.findall(r"(\w+)=(\w+)", source.split(called[-1] + "(", 1)[1]):
                renamed[outer] = inner
            class_params = _init_params(classes[called[-1]])
            params = []
            for p in inspect.signature(fn).parameters.values():
                if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                    continue
                param = class_params.get(renamed.get(p.name, p.name))
                param = Param(p.name, param.kind, param.optional, param.attr_kind) if param \
                    else Param(p.name, "any", p.default is not p.empty)
                param.optional = param.optional or p.default is not p.empty
                params.append(param)
            builders.append(Builder(f"{dialect}.{name}", fn,
                                    tuple(classes[c].OPERATION_NAME for c in called), params,
                                    (f"{fn.__name__}()",) + _binding_names(classes[called[-1]])))
    return builders


def _attribute_names(cls) -> tuple:
    """The names of an op's attributes, from its constructor's source."""
    try:
        source = inspect.getsource(inspect.unwrap(cls.__init__))
    except (OSError, TypeError):
        return ()
    return tuple(sorted(set(re.findall(r'attributes\["(\w+)"\]', source))))


def _generic_params(attribute_names: tuple) -> list:
    """The parameters of build_generic and Operation.create (all optional)."""
    return [Param("results", "generic_results", True), Param("operands", "operands", True),
            Param("attributes", "attributes", True, names=attribute_names),
            Param("successors", "successors", True), Param("regions", "regions", True),
            Param("loc", "loc", True), Param("ip", "ip", True)]


def operation_create(builders) -> Builder:
    """ir.Operation.create, given the name of any op (or of none)."""
    names = tuple(sorted({b.op_names[0] for b in builders if b.op_names}))
    params = [Param("name", "op_name", names=names + ("nodialect.op", "arith", "", "arith.x")),
              *_generic_params(()), Param("infer_type", "unit", True)]
    return Builder("ir.Operation.create", ir.Operation.create, (), params,
                   ("Operation.create()",), generic=True)


def _binding_names(cls) -> tuple:
    """How Python's TypeError of a call that does not bind names an op
    class's constructor (its own, or one of the classes it extends)."""
    return tuple(f"{c.__name__}.__init__()" for c in cls.__mro__
                 if getattr(c, "OPERATION_NAME", None))


# -- the arguments -------------------------------------------------------------------

TYPE_TEXTS = [
    "i1", "i8", "i16", "i32", "i64", "index", "f16", "bf16", "f32", "f64", "f8E4M3FNUZ",
    "vector<4xf32>", "vector<2xi32>", "vector<8xf16>", "vector<4xi1>", "vector<2x2xf32>",
    "vector<16xi8>", "!llvm.ptr", "!llvm.ptr<1>", "!llvm.ptr<3>", "!llvm.ptr<8>",
    "!llvm.struct<(i32, f32)>", "!llvm.array<4 x i32>", "memref<8xf32>", "memref<4x4xf16>",
    "memref<?xi32>", "memref<8xf32, #gpu.address_space<workgroup>>", "tensor<4xf32>",
    "complex<f32>", "!gpu.async.token", "!fly.int_tuple<(4,8)>", "!fly.int_tuple<?>",
    "!fly.layout<(4,8):(1,4)>", "!fly.ptr<f32, global>", "!fly.memref<f32, global, (4,8):(8,1)>",
    "(i32) -> f32",
]

ATTRIBUTE_TEXTS = [
    "5 : i32", "-1 : i64", "true", "1.5 : f32", '"text"', "unit", "f32", "[1 : i32, 2 : i32]",
    "array<i32: 1, 2>", "array<i64: 0>", "@f", "{}", "#arith.fastmath<fast>",
    "#gpu.address_space<workgroup>", "affine_map<(d0) -> (d0)>", "#fly_rocdl.buffer_desc",
    "dense<1.0> : vector<4xf32>", "#llvm.linkage<internal>", "0 : index",
]

INTS = [0, 1, -1, 2, 3, 7, 64, 127, 255, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, -2**63,
        2**64, -2**70]
FLOATS = [0.0, -0.5, 1.5, 1e300, float("inf"), float("-inf"), float("nan")]
STRINGS = ["", "x", "f", "slt", "fast", "i32", "garbage<", 'a"quote', "line\nbreak", "\u00fc",
           "llvm.exp2", "=v,v", "v_mov_b32 $0, $1", "@sym", "#arith.fastmath<fast>"]


class Pool:
    """What the arguments are made of: the values at hand, the types,
    attributes, enums, blocks and odd Python objects."""

    def __init__(self, rng: random.Random, values, blocks, insertion_points):
        self.rng = rng
        self.values = list(values)
        self.blocks = list(blocks)
        self.insertion_points = list(insertion_points)
        self.types = [ir.Type.parse(t) for t in TYPE_TEXTS]
        self.attributes = [ir.Attribute.parse(a) for a in ATTRIBUTE_TEXTS]
        self.enums = _enum_members()
        self.locations = [ir.Location.unknown(), ir.Location.file("elsewhere.py", 3, 1),
                          ir.Location.name("named")]
        self.odd = [None, True, False, b"bytes", (), [], {}, {"a": 1}, object(), print, ir,
                    ir.IntegerType, [[1]], [None], (1, 2), range(3)]

    def add_results(self, result) -> None:
        """Values a call made join the pool (a few: the pool stays small)."""
        items = result if isinstance(result, (list, tuple)) else [result]
        for item in items:
            if isinstance(item, ir.Value) and len(self.values) < 64:
                self.values.append(item)

    # -- choices ------------------------------------------------------------
    def pick(self, items):
        return self.rng.choice(items)

    def anything(self):
        """Any argument at all."""
        kind = self.rng.random()
        if kind < 0.35 and self.values:
            return self.pick(self.values)
        if kind < 0.5:
            return self.pick(self.types)
        if kind < 0.6:
            return self.pick(self.attributes)
        if kind < 0.7:
            return self.pick(INTS + FLOATS)
        if kind < 0.8:
            return self.pick(STRINGS)
        if kind < 0.85:
            return self.pick(self.enums)
        if kind < 0.9:
            return [self.anything() for _ in range(self.rng.randint(0, 3))]
        if kind < 0.95 and self.blocks:
            return self.pick(self.blocks)
        return self.pick(self.odd)

    def value(self):
        return self.pick(self.values) if self.values and self.rng.random() < 0.85 \
            else self.anything()

    def values_list(self):
        if self.rng.random() < 0.8:
            return [self.value() for _ in range(self.rng.randint(0, 3))]
        return self.anything()

    def type_(self):
        roll = self.rng.random()
        if roll < 0.8:
            return self.pick(self.types)
        if roll < 0.85:
            return self.pick(TYPE_TEXTS + ["not a type<", "i0", "vector<0xf32>"])
        return self.anything()

    def types_list(self):
        if self.rng.random() < 0.8:
            return [self.type_() for _ in range(self.rng.randint(0, 2))]
        return self.anything()

    def attribute(self, kind: str):
        """A value for an attribute of ODS kind `kind`: what its builder
        takes (an int, a list, an enum, ...), often not, or an attribute."""
        roll = self.rng.random()
        if roll < 0.15:
            return self.pick(self.attributes)
        if roll < 0.25:
            return self.anything()
        if kind in ("BoolAttr", "I1Attr", "UnitAttr"):
            return self.pick([True, False, 0, 1, 2])
        if re.fullmatch(r"[SU]?I\d+Attr|IndexAttr|APIntAttr", kind):
            return self.pick(INTS)
        if kind.startswith("F") and kind.endswith("Attr") and kind[1:3].isdigit():
            return self.pick(FLOATS + INTS[:4])
        if kind in ("StrAttr", "Builtin_StringAttr", "SymbolNameAttr", "FlatSymbolRefAttr"):
            return self.pick(STRINGS)
        if kind == "SymbolRefAttr":
            return self.pick([["a", "b"], "f", [], ["x"]])
        if kind in ("TypeAttr", "MemRefTypeAttr"):
            return self.type_()
        if kind.endswith("ArrayAttr") or kind == "ArrayAttr":
            element = self.pick([lambda: self.pick(INTS[:8]), lambda: self.pick(STRINGS),
                                 lambda: [self.pick(INTS[:6])], lambda: self.rng.random() < .5,
                                 self.type_, lambda: {}])
            return [element() for _ in range(self.rng.randint(0, 4))]
        if kind == "AffineMapAttr":
            return self.pick(["(d0) -> (d0)", "garbage", 3])
        # An enum: of the attribute's kind now and then (Arith_CmpIPredicateAttr:
        # arith.CmpIPredicate), else of any kind; a number, a keyword.
        stem = kind.rsplit("_", 1)[-1].removesuffix("Attr")
        own = [m for m in self.enums if type(m).__name__.startswith(stem)]
        if own and self.rng.random() < 0.5:
            return self.pick(own)
        return self.pick(self.enums + INTS[:8] + STRINGS[:6])

    def argument(self, param: Param):
        kind = param.kind
        if kind == "operand":
            return self.value()
        if kind == "operands":
            return self.values_list()
        if kind == "result":
            return self.type_()
        if kind == "results":
            return self.types_list()
        if kind == "attr":
            return self.attribute(param.attr_kind)
        if kind == "unit":
            return self.pick([True, False, 1, None, "x"])
        if kind == "successor":
            return self.pick(self.blocks) if self.blocks and self.rng.random() < 0.7 \
                else self.anything()
        if kind == "successors":
            return [self.argument(Param("", "successor")) for _ in range(self.rng.randint(0, 2))]
        if kind == "regions":
            return self.pick([0, 1, 2, -1, None, "x", 1.5])
        if kind == "generic_results":
            return None if self.rng.random() < 0.4 else self.types_list()
        if kind == "attributes":
            if self.rng.random() < 0.1:
                return self.anything()
            names = list(param.names) or ["value"]
            return {(self.pick(names) if self.rng.random() < 0.8 else self.pick(STRINGS + [3])):
                    (self.pick(self.attributes) if self.rng.random() < 0.7 else self.anything())
                    for _ in range(self.rng.randint(0, 3))}
        if kind == "op_name":
            return self.pick(param.names) if self.rng.random() < 0.9 else self.anything()
        if kind == "loc":
            return self.pick(self.locations) if self.rng.random() < 0.8 else self.anything()
        if kind == "ip":
            return self.pick(self.insertion_points) if self.insertion_points and \
                self.rng.random() < 0.8 else self.anything()
        return self.anything()


def _enum_members() -> list:
    members = []
    for dialect in ("arith", "vector", "llvm", "gpu", "fly"):
        module = importlib.import_module(f"flydsl._mlir.dialects.{dialect}")
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, enum.Enum) and obj is not enum.Enum \
                    and obj.__module__.startswith("flydsl."):
                members.extend(list(obj)[:3])
    return members


def arguments(pool: Pool, builder: Builder):
    """(args, kwargs) of a call: every required parameter (sometimes one
    fewer or one more), optional ones now and then, once in a while a
    keyword the builder does not have."""
    rng = pool.rng
    args, kwargs = [], {}
    for param in builder.params:
        if param.optional:
            if rng.random() < 0.3:
                kwargs[param.name] = pool.argument(param)
        elif not kwargs and rng.random() < 0.9:
            args.append(pool.argument(param))
        else:
            kwargs[param.name] = pool.argument(param)
    roll = rng.random()
    if roll < 0.03 and args:
        args.pop(rng.randrange(len(args)))
    elif roll < 0.06:
        args.append(pool.anything())
    elif roll < 0.08:
        kwargs["no_such_parameter"] = pool.anything()
    return args, kwargs


# -- one call and its outcome ----------------------------------------------------------

def _describe(x) -> str:
    try:
        text = repr(x)
    except Exception as err:  # noqa: BLE001 - a repr that fails is reported, not fatal
        text = f"<repr failed: {type(err).__name__}>"
    return text if len(text) < 80 else text[:77] + "..."


def describe_call(builder: Builder, args, kwargs) -> str:
    parts = [_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()]
    return f"{builder.qualname}({', '.join(parts)})"


def _innermost_frame(err: BaseException):
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _where(filename, line) -> tuple:
    return (os.path.realpath(filename) if filename and filename.endswith(".py") and
            os.path.exists(filename) else filename, line)


def classify(err: BaseException, builder: Builder, args: list, kwargs: dict) -> str:
    """The outcome of a call that raised `err` (see the module's doc)."""
    if isinstance(err, FlyDSLError):
        where = _where(err.filename, err.lineno)
        if where not in {(THIS_FILE, line) for line in CALL_LINES} and \
                not (where == ELSEWHERE and _gives_location(kwargs, ELSEWHERE)):
            return f"unexpected: {type(err).__name__} located at {err.filename}:{err.lineno}"
        names = builder.op_names or [kwargs.get("name", args[0] if args else None)]
        if not isinstance(names[0], str):
            return "located error"  # Operation.create of no name: there is none to name
        if not any(f"'{name}'" in str(err) for name in names):
            return f"unexpected: {type(err).__name__} not naming {names[0]!r}"
        return "located error"
    if isinstance(err, TypeError) and str(err).startswith(builder.binding_names) and re.search(
            r"missing \d+ required|unexpected keyword|positional argument|multiple values",
            str(err)):
        return "signature error"
    return f"unexpected: {type(err).__name__}"


def _gives_location(kwargs: dict, where) -> bool:
    """Whether a call gives its op the location `where` ((file, line), or
    None: a location without a file)."""
    loc = kwargs.get("loc")
    if not isinstance(loc, ir.Location):
        return False
    found = re.match(r'"(.*)":(\d+):', loc._text)
    return (found.group(1), int(found.group(2))) == where if found else where is None


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)   # unexpected outcome -> an example

    def add(self, outcome: str, example: str = "") -> None:
        self.counts[outcome] += 1
        if outcome.startswith("unexpected") and outcome not in self.examples:
            self.examples[outcome] = example

    def unexpected(self) -> int:
        return sum(n for k, n in self.counts.items() if k.startswith("unexpected"))


def _example(description: str, err: BaseException | None) -> str:
    if err is None:
        return description
    frame = _innermost_frame(err)
    where = f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}" if frame else "?"
    return f"{description}\n    -> {type(err).__name__}: {str(err)[:300]}\n    raised at {where}"


class Progress:
    """The call about to be made, written before it is: what a crashed
    child leaves behind for its parent to report."""

    def __init__(self, path: str | None):
        self.file = open(path, "w") if path else None  # noqa: SIM115 - kept open for the run
        # The crash test's child aborts at this call, as a crash in C++ would.
        self.abort_at = int(os.environ.get("FLYDSL_MLIR_FUZZ_ABORT_AT", "0"))
        self.calls = 0

    def note(self, text: str) -> None:
        if self.file is not None:
            self.file.seek(0)
            self.file.write(text)
            self.file.truncate()
            self.file.flush()
        self.calls += 1
        if self.calls == self.abort_at:
            os.abort()


def call_builder(builder: Builder, args, kwargs):
    """The builder's result (a generator it returns runs to its first
    yield, as a `for` over it would start)."""
    result = builder.call(*args, **kwargs)  # L:call
    if inspect.isgenerator(result):
        generator = result
        result = next(generator)  # L:next
        generator.close()
    return result


@dataclass
class Call:
    description: str
    kwargs: dict
    built: bool


def fuzz_call(pool: Pool, builders, tally: Tally, progress: Progress) -> Call:
    """One random call, its outcome counted: of a generated builder mostly,
    of a generic one (build_generic, Operation.create) one time in five."""
    builder = pool.pick(builders.generic if pool.rng.random() < 0.2 else builders.typed)
    args, kwargs = arguments(pool, builder)
    description = describe_call(builder, args, kwargs)
    progress.note(description)
    try:
        result = call_builder(builder, args, kwargs)
    except Exception as err:  # noqa: BLE001 - the outcomes are what the test is about
        outcome = classify(err, builder, args, kwargs)
        tally.add(outcome, _example(description, err))
        return Call(description, kwargs, False)
    tally.add("built")
    pool.add_results(result)
    return Call(description, kwargs, True)


def verifier_error_outcome(where: tuple, fileless_ok: bool, elsewhere_ok: bool) -> str:
    """The outcome of IR that does not verify, its first error at `where`
    ((file, line)): an op of this file (a call's, or the function a call
    broke), or the location a call gave its op; or, where a call gave its
    op a location without a file, no location. Anything else (the text the
    builders wrote, no location at all) is unexpected."""
    if where[0] == THIS_FILE and where[1] != LINES["verify"]:
        return "module: located verifier error"
    if where == ELSEWHERE and elsewhere_ok:
        return "module: located verifier error"
    if fileless_ok and (where in ((THIS_FILE, LINES["verify"]), ("<unknown>", 0))):
        return "module: verifier error at an op without a file location"
    return f"unexpected: a verifier error located at {where[0]}:{where[1]}"


# -- standalone modules ------------------------------------------------------------

def standalone_episode(rng: random.Random, builders, calls: int, tally: Tally,
                       progress: Progress) -> None:
    """`calls` calls into a func of a fresh module; after each op built,
    the module verifies, or its error is at the call's line and the call's
    ops are erased."""
    arg_types = [ir.Type.parse(rng.choice(TYPE_TEXTS)) for _ in range(rng.randint(2, 8))]
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp("fuzz", (arg_types, []))
        entry = function.add_entry_block()
        with ir.InsertionPoint(entry):
            ret = func.ReturnOp([])
        blocks = [entry, module.body]
        points = [ir.InsertionPoint(ret), ir.InsertionPoint(module.body)]
        pool = Pool(rng, function.arguments, blocks, points)
        with ir.InsertionPoint(ret):
            for _ in range(calls):
                before = {id(x) for b in blocks for x in b.lines}
                call = fuzz_call(pool, builders, tally, progress)
                # A call that failed may have put ops in (a builder that failed after
                # building its op): the module is checked then too.
                changed = any(id(x) not in before for b in blocks for x in b.lines)
                if (call.built or changed) and \
                        not _module_verifies(module, blocks, before, tally, call):
                    return


def _module_verifies(module, blocks, before: set, tally: Tally, call: Call) -> bool:
    """Whether the module verifies, erasing the ops of the last call if
    they made it fail (at their line). False: it fails for another reason."""
    try:
        module.operation.verify()  # L:verify
        tally.add("module verifies")
        return True
    except ir.MLIRError as err:
        outcome = verifier_error_outcome(_where(err.filename, err.lineno),
                                         _gives_location(call.kwargs, None),
                                         _gives_location(call.kwargs, ELSEWHERE))
        tally.add(outcome, _example(call.description, err))
    except Exception as err:  # noqa: BLE001
        tally.add(f"unexpected: {type(err).__name__} from verify()",
                  _example(call.description, err))
        return False
    for block in blocks:
        for item in list(block.lines):
            if id(item) not in before:
                if isinstance(item, ir.Operation):
                    item.erase()
                else:
                    list.remove(block.lines, item)  # text the fx layer wrote
    try:
        module.operation.verify()
        return True
    except Exception as err:  # noqa: BLE001
        tally.add("unexpected: the module does not verify without the call's ops",
                  _example(call.description, err))
        return False


# -- inside a traced kernel --------------------------------------------------------

class _KernelJob:
    """What the traced kernel fuzzes (set before each trace) and the
    outcomes it leaves."""

    rng: random.Random
    builders: list
    calls: int
    tally: Tally
    progress: Progress


_JOB = _KernelJob()


class _TraceDone(Exception):
    """Ends the jit function's trace once the module is checked: nothing is
    compiled."""


def _kernel_pool(A, rng: random.Random):
    """Values in the kernel: fx's (the thread index, an element), and one
    of each type of TYPE_TEXTS (an unrealized cast of nothing)."""
    tid = fx.thread_idx.x
    values = [tid, A[tid], A]
    for text in TYPE_TEXTS:
        values.append(builtin.unrealized_conversion_cast([ir.Type.parse(text)], []))
    block = ir.InsertionPoint.current.block
    return Pool(rng, values, [block], [ir.InsertionPoint(block)])


def _fuzz_in_kernel(A):
    job = _JOB
    pool = _kernel_pool(A, job.rng)
    job.fileless_loc = job.elsewhere_loc = False
    for _ in range(job.calls):
        call = fuzz_call(pool, job.builders, job.tally, job.progress)
        job.fileless_loc |= _gives_location(call.kwargs, None)
        job.elsewhere_loc |= _gives_location(call.kwargs, ELSEWHERE)


def _check_traced_module():
    """The traced module (the kernel's gpu.module) verifies, or its error
    is at a call's line; then the trace ends."""
    try:
        _fly.print_ir(Trace.current().module_text(), verify=True)
        _JOB.tally.add("module verifies")
    except _fly.Error as err:
        errors = [d for d in parse_diagnostics(str(err)) if d.severity == "error"]
        where = _where(errors[0].filename, errors[0].line) if errors else ("<unknown>", 0)
        _JOB.tally.add(verifier_error_outcome(where, _JOB.fileless_loc, _JOB.elsewhere_loc),
                       f"kernel episode\n{str(err)[:600]}")
    raise _TraceDone


_fuzz_in_kernel.__fly_no_rewrite__ = True
_check_traced_module.__fly_no_rewrite__ = True


@flyc.kernel
def _fuzz_kernel(A: fx.Tensor, episode: fx.Constexpr[int]):
    _fuzz_in_kernel(A)


@flyc.jit
def _fuzz_host(A: fx.Tensor, episode: fx.Constexpr[int]):
    _fuzz_kernel(A, episode).launch(grid=(1, 1, 1), block=(64, 1, 1))
    _check_traced_module()


def kernel_episodes(rng: random.Random, builders, calls: int, tally: Tally,
                    progress: Progress) -> None:
    """Kernels of CALLS_PER_EPISODE calls each (traced, not compiled)."""
    _JOB.rng, _JOB.builders, _JOB.tally, _JOB.progress = rng, builders, tally, progress
    episode = 0
    while calls > 0:
        _JOB.calls = min(calls, CALLS_PER_EPISODE)
        calls -= _JOB.calls
        episode += 1
        try:
            _fuzz_host(np.zeros(64, np.float32), episode)
        except _TraceDone:
            pass
        except Exception as err:  # noqa: BLE001
            tally.add(f"unexpected: {type(err).__name__} out of the trace",
                      _example("kernel episode", err))


# -- the child process and its parent -----------------------------------------------

@dataclass
class Builders:
    typed: list     # the classes' constructors and the builder functions
    generic: list   # build_generic of every class, Operation.create


def all_builders() -> Builders:
    builders = collect_builders()
    return Builders([b for b in builders if not b.generic],
                    [b for b in builders if b.generic] + [operation_create(builders)])


def fuzz(seed: int, calls: int, kernel: bool, progress_path: str | None = None) -> Tally:
    rng = random.Random(seed)
    builders = all_builders()
    tally = Tally()
    progress = Progress(progress_path)
    if kernel:
        kernel_episodes(rng, builders, calls, tally, progress)
    else:
        while calls > 0:
            n = min(calls, CALLS_PER_EPISODE)
            standalone_episode(rng, builders, n, tally, progress)
            calls -= n
    progress.note("")
    return tally


def run_child(seed: int, calls: int, kernel: bool) -> tuple[Tally, str]:
    """fuzz() in a subprocess: its tally, or a tally of one 'crash' (or
    'hang') naming the seed and the call it was making."""
    env = dict(os.environ)
    package_root = str(Path(flydsl.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([package_root, env.get("PYTHONPATH", "")])
    env.setdefault("ARCH", "gfx942")
    env["FLYDSL_RUNTIME_ENABLE_CACHE"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        progress = os.path.join(tmp, "progress")
        command = [sys.executable, THIS_FILE, "--child", "--seeds", str(seed), "--calls",
                   str(calls), "--progress", progress] + (["--kernel"] if kernel else [])
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True,
                                  timeout=CHILD_TIMEOUT_S)
            status, stderr = done.returncode, done.stderr
        except subprocess.TimeoutExpired as err:
            stderr = err.stderr or ""
            status = "hang"
            stderr = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
        last_call = Path(progress).read_text() if os.path.exists(progress) else "?"
    if status == 0:
        data = json.loads(done.stdout.strip().splitlines()[-1])
        return Tally(Counter(data["counts"]), data["examples"]), stderr
    tally = Tally()
    what = "hang" if status == "hang" else f"crash (exit status {status})"
    tally.add(f"unexpected: {what}", f"seed {seed}, {'kernel' if kernel else 'standalone'}, "
              f"in the call {last_call}\n{stderr[-2000:]}")
    return tally, stderr


def report(tally: Tally) -> str:
    lines = [f"{n:7d}  {k}" for k, n in sorted(tally.counts.items())]
    for outcome, example in tally.examples.items():
        lines.append(f"--- {outcome}:\n    {example}")
    return "\n".join(lines)


# -- the tests -----------------------------------------------------------------------

def _check(seed: int, calls: int, kernel: bool) -> None:
    tally, _ = run_child(seed, calls, kernel)
    print(report(tally))
    total = sum(n for k, n in tally.counts.items()
                if k in ("built", "located error", "signature error") or
                k.startswith("unexpected: ") and "hang" not in k and "crash" not in k)
    assert tally.unexpected() == 0, f"seed {seed}:\n{report(tally)}"
    assert total == calls, f"{total} calls counted of {calls}:\n{report(tally)}"
    # The fuzzing reaches all three outcomes: it is not all rejected early.
    assert min(tally.counts["built"], tally.counts["located error"],
               tally.counts["signature error"]) > 0, report(tally)


def test_builders_of_the_dialects_are_found():
    builders = collect_builders()
    names = {b.qualname for b in builders}
    assert {"arith.addf", "arith.AddFOp", "vector.extract", "llvm.intr_fabs", "rocdl.ballot",
            "gpu.thread_id", "memref.load", "math.exp2", "scf.ForOp", "scf.for_", "func.call",
            "fly.make_layout", "fly_rocdl.make_buffer_ptr", "arith.constant"} <= names
    assert len(builders) > 1500
    by_name = {b.qualname: b for b in builders}
    kinds = {p.name: (p.kind, p.attr_kind) for p in by_name["arith.cmpi"].params}
    assert kinds["predicate"] == ("attr", "Arith_CmpIPredicateAttr")
    assert kinds["lhs"] == ("operand", "") and kinds["loc"] == ("loc", "")
    kinds = {p.name: p.kind for p in by_name["vector.ExtractOp"].params}
    assert kinds == {"source": "operand", "dynamic_position": "operands",
                     "static_position": "attr", "results": "results", "loc": "loc", "ip": "ip"}


def test_classify_tells_the_outcomes_apart():
    builder = Builder("arith.addf", None, ("arith.addf",), [], ("addf()",))
    located = ir.MLIRError("'arith.addf' op operand #1 ...", THIS_FILE, LINES["call"])
    assert classify(located, builder, [], {}) == "located error"
    other_line = ir.MLIRError("'arith.addf' op ...", THIS_FILE, LINES["call"] - 1)
    assert classify(other_line, builder, [], {}).startswith("unexpected")
    at_loc = ir.MLIRError("'arith.addf' op ...", *ELSEWHERE)
    assert classify(at_loc, builder, [], {}).startswith("unexpected")
    given = {"loc": ir.Location.file(*ELSEWHERE, 1)}
    assert classify(at_loc, builder, [], given) == "located error"
    unnamed = ir.MLIRError("cannot parse", THIS_FILE, LINES["call"])
    assert classify(unnamed, builder, [], {}).startswith("unexpected")
    assert classify(ir.MLIRError("'arith.addf'", None, None), builder, [], {}).startswith("unexp")
    binding = TypeError("addf() missing 1 required positional argument: 'rhs'")
    assert classify(binding, builder, [], {}) == "signature error"
    assert classify(TypeError("'int' object is not iterable"), builder, [], {}).startswith("unexp")
    assert classify(AttributeError("type"), builder, [], {}) == "unexpected: AttributeError"
    assert verifier_error_outcome((THIS_FILE, LINES["verify"]), False, False).startswith("unexp")
    assert verifier_error_outcome(("<flydsl module>", 9), True, True).startswith("unexp")


def test_a_crashing_child_is_reported_with_its_call(monkeypatch):
    monkeypatch.setenv("FLYDSL_MLIR_FUZZ_ABORT_AT", "3")
    tally, _ = run_child(1, 10, kernel=False)
    (outcome,) = [k for k in tally.counts if k.startswith("unexpected")]
    assert outcome.startswith("unexpected: crash")
    assert re.search(r"seed 1, standalone, in the call [\w.]+\(", tally.examples[outcome])


def test_a_hanging_child_is_reported(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "CHILD_TIMEOUT_S", 5)
    tally, _ = run_child(1, 10**6, kernel=False)   # far more calls than 5 s make
    assert list(tally.counts) == ["unexpected: hang"]
    assert "seed 1, standalone, in the call " in tally.examples["unexpected: hang"]


def test_standalone_builders_do_not_crash():
    for seed in (1, 2):
        _check(seed, STANDALONE_CALLS // 2, kernel=False)


def test_builders_in_a_kernel_do_not_crash():
    _check(1, KERNEL_CALLS, kernel=True)


# -- what the fuzzing found -----------------------------------------------------------

def _located_error(inputs, body):
    """The MLIRError of body(*arguments) in a func of (inputs) -> () of a
    standalone module (or of its verify())."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp("f", ([ir.Type.parse(t) for t in inputs], []))
        with ir.InsertionPoint(function.add_entry_block()):
            with pytest.raises(ir.MLIRError) as err:
                body(module, *function.arguments)
                func.ReturnOp([])
                module.operation.verify()
    return err.value


def _regressions():
    """(what, input types, body, its marker, what the error says): calls the
    fuzzing found crashing the process or raising errors of other types or
    places; each is a located MLIRError naming the op now."""
    return [
        ("inference on a wrong operand (segfault)",
         ["bf16"], lambda m, x: vector.DeinterleaveOp(x),  # L:deinterleave
         "deinterleave", "'vector.deinterleave' op operand #0 must be vector"),
        ("inference of a null type (segfault)",
         ["i8"], lambda m, x: memref.GenericAtomicRMWOp.build_generic(operands=[x]),  # L:rmw
         "rmw", "'memref.generic_atomic_rmw' op operand #0 must be memref"),
        ("a verifier casting a result's type (segfault)",
         ["vector<16xi8>"], lambda m, v: llvm.vector_interleave2(T.i8(), v, v),  # L:interleave
         "interleave", "'llvm.intr.vector.interleave2' op: MLIR's verifier crashed"),
        ("a Python str as an operand (AttributeError)",
         ["f32"], lambda m, x: arith.addf("x", x),  # L:str_operand
         "str_operand", "'arith.addf': an argument does not fit the builder (AttributeError"),
        ("a word as an enum (ValueError)",
         ["i32"], lambda m, a: arith.cmpi("slt", a, a),  # L:word_enum
         "word_enum", "'arith.cmpi': an argument does not fit the builder (ValueError"),
        ("an infinite enum (OverflowError)",
         ["i32"], lambda m, a: llvm.ConstrainedUIToFP(T.f32(), a, 1, float("inf")),  # L:inf
         "inf", "'llvm.intr.experimental.constrained.uitofp': an argument does not fit"),
        ("a word as an integer attribute (ValueError)",
         [], lambda m: rocdl.WaitDscntOp("x"),  # L:word_int
         "word_int", "'rocdl.s.wait.dscnt': IntegerAttr.get's value must be an integer"),
        ("an enum as llvm.mlir_constant's attribute (AttributeError)",
         [], lambda m: llvm.mlir_constant(arith.CmpIPredicate.slt),  # L:constant
         "constant", "'llvm.mlir.constant': an argument does not fit the builder"),
        ("a value as scf.for_'s iter_args (TraceError not naming the op)",
         ["f32"], lambda m, x: scf.for_(0, 4, 1, iter_args=x),  # L:iter_args
         "iter_args", "'scf.for'"),
        ("a bad attribute of an op with regions (no location in a kernel)",
         [], lambda m: gpu.WarpExecuteOnLane0Op(  # L:region_attr
             [], arith.constant(T.index(), 0), ir.StringAttr.get("x"), []),
         "region_attr", "'gpu.warp_execute_on_lane_0' op attribute 'warp_size' failed"),
        ("an op put out of its operands' scope (located in the module's text)",
         ["f32"], lambda m, x: math.exp(x, ip=ir.InsertionPoint(m.body)),  # L:scope
         "scope", "'math.exp': use of undeclared SSA value name"),
        ("ip= not an insertion point (AttributeError)",
         ["f32"], lambda m, x: math.exp(x, ip=3),  # L:ip
         "ip", "'math.exp': ip= must be an ir.InsertionPoint"),
        ("a successor not a block (AttributeError when printed)",
         [], lambda m: llvm.br([], 5),  # L:successor
         "successor", "'llvm.br': successor #0 must be a block"),
        ("an op name not a str (TypeError of the binding)",
         [], lambda m: ir.Operation.create(T.bool()),  # L:name
         "name", "an operation's name must be a str"),
        ("results not a list (TypeError)",
         ["i32"], lambda m, a: ir.Operation.create("arith.addi", results=5,  # L:results
                                                   operands=[a, a]),
         "results", "'arith.addi': the results must be a list"),
        ("`.result` of an op given no result (IndexError)",
         ["f32"], lambda m, x: gpu.all_reduce(x, results=[]),  # L:no_result
         "no_result", "'gpu.all_reduce' has no result or operand #0"),
        ("a function type of numbers (TypeError)",
         [], lambda m: func.FuncOp("g", (1, 2)),  # L:function_type
         "function_type", "'func.func': FunctionType.get's inputs must be a list, not int 1"),
        ("loc= not a location (an error not naming the op)",
         ["f32"], lambda m, x: math.exp(x, loc=3),  # L:loc
         "loc", "'math.exp': loc= must be an ir.Location"),
    ]


def test_what_the_fuzzing_found_is_a_located_error_naming_the_op():
    for what, inputs, body, marker, message in _regressions():
        err = _located_error(inputs, body)
        assert (_where(err.filename, err.lineno)) == (THIS_FILE, LINES[marker]), (what, str(err))
        assert message in str(err), (what, str(err))
    no_result = _located_error(["f32"], next(c[2] for c in _regressions() if c[3] == "no_result"))
    assert isinstance(no_result, IndexError)  # as MLIR's, for code catching that


@flyc.kernel
def _region_attr_kernel(A: fx.Tensor):
    zero = arith.constant(T.index(), 0)
    gpu.WarpExecuteOnLane0Op([], zero, ir.StringAttr.get("x"), [])  # L:kernel_region_attr


@flyc.jit
def _run_region_attr(A: fx.Tensor):
    _region_attr_kernel(A).launch(grid=(1, 1, 1), block=(64, 1, 1))


def test_a_bad_attribute_of_a_region_op_in_a_kernel_is_an_error_at_its_line(fly_env):
    # It was a CompileError at the traced module's text (<flydsl module>:8:1).
    fly_env(ARCH="gfx942", COMPILE_ONLY="1")
    with pytest.raises(ir.MLIRError) as err:
        _run_region_attr(np.zeros(64, np.float32))
    assert (_where(err.value.filename, err.value.lineno)) == \
        (THIS_FILE, LINES["kernel_region_attr"])
    assert "'gpu.warp_execute_on_lane_0' op attribute 'warp_size' failed" in str(err.value)


# -- the script ----------------------------------------------------------------------

def _seeds(text: str) -> list:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1", help="a seed or a range (1-20)")
    parser.add_argument("--calls", type=int, default=3000, help="calls per seed")
    parser.add_argument("--kernel", action="store_true", help="inside a traced kernel")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--progress", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        tally = fuzz(_seeds(options.seeds)[0], options.calls, options.kernel, options.progress)
        print(json.dumps({"counts": tally.counts, "examples": tally.examples}))
        return 0
    total = Tally()
    for seed in _seeds(options.seeds):
        tally, _ = run_child(seed, options.calls, options.kernel)
        total.counts.update(tally.counts)
        for k, v in tally.examples.items():
            total.examples.setdefault(k, f"(seed {seed}) {v}")
        print(f"seed {seed}: {dict(tally.counts)}", flush=True)
    print(report(total))
    return 1 if total.unexpected() else 0


if __name__ == "__main__":
    sys.exit(main())
