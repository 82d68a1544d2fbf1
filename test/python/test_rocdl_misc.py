"""fx.rocdl's instruction-level functions (SPEC §4, FlyDSL's names):
s_waitcnt and the per-family cdna3/rdna3/rdna4.s_waitcnt, asyncmark /
wait_asyncmark, the sched_* scheduling groups, sched_barrier,
sched_group_barrier, s_setprio, s_barrier, readfirstlane, update_dpp,
SyncScope and cdna4.cvt_sr_f32_to_bf16.

Checked: the counter encodings in the traced IR against values computed
here from the bit positions of AMD's ISA documents; the instructions in the
ISA of the code objects; kernels on the emulator (gfx942 wave64, gfx1100
wave32, gfx950 for the conversion) against numpy models; bad input as
TraceErrors at the user's line (`# L:<name>` markers)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import marker_lines

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import rocdl
from flydsl.tracing.errors import TraceError

THIS_FILE = __file__
LINES = marker_lines(__file__)
DATA = Path(__file__).parent / "data" / "flydsl_api"


def compile_only(fly_env, arch):
    fly_env(COMPILE_ONLY="1", ARCH=arch, FLYDSL_RUNTIME_KIND=None)


def on_emu(fly_env, arch):
    fly_env(ARCH=arch, FLYDSL_RUNTIME_KIND="emu", COMPILE_ONLY=None)


def compile_body(body, n=64, dtype=np.int32):
    """flyc.compile of a one-block kernel that calls body(A, B, tid)."""

    @flyc.kernel
    def kernel(A: fx.Tensor, B: fx.Tensor):
        body(A, B, fx.thread_idx.x)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor):
        kernel(A, B).launch(grid=(1, 1, 1), block=(n, 1, 1))

    return flyc.compile(run, np.zeros(n, dtype), np.zeros(n, dtype))


def bitfields(text):
    return [int(m) for m in re.findall(r'"rocdl\.s\.waitcnt"\(\) \{bitfield = (\d+) : i32\}',
                                       text)]


def isa_lines(compiled):
    return [line.split("//")[0].strip() for line in compiled.isa().splitlines()]


# -- the API's shape -----------------------------------------------------------

MINE = ["s_waitcnt", "asyncmark", "wait_asyncmark", "sched_mfma", "sched_vmem", "sched_dsrd",
        "sched_dswr", "cdna3.s_waitcnt", "rdna3.s_waitcnt", "rdna4.s_waitcnt",
        "cdna4.cvt_sr_f32_to_bf16", "SyncScope"]


@pytest.mark.parametrize("path", MINE)
def test_signatures_match_flydsl_0_4_2(path):
    import inspect

    want = json.loads((DATA / "signatures-0.4.2.json").read_text())["flydsl.expr.rocdl." + path]
    obj = rocdl
    for part in path.split("."):
        obj = getattr(obj, part)
    assert getattr(fx.rocdl, path.split(".")[0]) is getattr(rocdl, path.split(".")[0])
    if path == "SyncScope":
        assert want == []
        return
    got = [[p.name, p.kind.name] for p in inspect.signature(obj).parameters.values()]
    assert got == want


def test_names_in_all():
    for name in ["SyncScope", "s_waitcnt", "asyncmark", "wait_asyncmark", "sched_mfma",
                 "sched_vmem", "sched_dsrd", "sched_dswr"]:
        assert name in rocdl.__all__
    assert rocdl.cdna3.__all__ == rocdl.rdna3.__all__ == rocdl.rdna4.__all__ == ["s_waitcnt"]
    assert "cvt_sr_f32_to_bf16" in rocdl.cdna4.__all__


def test_each_name_is_where_the_table_says():
    """fx.rocdl imports a name's module on first use: its table of names
    agrees with each module's __all__, and every name resolves."""
    import importlib

    for module, names in rocdl._EXPORTS.items():
        defined = importlib.import_module(f"flydsl.expr.rocdl.{module}")
        if module != "_cvt":  # outside every __all__, as in FlyDSL
            assert list(names) == list(defined.__all__), module
        for name in names:
            assert getattr(rocdl, name) is getattr(defined, name)
    assert set(rocdl.__all__) <= set(dir(rocdl))
    with pytest.raises(AttributeError, match="no attribute 'MFMA_16x16'"):
        rocdl.MFMA_16x16


