"""The emulator runtime's execution core (runtime/emu, fly/runtime/Emu.h):
fibers, barriers, LDS, wave collectives, the grid's thread pool, traps and
launch validation.

The kernels are hand-written C++ in test/tools/fly-emu-selftest, calling the
C ABI as the compiler-generated host code will. Each case prints its results;
the expected values are recomputed here, from the ISA semantics documented in
Emu.h, independently of the runtime.
"""

from __future__ import annotations

import subprocess

import pytest

from conftest import _build_tool

MIB = 1 << 20


@pytest.fixture(scope="module")
def selftest() -> str:
    return _build_tool("fly-emu-selftest", "FLY_EMU_SELFTEST")


def run(tool: str, *args: str) -> dict:
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{args}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    out = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(": ")
        out[key] = value
    return out


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split()]


def hexes(text: str) -> list[int]:
    return [int(x, 16) for x in text.split()]


# ---- (a) barriers ----------------------------------------------------------

BARRIER_GRID, BARRIER_BLOCK = 4, 128


def barrier_expected() -> list[int]:
    n = BARRIER_BLOCK
    return [wg * 1000 + (tid + 1) % n + 1 for wg in range(BARRIER_GRID) for tid in range(n)]


def test_barrier_orders_lds_writes_before_reads(selftest):
    assert ints(run(selftest, "barrier")["out"]) == barrier_expected()


def test_without_the_barrier_the_result_differs(selftest):
    # The same kernel with its barrier skipped: a work-item reads its
    # neighbour's slot before the neighbour ran, so the test above would
    # catch an emulator that ignored barriers.
    out = ints(run(selftest, "barrier", "--skip-barrier")["out"])
    expected = barrier_expected()
    wrong = sum(a != b for a, b in zip(out, expected))
    assert wrong >= len(expected) // 2


def test_returned_work_items_do_not_block_barriers_or_collectives(selftest):
    res = run(selftest, "exited")
    n = 128
    expected = []
    for tid in range(n):
        if tid % 3 == 0:
            expected.append(0)  # returned at once, wrote nothing
            continue
        partner = n - 1 - tid
        src = tid if partner % 3 == 0 else partner
        expected.append(2 * src + 1)
    assert ints(res["out"]) == expected
    masks = [sum(1 << lane for lane in range(64) if (w * 64 + lane) % 3 != 0) for w in range(2)]
    assert hexes(res["masks"]) == masks


# ---- (b) LDS isolation -----------------------------------------------------


def test_lds_is_private_to_each_concurrent_workgroup(selftest):
    res = run(selftest, "lds-isolation")
    # Workgroups 0 and 1 met inside the kernel, so two ran at once.
    assert res["rendezvous"] == "ok"
    slots, rounds = 4096, 4
    residue = sum(s % 97 for s in range(slots))
    expected = [
        rounds * slots * wg * 10007 + slots * 101 * sum(range(rounds)) + rounds * residue
        for wg in range(64)
    ]
    assert ints(res["sums"]) == expected


# ---- (c) lane shuffles ----------------------------------------------------


@pytest.mark.parametrize("wave", [64, 32])
def test_bpermute_readlane_reduction(selftest, wave):
    res = run(selftest, "reduce", "--wave", str(wave))
    values = [((g * 2654435761) % (1 << 32)) % 1000 for g in range(3 * 256)]
    assert ints(res["sums"]) == [sum(values[wg * 256 : (wg + 1) * 256]) for wg in range(3)]
    assert res["disagreements"] == "0"


@pytest.mark.parametrize("wave", [64, 32])
def test_lane_ops_wrap_and_read_zero_from_inactive_lanes(selftest, wave):
    res = run(selftest, "lanes", "--wave", str(wave))
    block = 80

    def active(flat):
        return flat < block and flat % wave >= 3

    bperm, readl, first = [], [], []
    for flat in range(block):
        if not active(flat):
            bperm.append(-1)
            readl.append(-1)
            first.append(-1)
            continue
        base, lane = flat - flat % wave, flat % wave
        src = base + (lane + 1) % wave  # ((lane + ws + 1) * 4 + 3) >> 2 mod ws
        bperm.append(1000 + src if active(src) else 0)
        readl.append(1000 + base + 17 if active(base + 17) else 0)
        first.append(1000 + base + 3)
    assert ints(res["bpermute"]) == bperm
    assert ints(res["readlane"]) == readl
    assert ints(res["readlane_wrapped"]) == readl
    assert ints(res["readfirstlane"]) == first


# ---- (d) ballot ------------------------------------------------------------


