"""fly-emu-run's generic mode reads its arguments exactly: integers as
integers (all 64 bits of an i64, hex too), numbers for f32, and a located
message for text that is neither."""

from __future__ import annotations

import pytest

from emu_run import run_kernel

# out[0] = the scalar argument, out[1] = in[0] + 1 (i64 arithmetic).
KERNEL = """
module attributes {gpu.container_module} {
gpu.module @m {
  llvm.func @k(%out: !llvm.ptr<1>, %in: !llvm.ptr<1>, %v: i64) attributes {rocdl.kernel} {
    llvm.store %v, %out {alignment = 8 : i64} : i64, !llvm.ptr<1>
    %x = llvm.load %in {alignment = 8 : i64} : !llvm.ptr<1> -> i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %y = llvm.add %x, %one : i64
    %p = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
    llvm.store %y, %p {alignment = 8 : i64} : i64, !llvm.ptr<1>
    llvm.return
  }
}
}
"""


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return path


@pytest.mark.parametrize("scalar, value", [
    ("9007199254740993", 2**53 + 1),           # not a double
    ("-9223372036854775808", -2**63),
    ("0x7fffffffffffffff", 2**63 - 1),
    ("0xffffffffffffffff", -1),
])
def test_i64_arguments_keep_every_bit(emu_run, kernel, scalar, value):
    out = run_kernel(emu_run, kernel, "k", "gfx942", 1,
                     ["buf:i64:2:fill=0", f"buf:i64:1:{2**62 + 1}", f"i64:{scalar}"])
    assert [int(v) for v in out[0]] == [value, 2**62 + 2]
    assert [int(v) for v in out[1]] == [2**62 + 1]


@pytest.mark.parametrize("arg, message", [
    ("i64:2.5", "--arg=i64:2.5: not an integer"),
    ("i64:seven", "--arg=i64:seven: not an integer"),
])
def test_an_argument_that_is_not_an_integer_is_an_error(emu_run, kernel, arg, message):
    err = run_kernel(emu_run, kernel, "k", "gfx942", 1,
                     ["buf:i64:2:fill=0", "buf:i64:1:0", arg], expect_ok=False)
    assert message in err