def test_a_kernel_imports_only_the_families_it_uses():
    import subprocess
    import sys

    code = ("import sys, flydsl.expr as fx\n"
            "fx.rocdl.MFMA\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules\n"
            "             if m.startswith('flydsl.expr.rocdl.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['_mfma']"]


def test_sync_scope_is_amdgpu_own():
    s = rocdl.SyncScope
    assert s is not fx.SyncScope
    assert (s.Agent, s.Workgroup, s.Wavefront) == ("agent", "workgroup", "wavefront")
    assert (s.OneAs, s.AgentOneAs, s.WorkgroupOneAs, s.WavefrontOneAs, s.SingleThreadOneAs) == (
        "one-as", "agent-one-as", "workgroup-one-as", "wavefront-one-as", "singlethread-one-as")
    assert not hasattr(s, "System")  # the target-neutral ones are fx.SyncScope's
    atom = fx.UniversalAtomicAdd(fx.Float32, syncscope=s.Agent)
    assert "agent" in str(atom)


# -- s_waitcnt encodings ---------------------------------------------------------

# AMD's field positions of the S_WAITCNT immediate: counter -> [(lsb, width), ...],
# the low bits of the counter first.
FIELDS = {
    "gfx9": {"vmcnt": [(0, 4), (14, 2)], "expcnt": [(4, 3)], "lgkmcnt": [(8, 4)]},
    "gfx11": {"expcnt": [(0, 3)], "lgkmcnt": [(4, 6)], "vmcnt": [(10, 6)]},
}
FAMILY = {"gfx942": "gfx9", "gfx950": "gfx9", "gfx1100": "gfx11", "gfx1201": "gfx11"}
NAMESPACE = {"gfx942": "cdna3", "gfx950": "cdna3", "gfx1100": "rdna3", "gfx1201": "rdna4"}


def field_max(layout, name):
    return (1 << sum(w for _, w in FIELDS[layout][name])) - 1


def encode(layout, **counts):
    value = 0
    for name, parts in FIELDS[layout].items():
        n = counts.get(name)
        n = field_max(layout, name) if n is None else n
        for lsb, width in parts:
            value |= (n & ((1 << width) - 1)) << lsb
            n >>= width
    return value


def waitcnt_cases(layout):
    rng = np.random.default_rng(7)
    cases = [{}, {"vmcnt": 0}, {"lgkmcnt": 0}, {"expcnt": 0},
             {"vmcnt": 0, "lgkmcnt": 0, "expcnt": 0},
             {name: field_max(layout, name) for name in FIELDS[layout]},
             {"vmcnt": 17}, {"vmcnt": 48, "lgkmcnt": 1}]
    for _ in range(12):
        cases.append({name: int(rng.integers(0, field_max(layout, name) + 1))
                      for name in FIELDS[layout] if rng.random() < 0.8})
    return cases


def test_encoding_model_matches_known_values():
    # Fixed points of AMD's encodings: all counters at their maximum is
    # "wait for nothing"; vmcnt(0) alone.
    assert encode("gfx9") == 0xCF7F and encode("gfx9", vmcnt=0) == 0x0F70
    assert encode("gfx11") == 0xFFF7 and encode("gfx11", vmcnt=0) == 0x03F7
    assert encode("gfx9", vmcnt=3, lgkmcnt=2) == 0x0273  # FlyDSL 0.4.2's value


@pytest.mark.parametrize("arch", sorted(FAMILY))
def test_s_waitcnt_counters_per_family(fly_env, arch):
    compile_only(fly_env, arch)
    layout = FAMILY[arch]
    cases = waitcnt_cases(layout)
    family_fn = getattr(rocdl, NAMESPACE[arch]).s_waitcnt

    def body(A, B, tid):
        for case in cases:
            rocdl.s_waitcnt(**case)
        for case in cases:
            family_fn(**case)
        family_fn(fx.Int32(5), None, 1)  # positional, a static fx integer
        rocdl.s_waitcnt(0x1234)
        rocdl.s_waitcnt(bitfield=0)
        B[tid] = A[tid]

    got = bitfields(compile_body(body).module_text)
    want = [encode(layout, **c) for c in cases] * 2
    want += [encode(layout, vmcnt=5, expcnt=1), 0x1234, 0]
    assert got == want