@pytest.mark.parametrize("wave", [64, 32])
def test_ballot(selftest, wave):
    res = run(selftest, "ballot", "--wave", str(wave))
    block = 80

    def active(flat):
        return flat < block and flat % 7 != 6

    expected = []
    for flat in range(block):
        if not active(flat):
            expected.append(0)
            continue
        base = flat - flat % wave
        expected.append(
            sum(
                1 << lane
                for lane in range(wave)
                if active(base + lane) and ((base + lane) % 3 == 0 or lane == wave - 1)
            )
        )
    assert hexes(res["masks"]) == expected
    if wave == 32:
        assert all(m >> 32 == 0 for m in expected)


def test_collective_in_divergent_code_runs_with_the_lanes_that_reached_it(selftest):
    res = run(selftest, "divergent")
    assert hexes(res["masks"]) == [0xAAAA] * 16 + [0] * 48
    assert ints(res["after"]) == [1] * 64
    mixed = res["mixed"]
    assert "diverged across different wave operations" in mixed
    assert "ballot" in mixed and "readfirstlane" in mixed


# ---- (e) a 1024-work-item workgroup ---------------------------------------


def test_1024_work_items_within_the_memory_budget(selftest):
    res = run(selftest, "big")
    assert res["bad_ids"] == "0"
    assert ints(res["out"]) == [256 * (1023 - (f + 1) % 1024) + 120 for f in range(1024)]
    stack = int(res["committed_stack_bytes"])
    rss = int(res["rss_delta_bytes"])
    # Every fiber touched its stack (the measure sees them) ...
    assert stack >= 1024 * 4096
    # ... and stacks + 64 KiB of LDS stay within SPEC §12's 64 MiB, even in
    # the worst case of every stack fully touched.
    assert stack + 65536 <= 64 * MIB
    assert rss <= 64 * MIB
    assert 1024 * int(res["stack_bytes_per_fiber"]) + 65536 <= 64 * MIB


# ---- (f) traps ------------------------------------------------------------


def test_trap_reports_an_error_and_the_process_survives(selftest):
    res = run(selftest, "trap")
    error = res["error"]
    assert "workgroup (5,0,0)" in error and "work-item (37,0,0)" in error
    assert "out of bounds" in error
    assert res["workgroup5_finished"] == "0"
    assert res["after"] == "OK"
    assert ints(res["after_out"]) == barrier_expected()


# ---- (g) bad launches ------------------------------------------------------


def test_bad_launches_are_clear_errors(selftest):
    res = run(selftest, "bad")
    assert "2048 work-items" in res["block_2048"] and "limit of 1024" in res["block_2048"]
    assert "1025 work-items" in res["block_1025"]
    assert res["block_1024"] == "OK"
    assert "LDS of 65537 bytes" in res["lds_over"] and "65536" in res["lds_over"]
    assert res["lds_big_limit"] == "OK"
    assert "163844" in res["lds_over_big_limit"] and "163840" in res["lds_over_big_limit"]
    assert "wave size 48 is not supported" in res["wave_48"]
    assert "wave size 16 is not supported" in res["wave_16"]
    assert "grid 0x1x1" in res["grid_0"]
    assert "block 0x1x1" in res["block_0"]
    assert "without a kernel" in res["no_kernel"]
    assert "fiber stack of 100 bytes" in res["stack_tiny"]


# ---- fiber stacks ------------------------------------------------------------


def test_stack_overflow_is_an_error_and_the_stack_size_is_configurable(selftest):
    res = run(selftest, "overflow")
    error = res["default_stack"]
    assert "stack overflow" in error and "workgroup (1,0,0), work-item (3,0,0)" in error
    assert "32768 bytes" in error
    # The same kernel with 256 KiB stacks runs to the end.
    assert res["big_stack"] == "OK"

    def deep(depth):  # the selftest's recursion, level by level
        total = 7
        for d in range(1, depth + 1):
            total += d + d % 128
        return total

    expected = [deep(100 if (wg == 1 and tid == 3) else 2) for wg in range(2) for tid in range(64)]
    assert ints(res["out"]) == expected


# ---- random geometries ---------------------------------------------------------