def test_family_functions_encode_regardless_of_chip(fly_env):
    # fx.rocdl.rdna3.s_waitcnt is the gfx11 encoding even when compiling
    # for gfx942: it is the family's function, not the chip's.
    compile_only(fly_env, "gfx942")

    def body(A, B, tid):
        rocdl.rdna3.s_waitcnt(vmcnt=1, lgkmcnt=40)
        rocdl.cdna3.s_waitcnt(vmcnt=1, lgkmcnt=4)
        B[tid] = A[tid]

    got = bitfields(compile_body(body).module_text)
    assert got == [encode("gfx11", vmcnt=1, lgkmcnt=40), encode("gfx9", vmcnt=1, lgkmcnt=4)]


def wait_fields(line):
    return dict(re.findall(r"(vmcnt|lgkmcnt|expcnt)\((\d+)\)", line))


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_s_waitcnt_in_isa(fly_env, arch):
    compile_only(fly_env, arch)

    def body(A, B, tid):
        x = A[tid]
        rocdl.s_waitcnt(vmcnt=0, lgkmcnt=0)
        B[tid] = x

    waits = [wait_fields(line) for line in isa_lines(compile_body(body))
             if line.startswith("s_waitcnt")]
    # The wait the call asked for, on both counters, before the store.
    assert any(w.get("vmcnt") == "0" and w.get("lgkmcnt") == "0" for w in waits), waits


def test_s_waitcnt_partial_counts_reach_isa(fly_env):
    # The counts reach the ISA; the backend merges in its own wait for the
    # kernel arguments' scalar loads (lgkmcnt), which can only strengthen it.
    compile_only(fly_env, "gfx942")

    def body(A, B, tid):
        rocdl.s_waitcnt(vmcnt=5, lgkmcnt=3, expcnt=2)
        B[tid] = A[tid]

    lines = [line for line in isa_lines(compile_body(body)) if line.startswith("s_waitcnt")]
    assert any(w.get("vmcnt") == "5" and w.get("expcnt") == "2" and int(w.get("lgkmcnt", 15)) <= 3
               for w in map(wait_fields, lines)), lines


def test_wait_asyncmark_is_a_full_vm_wait(fly_env):
    for arch, want in [("gfx942", [encode("gfx9", vmcnt=0)]),
                       ("gfx1100", [encode("gfx11", vmcnt=0)])]:
        compile_only(fly_env, arch)

        def body(A, B, tid):
            rocdl.asyncmark()
            rocdl.wait_asyncmark(2)
            rocdl.wait_asyncmark(None)  # waits for nothing: no instruction
            B[tid] = A[tid]

        assert bitfields(compile_body(body).module_text) == want
    compile_only(fly_env, "gfx1201")

    def body12(A, B, tid):
        rocdl.wait_asyncmark()
        B[tid] = A[tid]

    text = compile_body(body12).module_text
    assert '"rocdl.s.wait.loadcnt"() {count = 0 : i16}' in text and not bitfields(text)


# -- scheduling hints, priority, barrier ---------------------------------------

def test_sched_groups_and_hints_ir_and_isa(fly_env):
    compile_only(fly_env, "gfx942")

    def body(A, B, tid):
        rocdl.sched_mfma(2)
        rocdl.sched_vmem(1)
        rocdl.sched_dsrd(3)
        rocdl.sched_dswr(4)
        rocdl.sched_group_barrier("valu|salu", 5, 1)
        rocdl.sched_group_barrier(0x800, fx.Int32(6), 2)
        rocdl.sched_barrier(0)
        rocdl.sched_barrier("mfma_wmma|ds_read")
        rocdl.s_setprio(3)
        rocdl.s_setprio(0)
        rocdl.s_barrier()
        B[tid] = A[tid]

    # Four waves: the backend drops s_barrier from a one-wave workgroup.
    c = compile_body(body, n=256)
    groups = re.findall(r'"rocdl\.sched\.group\.barrier"\(\) \{groupId = (\d+) : i32, '
                        r'mask = (\d+) : i32, size = (\d+) : i32\}', c.module_text)
    assert [tuple(map(int, g)) for g in groups] == [
        (0, 0x008, 2), (0, 0x020, 1), (0, 0x100, 3), (0, 0x200, 4), (1, 0x006, 5),
        (2, 0x800, 6)]
    assert re.findall(r'"rocdl\.sched\.barrier"\(\) \{mask = (\d+)', c.module_text) == [
        "0", str(0x108)]
    assert re.findall(r'"rocdl\.s\.setprio"\(\) \{priority = (\d+) : i16\}',
                      c.module_text) == ["3", "0"]
    isa = isa_lines(c)
    assert "s_setprio 3" in isa and "s_setprio 0" in isa
    assert "s_barrier" in isa


# -- lane moves on the emulator ------------------------------------------------

CHIPS = [("gfx942", 64), ("gfx1100", 32)]


@pytest.mark.parametrize("arch,wave", CHIPS)
def test_readfirstlane_on_emulator(fly_env, arch, wave):
    on_emu(fly_env, arch)
    n = 128

    @flyc.kernel
    def kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        B[tid] = rocdl.readfirstlane(fx.T.i32, A[tid])
        if tid % wave >= 5:  # lanes 0-4 of each wave inactive
            C[tid] = rocdl.readfirstlane(fx.Int32, A[tid] * 3)

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        kernel(A, B, C).launch(grid=(1, 1, 1), block=(n, 1, 1))

    a = np.random.default_rng(1).integers(-1000, 1000, n).astype(np.int32)
    b = np.zeros(n, np.int32)
    c = np.full(n, -7, np.int32)
    run(a, b, c)
    lane = np.arange(n) % wave
    first = np.arange(n) - lane
    np.testing.assert_array_equal(b, a[first])
    np.testing.assert_array_equal(c, np.where(lane >= 5, 3 * a[first + 5], -7))


def test_readfirstlane_isa(fly_env):
    compile_only(fly_env, "gfx942")

    def body(A, B, tid):
        B[tid] = rocdl.readfirstlane(fx.T.i32, A[tid])

    assert any(x.startswith("v_readfirstlane_b32") for x in isa_lines(compile_body(body)))


def dpp_source(ctrl, wave):
    """numpy model of DPP's lane selection: the source lane of each lane,
    -1 where it has none."""
    i = np.arange(wave)
    row, r = i // 16 * 16, i % 16
    n = ctrl & 15
    if ctrl <= 0xFF:
        sel = (ctrl >> (2 * (i % 4))) & 3
        return i - i % 4 + sel
    kind = ctrl & ~15
    if kind == 0x100:
        return np.where(r + n <= 15, i + n, -1)
    if kind == 0x110:
        return np.where(r - n >= 0, i - n, -1)
    if kind == 0x120:
        return row + (r - n) % 16
    if kind == 0x150:
        return row + n
    if kind == 0x160:
        return row + np.bitwise_xor(r, n)
    table = {
        0x130: np.where(i + 1 < wave, i + 1, -1), 0x134: (i + 1) % wave,
        0x138: i - 1, 0x13C: (i - 1) % wave,
        0x140: row + 15 - r, 0x141: i // 8 * 8 + 7 - i % 8,
        0x142: np.where(i >= 16, row - 1, -1), 0x143: np.where(i >= 32, 31, -1),
    }
    return table[ctrl]