def fuzz_expected(block, grid, wave, life, rounds=4):
    """The fuzz kernel on the barrier/ballot semantics of Emu.h: per round,
    every live work-item writes its slot, then reads a partner's (whatever
    the partner wrote last, or its initial value), then a ballot over the
    wave's live lanes."""
    n = block[0] * block[1] * block[2]
    out = []
    for wg in range(grid[0] * grid[1] * grid[2]):
        acc = [wg] * n
        lds = [50000 + f for f in range(n)]
        for r in range(rounds):
            live = [f for f in range(n) if life[f] > r]
            for f in live:
                lds[f] = f * 131 + r
            for f in live:
                acc[f] = (acc[f] + lds[(f * 7 + r) % n]) & 0xFFFFFFFF
            masks = {}
            for f in live:
                if acc[f] & 1:
                    masks[f // wave] = masks.get(f // wave, 0) | (1 << (f % wave))
            for f in live:
                acc[f] += bin(masks.get(f // wave, 0)).count("1")
        out += acc
    return out


def test_random_geometries_with_exits_barriers_and_ballots(selftest):
    res = run(selftest, "fuzz", "40")
    for k in range(40):
        bx, by, bz, gx, gy, gz, wave = ints(res[f"case{k}"])
        life = ints(res[f"life{k}"])
        expected = fuzz_expected((bx, by, bz), (gx, gy, gz), wave, life)
        assert ints(res[f"out{k}"]) == expected, f"case {k}: block {bx}x{by}x{bz}, wave {wave}"


# ---- invalid memory accesses of kernels ------------------------------------

ACCERR = "the page does not allow this access"
MAPERR = "nothing is mapped there"


def assert_runtime_still_works(res, key="after", out_key="after_out"):
    assert res[key] == "OK"
    assert ints(res[out_key]) == barrier_expected()


@pytest.mark.parametrize(
    "mode,signal_name,group,item,reason,finished",
    [
        # One thread, four workgroups: 0 and 1 ran, 2 faulted (its other
        # work-items wait at a barrier and are abandoned), 3 never started.
        ("read-protected", "SIGSEGV", 2, 17, ACCERR, [64, 64, 0, 0]),
        ("read-unmapped", "SIGSEGV", 2, 17, MAPERR, [64, 64, 0, 0]),
        ("write-readonly", "SIGSEGV", 1, 63, ACCERR, [64, 0, 0, 0]),
        ("bus", "SIGBUS", 3, 0, "no storage backs the page", [64, 64, 64, 0]),
    ],
)
def test_invalid_memory_access_is_an_error_and_the_process_survives(
        selftest, mode, signal_name, group, item, reason, finished):
    res = run(selftest, "fault", mode)
    error = res["error"]
    assert error.startswith(f"kernel fault in workgroup ({group},0,0), work-item ({item},0,0): ")
    # The exact address the work-item touched, and what happened there.
    assert f"invalid memory access ({signal_name}) at address {res['address']}: {reason}" in error
    assert int(res["address"], 16) != 0
    assert ints(res["finished"]) == finished
    if mode == "write-readonly":
        assert res["readonly_word"] == "11111111"  # the store did not land
    # The next launch in the same process runs normally.
    assert_runtime_still_works(res)


def test_invalid_memory_access_on_a_pool_worker(selftest):
    res = run(selftest, "fault", "pool")
    group = int(res["faulted_group"])
    # The kernel makes sure the fault is on a pool worker (the launcher's
    # workgroups wait for it); which workgroup that worker took first --
    # workgroup 0 too, when it started before the launcher -- is a race.
    assert 0 <= group < 8
    assert res["error"] == (
        f"kernel fault in workgroup ({group},0,0), work-item (9,0,0): invalid memory "
        f"access (SIGSEGV) at address {res['address']}: {ACCERR} (a write to read-only "
        "memory, or any access to a protected page)")
    # The faulting workgroup stopped. (Whether the launching thread's
    # workgroups, released by the claim just before the access, got past
    # their next barrier before the abort is a race: not checked.)
    assert ints(res["finished"])[group] == 0
    for key in ("0", "1"):
        assert_runtime_still_works(res, "after" + key, "after_out" + key)


def test_faults_that_are_not_the_kernels_go_to_the_previous_handler(selftest):
    res = run(selftest, "fault-chain")
    # raise(SIGSEGV) in a kernel is a sent signal, not an access fault: the
    # previous handler gets it and the launch completes.
    assert res["raised_in_kernel"] == "1"
    assert res["raise_kernel_finished"] == "64"
    # Faults outside launches, on the launching thread and on another one,
    # reach the previous handler, which fixes them up.
    assert res["main_thread"] == "chained=1 value=7"
    assert res["other_thread"] == "chained=2 value=9"
    # A kernel's own fault is reported by the emulator, not chained.
    assert res["kernel_fault"] == (
        f"kernel fault in workgroup (1,0,0), work-item (3,0,0): invalid memory access "
        f"(SIGSEGV) at address {res['kernel_address']}: {ACCERR} (a write to read-only "
        "memory, or any access to a protected page)")
    assert res["chained_after_kernel_fault"] == "2"


def _no_core_dump():
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@pytest.mark.parametrize("case,printed", [("fault-outside", "launched: OK"),
                                          ("fault-runtime", "launching")])
def test_other_faults_keep_the_default_action(selftest, tmp_path, case, printed):
    # No handler before the emulator's: a fault outside a launch, or in the
    # runtime's own code on a fiber, kills the process with SIGSEGV as it
    # would without the emulator.
    import signal

    proc = subprocess.run([selftest, case], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, preexec_fn=_no_core_dump)
    assert proc.returncode == -signal.SIGSEGV, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [printed]