def dpp_model(old, src, ctrl, row_mask, bank_mask, bound_ctrl, wave):
    out = np.empty_like(old)
    for base in range(0, len(old), wave):
        o, s = old[base:base + wave], src[base:base + wave]
        sel = dpp_source(ctrl, wave)
        lane = np.arange(wave)
        written = ((row_mask >> (lane // 16)) & 1).astype(bool) & \
            ((bank_mask >> (lane // 4 % 4)) & 1).astype(bool)
        moved = np.where(sel >= 0, s[np.clip(sel, 0, wave - 1)], 0 if bound_ctrl else o)
        out[base:base + wave] = np.where(written, moved, o)
    return out


COMMON_DPP = [0x1B, 0xE4, 0x39, 0x101, 0x10F, 0x111, 0x118, 0x121, 0x12F, 0x140, 0x141,
              0x153]
GFX9_DPP = [0x130, 0x134, 0x138, 0x13C, 0x142, 0x143]
GFX11_DPP = [0x160, 0x16F, 0x15E]
DPP_MASKS = [(0xF, 0xF, True), (0xF, 0xF, False), (0x5, 0xF, False), (0xF, 0x6, True),
             (0xA, 0x9, False)]


@pytest.mark.parametrize("arch,wave", CHIPS)
def test_update_dpp_against_numpy(fly_env, arch, wave):
    on_emu(fly_env, arch)
    ctrls = COMMON_DPP + (GFX9_DPP if wave == 64 else GFX11_DPP)
    cases = [(c, *m) for c in ctrls for m in DPP_MASKS[:2]] + \
        [(c, *m) for c in ctrls[:4] for m in DPP_MASKS[2:]]
    n = 128

    @flyc.kernel
    def kernel(A: fx.Tensor, Old: fx.Tensor, Out: fx.Tensor, F: fx.Tensor):
        tid = fx.thread_idx.x
        a, old = A[tid], Old[tid]
        for k, (ctrl, rm, bm, bc) in enumerate(cases):
            Out[k * n + tid] = rocdl.update_dpp(fx.T.i32, old, a, ctrl, rm, bm, bc)
        # A float moves by its bits.
        F[tid] = rocdl.update_dpp(fx.Float32, old.to(fx.Float32), a.to(fx.Float32) * 0.5,
                                  0x1B, 0xF, 0xF, True)

    @flyc.jit
    def run(A: fx.Tensor, Old: fx.Tensor, Out: fx.Tensor, F: fx.Tensor):
        kernel(A, Old, Out, F).launch(grid=(1, 1, 1), block=(n, 1, 1))

    rng = np.random.default_rng(3)
    a = rng.integers(1, 1 << 20, n).astype(np.int32)
    old = -rng.integers(1, 1 << 20, n).astype(np.int32)
    out = np.zeros(len(cases) * n, np.int32)
    f = np.zeros(n, np.float32)
    run(a, old, out, f)
    for k, (ctrl, rm, bm, bc) in enumerate(cases):
        want = dpp_model(old, a, ctrl, rm, bm, bc, wave)
        np.testing.assert_array_equal(out[k * n:(k + 1) * n], want,
                                      err_msg=f"dpp_ctrl=0x{ctrl:x} row_mask={rm:#x} "
                                              f"bank_mask={bm:#x} bound_ctrl={bc}")
    np.testing.assert_array_equal(
        f, dpp_model(old.astype(np.float32), a.astype(np.float32) * 0.5, 0x1B, 0xF, 0xF,
                     True, wave))


def test_update_dpp_isa(fly_env):
    compile_only(fly_env, "gfx942")

    def body(A, B, tid):
        x = A[tid]
        B[tid] = rocdl.update_dpp(fx.T.i32, x, x, 0x111, 0xF, 0xF, True)

    isa = isa_lines(compile_body(body))
    assert any(x.startswith("v_mov_b32_dpp") and "row_shr:1" in x for x in isa), isa


def permlanex16_model(old, src, sel, wave):
    """numpy: lane i reads src of lane nibble(i mod 16) of the other row of
    16 in its 32 lanes."""
    i = np.arange(len(src))
    nibble = np.array([(sel >> (4 * (k % 16))) & 15 for k in range(len(src))])
    other = (i // 32) * 32 + (16 - i % 32 // 16 * 16)
    return src[other + nibble]


SELECTORS = [0x76543210FEDCBA98, 0x0123456789ABCDEF, 0x0, 0xFFFFFFFFFFFFFFFF,
             0x1B1B1B1B0F0F0F0F]


def test_permlanex16_on_emulator(fly_env):
    on_emu(fly_env, "gfx1100")
    n = 64

    @flyc.kernel
    def kernel(A: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        a = A[tid]
        for k, sel in enumerate(SELECTORS):
            Out[k * n + tid] = rocdl.permlanex16(fx.T.i32, a + 1, a, sel & 0xFFFFFFFF,
                                                 sel >> 32, False, False)

    @flyc.jit
    def run(A: fx.Tensor, Out: fx.Tensor):
        kernel(A, Out).launch(grid=(1, 1, 1), block=(n, 1, 1))

    a = np.random.default_rng(9).integers(0, 1 << 30, n).astype(np.int32)
    out = np.zeros(len(SELECTORS) * n, np.int32)
    run(a, out)
    for k, sel in enumerate(SELECTORS):
        np.testing.assert_array_equal(out[k * n:(k + 1) * n],
                                      permlanex16_model(a + 1, a, sel, 32), err_msg=hex(sel))


def swap_model(old, src, block):
    new_old, new_src = old.copy().reshape(-1, 2, block), src.copy().reshape(-1, 2, block)
    new_old[:, 1, :] = src.reshape(-1, 2, block)[:, 0, :]
    new_src[:, 0, :] = old.reshape(-1, 2, block)[:, 1, :]
    return new_old.reshape(-1), new_src.reshape(-1)


def test_permlane_swaps_on_emulator(fly_env):
    on_emu(fly_env, "gfx950")
    n = 128

    @flyc.kernel
    def kernel(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor):
        tid = fx.thread_idx.x
        d16, s16 = rocdl.permlane16_swap(None, A[tid], B[tid], False, False)
        d32, s32 = rocdl.permlane32_swap(None, A[tid], B[tid], False, False)
        for k, v in enumerate((d16, s16, d32, s32)):
            Out[k * n + tid] = v

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor, Out: fx.Tensor):
        kernel(A, B, Out).launch(grid=(1, 1, 1), block=(n, 1, 1))

    a = np.arange(n, dtype=np.int32) + 1000
    b = -np.arange(n, dtype=np.int32)
    out = np.zeros(4 * n, np.int32)
    run(a, b, out)
    for k, want in enumerate(swap_model(a, b, 16) + swap_model(a, b, 32)):
        np.testing.assert_array_equal(out[k * n:(k + 1) * n], want, err_msg=str(k))


def test_permlane_isa(fly_env):
    compile_only(fly_env, "gfx1100")

    def body(A, B, tid):
        B[tid] = rocdl.permlanex16(fx.T.i32, A[tid], A[tid], 0x76543210, 0x01234567, False, True)

    assert any(x.startswith("v_permlanex16_b32") for x in isa_lines(compile_body(body)))
    compile_only(fly_env, "gfx950")

    def body950(A, B, tid):
        d, s = rocdl.permlane32_swap(None, A[tid], A[tid] + 1, False, False)
        B[tid] = d + s

    assert any(x.startswith("v_permlane32_swap") for x in isa_lines(compile_body(body950)))


# -- cvt_sr_f32_to_bf16 (gfx950) -----------------------------------------------

def bf16_bits(a):
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint32)


def sr_model(x, rand):
    """The conversion by its definition: the low 16 bits of rand added to
    the bits bf16 drops, then cut off; NaN stays a (quiet) NaN."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    out = ((bits + (np.asarray(rand, np.uint64) & 0xFFFF)) >> 16) & 0xFFFF
    return out.astype(np.uint32)


def run_cvt_sr(x, rand):
    n = len(x)

    @flyc.kernel
    def kernel(X: fx.Tensor, R: fx.Tensor, Y: fx.Tensor):
        tid = fx.block_idx.x * 256 + fx.thread_idx.x
        y = rocdl.cdna4.cvt_sr_f32_to_bf16(X[tid], R[tid])
        Y[tid] = y.to(fx.Float32)  # exact: every bf16 is an f32

    @flyc.jit
    def run(X: fx.Tensor, R: fx.Tensor, Y: fx.Tensor):
        kernel(X, R, Y).launch(grid=(n // 256, 1, 1), block=(256, 1, 1))

    y = np.zeros(n, np.float32)
    run(np.asarray(x, np.float32), np.asarray(rand, np.uint32).view(np.int32), y)
    return y


def test_cvt_sr_rand_zero_truncates(fly_env):
    on_emu(fly_env, "gfx950")
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-30, 30, 500),
                        [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 3.4e38, -3.4e38, 1e-40,
                         -1e-40, 1.00390625, 1.99999988]]).astype(np.float32)
    x = np.resize(x, 512)
    # rand = 0, and rand with only high bits set (ignored): truncation.
    for rand in (np.zeros(512, np.uint32), np.full(512, 0xFFFF0000, np.uint32)):
        y = run_cvt_sr(x, rand)
        np.testing.assert_array_equal(y.view(np.uint32) >> 16, bf16_bits(x))
        np.testing.assert_array_equal(y.view(np.uint32) & 0xFFFF, 0)
        np.testing.assert_array_equal(np.abs(y) <= np.abs(x), True)  # toward zero


def test_cvt_sr_rounding_property(fly_env):
    on_emu(fly_env, "gfx950")
    rng = np.random.default_rng(5)
    # Each x with 256 rands evenly spread over the 16 dropped bits: the
    # magnitude rounds up for exactly the rands that carry, so the share
    # rounded up is the dropped fraction of x, to 1/256.
    xs = (rng.standard_normal(8) * 100).astype(np.float32)
    rands = (np.arange(256, dtype=np.uint32) * 256 + 128).astype(np.uint32)
    x = np.repeat(xs, 256)
    rand = np.tile(rands, 8) | (rng.integers(0, 1 << 16, 2048).astype(np.uint32) << 16)
    y = run_cvt_sr(x, rand)
    np.testing.assert_array_equal(y.view(np.uint32) >> 16, sr_model(x, rand))
    down = bf16_bits(xs)
    for k, xk in enumerate(xs):
        got = y[k * 256:(k + 1) * 256].view(np.uint32) >> 16
        assert set(got) <= {down[k], down[k] + 1}  # one of the two neighbours
        dropped = int(xk.view(np.uint32) & 0xFFFF)
        assert abs((got == down[k] + 1).mean() - dropped / 65536) <= 1 / 256
        truncated = np.array([down[k] << 16], np.uint32).view(np.float32)[0]
        assert np.all(np.abs(y[k * 256:(k + 1) * 256]) >= abs(truncated))
    # Random values and rands against the definition; NaN stays NaN, the
    # largest finite value can round to infinity (no saturation).
    x = np.concatenate([rng.standard_normal(250).astype(np.float32),
                        np.array([0x7FC00000, 0xFFC00001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
                                  0xFF800000], np.uint32).view(np.float32)])
    rand = rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)
    rand[-4:-2] = 0xFFFF
    y = run_cvt_sr(x, rand)
    finite = ~np.isnan(x)
    np.testing.assert_array_equal((y.view(np.uint32) >> 16)[finite], sr_model(x, rand)[finite])
    assert np.isnan(y[~finite]).all()
    assert np.isinf(y[-4:-2]).all() and np.signbit(y[-3])


def test_cvt_sr_ir_and_isa(fly_env):
    compile_only(fly_env, "gfx950")

    def body(A, B, tid):
        B[tid] = rocdl.cdna4.cvt_sr_f32_to_bf16(A[tid], tid * 7).to(fx.Float32)

    c = compile_body(body, dtype=np.float32)
    assert 'intrin = "llvm.amdgcn.cvt.sr.bf16.f32"' in c.module_text
    assert any(x.startswith("v_cvt_sr_bf16_f32") for x in isa_lines(c))


# -- the emulator runs the ordering-only instructions --------------------------

@pytest.mark.parametrize("arch,wave", CHIPS)
def test_hints_run_on_emulator(fly_env, arch, wave):
    on_emu(fly_env, arch)
    n = 128

    @flyc.kernel
    def kernel(A: fx.Tensor, B: fx.Tensor):
        tid = fx.thread_idx.x
        x = A[tid]
        rocdl.s_waitcnt(vmcnt=0)
        rocdl.s_waitcnt(0)
        rocdl.asyncmark()
        rocdl.wait_asyncmark(0)
        rocdl.sched_mfma(1)
        rocdl.sched_vmem(1)
        rocdl.sched_dsrd(1)
        rocdl.sched_dswr(1)
        rocdl.sched_barrier(0)
        rocdl.sched_group_barrier(2, 1, 0)
        rocdl.s_setprio(1)
        rocdl.s_barrier()
        rocdl.s_setprio(0)
        B[tid] = x + 1

    @flyc.jit
    def run(A: fx.Tensor, B: fx.Tensor):
        kernel(A, B).launch(grid=(2, 1, 1), block=(n, 1, 1))

    a = np.arange(n, dtype=np.int32)
    b = np.zeros(n, np.int32)
    run(a, b)
    np.testing.assert_array_equal(b, a + 1)


# -- located errors ----------------------------------------------------------------

def expect_error(fly_env, arch, body, marker, *fragments):
    compile_only(fly_env, arch)
    with pytest.raises(TraceError) as e:
        compile_body(body)
    assert e.value.filename == THIS_FILE and e.value.lineno == LINES[marker], str(e.value)
    for fragment in fragments:
        assert fragment in str(e.value), str(e.value)


def test_counter_out_of_range(fly_env):
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(vmcnt=64),  # L:vm64
                 "vm64", "fx.rocdl.s_waitcnt", "vmcnt=64", "[0, 63]")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(lgkmcnt=16),  # L:lgkm16
                 "lgkm16", "lgkmcnt=16", "[0, 15]")
    expect_error(fly_env, "gfx1100", lambda A, B, t: rocdl.rdna3.s_waitcnt(expcnt=8),  # L:exp8
                 "exp8", "fx.rocdl.rdna3.s_waitcnt", "expcnt=8", "[0, 7]")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(0x10000),  # L:bits
                 "bits", "bitfield=65536")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.wait_asyncmark(-1),  # L:neg
                 "neg", "fx.rocdl.wait_asyncmark", "count=-1")
    # lgkmcnt has 6 bits on gfx11: 16 is fine there.
    compile_only(fly_env, "gfx1100")
    assert bitfields(compile_body(lambda A, B, t: rocdl.s_waitcnt(lgkmcnt=16)).module_text) \
        == [encode("gfx11", lgkmcnt=16)]


def test_counter_kind_errors(fly_env):
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(vmcnt=t),  # L:dyn
                 "dyn", "vmcnt must be a compile-time integer")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(vmcnt=1.5),  # L:flt
                 "flt", "vmcnt must be a Python int")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_waitcnt(3, vmcnt=1),  # L:both
                 "both", "cannot be combined")
    expect_error(fly_env, "gfx1250", lambda A, B, t: rocdl.s_waitcnt(vmcnt=1),  # L:g1250
                 "g1250", "gfx1250", "gfx942")


def test_cvt_sr_needs_gfx950(fly_env):
    for arch in ("gfx942", "gfx1100"):
        expect_error(fly_env, arch,
                     lambda A, B, t: rocdl.cdna4.cvt_sr_f32_to_bf16(1.0, 0),  # L:sr
                     "sr", "cvt_sr_f32_to_bf16", arch, "gfx950")


def test_sched_and_lane_errors(fly_env):
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.sched_barrier("vmem"),  # L:kw
                 "kw", "fx.rocdl.sched_barrier", "'vmem'")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.sched_barrier(0x1000),  # L:mask
                 "mask", "mask=0x1000")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.sched_mfma(-2),  # L:cnt
                 "cnt", "fx.rocdl.sched_group_barrier", "size=-2")
    expect_error(fly_env, "gfx942", lambda A, B, t: rocdl.s_setprio(4),  # L:prio
                 "prio", "fx.rocdl.s_setprio", "priority=4", "[0, 3]")
    expect_error(fly_env, "gfx942",
                 lambda A, B, t: rocdl.update_dpp(fx.T.i32, t, t, 0x160, 15, 15, True),  # L:xm
                 "xm", "fx.rocdl.update_dpp", "dpp_ctrl=0x160", "gfx942")
    expect_error(fly_env, "gfx1100",
                 lambda A, B, t: rocdl.update_dpp(fx.T.i32, t, t, 0x142, 15, 15, True),  # L:bc
                 "bc", "dpp_ctrl=0x142", "gfx1100")
    expect_error(fly_env, "gfx942",
                 lambda A, B, t: rocdl.update_dpp(fx.T.f32, t, t, 0, 15, 15, True),  # L:ty
                 "ty", "old is a Int32 but res is Float32")
    expect_error(fly_env, "gfx942",
                 lambda A, B, t: rocdl.readfirstlane(fx.T.i32, t.to(fx.Float32)),  # L:rfl
                 "rfl", "fx.rocdl.readfirstlane", "src is a Float32")
    expect_error(fly_env, "gfx942",
                 lambda A, B, t: rocdl.permlanex16(fx.T.i32, t, t, 0, 0, False, False),  # L:x16
                 "x16", "fx.rocdl.permlanex16", "gfx942", "gfx10")
    expect_error(fly_env, "gfx1100",
                 lambda A, B, t: rocdl.permlane32_swap(None, t, t, False, False),  # L:swap
                 "swap", "fx.rocdl.permlane32_swap", "gfx1100", "gfx950")
