"""Checked emulation: the emulator as a kernel sanitizer (SPEC §9).

`FLYDSL_EMU_CHECK` (or the compile hint `emu_check`, which wins) names the
checks compiled into emulator code: `1`/`all` (every check), or a comma
list of `bounds`, `race`, `init` and `barrier`; `0`/empty: none (the
default; the code is unchanged). The checks are part of the artifact's cache key; kernels compiled for a chip ignore
them.

A checked launch describes each tensor argument's extent (its first byte
to one past its last element, from its address, shape and strides) to the
runtime, which reports accesses outside their own tensor; the reports
come back as an EmuCheckError (fly/runtime/Emu.h, "Checked emulation",
says exactly what each check reports).

What is reported:
  bounds   a global load, store or atomic (vector ones whole) whose bytes
           leave the tensor its address derives from -- a view's
           neighbour in the same allocation included -- or, when the
           compiler cannot trace the address to one kernel argument, that
           lies in no tensor of the launch; an LDS access outside the
           workgroup's static + dynamic LDS. The access does not happen (a
           load reads zeros), so the launch runs on and reports the rest.
  race     two accesses of one 4-byte LDS word by work-items of different
           waves with no barrier between them, at least one a store or
           atomic and not both atomics; the report names both work-items,
           both lines and both waves, whichever ran first. Lanes of one
           wave never race (AMD's wave runs each instruction for all its
           lanes, in program order).
  init     a load of LDS bytes no work-item of the workgroup has written
           since the workgroup started, per byte (a 2-byte store
           initialises 2 bytes); LDS stores, atomics, the LDS writes of
           LDS-DMA loads and of the tensor data mover count as writes.
           The load reads what the LDS holds; the report is all it does.
  barrier  a barrier released while work-items of the workgroup wait at
           different barriers, or while lanes of a wave that reached it
           have returned without reaching it. A wave that returned as a
           whole does not count (AMD's barrier does not wait for it).
What is not (yet): LDS accesses between two LDS allocations of one
workgroup (only the whole LDS is an extent), buffer-resource accesses (the
hardware's range checking applies), the LDS writes of LDS-DMA loads and of
the tensor data mover, private memory, kernel arguments that point into no
tensor the launch described (raw pointers), LDS reads the runtime makes
itself (ds_read_tr, the tensor data mover's stores from LDS), LDS written
by memset/memcpy (init), the LDS writes of LDS-DMA and the tensor data
mover (race), synchronisation other than barriers (race: a flag another
wave spins on is reported), uninitialised registers and private memory,
and two barriers of one source line (one site)."""

from __future__ import annotations

import re

from ..tracing.errors import FlyDSLError

IMPLEMENTED = ("bounds", "race", "init", "barrier")


class EmuCheckError(FlyDSLError):
    """A checked emulator launch found errors in a kernel. `reports` holds
    the ones the runtime showed, each a dict: kind ("out-of-bounds store of
    4 bytes", "uninitialised LDS read of 4 bytes", "barrier divergence"),
    file, line, block and thread (id triples), and for bounds and init
    reports tensor, offset and extent (bytes; the tensor is None for LDS,
    the offset then the LDS offset); race reports also have wave (this
    access's) and other (the earlier access: access, file, line, thread,
    wave); `count` is how many there were in all."""

    def __init__(self, message, filename=None, lineno=None, reports=(), count=0, kernel=""):
        super().__init__(message, filename, lineno)
        self.reports = list(reports)
        self.count = count
        self.kernel = kernel


def parse(text, what: str) -> str:
    """The checks `text` names, normalised ("bounds,barrier", "" for none);
    a FlyDSLError naming `what` for a name that is no check."""
    if text is None or text is False:
        return ""
    if text is True:
        return ",".join(IMPLEMENTED)
    if not isinstance(text, str):
        raise FlyDSLError(f"{what}={text!r}: a comma list of {', '.join(IMPLEMENTED)} "
                          "(or 1/all, 0)")
    value = text.strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return ""
    if value in ("1", "true", "yes", "on", "all"):
        return ",".join(IMPLEMENTED)
    names = []
    for name in (n.strip() for n in value.split(",")):
        if not name:
            continue
        if name not in IMPLEMENTED:
            raise FlyDSLError(f"{what}={text!r}: unknown check '{name}' (checks: "
                              f"{', '.join(IMPLEMENTED)}; or 1/all)")
        if name not in names:
            names.append(name)
    return ",".join(n for n in IMPLEMENTED if n in names)


def tensor_extent(value, address: int) -> tuple[int, int]:
    """(first byte, bytes) of what a tensor argument whose first element is
    at `address` spans: from its lowest to one past its highest element
    (a negative stride reaches below `address`)."""
    from . import arguments as args_mod

    if type(value).__name__ == "ndarray":
        itemsize = value.itemsize
        shape, strides = value.shape, [s // itemsize for s in value.strides]
    else:
        if isinstance(value, args_mod.TensorDescriptor):
            desc = value
        else:
            desc = args_mod.describe_array(value, "a tensor")
        shape, strides = desc.shape, desc.strides
        itemsize = max(1, (args_mod._ELEMENT_BITS.get(desc.element, 8) + 7) // 8)
    if any(n == 0 for n in shape):
        return address, 0
    last = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    first = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    return address + first * itemsize, (last - first + 1) * itemsize


_REPORT = re.compile(r"^(?P<kind>.+?) at (?P<where>.+?) in workgroup \((\d+),(\d+),(\d+)\), "
                     r"work-item \((\d+),(\d+),(\d+)\): (?P<detail>.*)$")
_TENSOR = re.compile(r"tensor '(?P<name>[^']*)' byte offset (?P<offset>-?\d+), its extent is "
                     r"(?P<extent>\d+) bytes")
_LDS = re.compile(r"LDS offset (?P<offset>-?\d+), the workgroup's LDS is (?P<extent>\d+) bytes")
_OTHER = re.compile(r"was (?P<access>loaded|stored|atomically updated) at (?P<where>.+?) by "
                    r"work-item \((\d+),(\d+),(\d+)\) \(wave (\d+); this is wave (\d+)\)")
_HEAD = re.compile(r"^check: (\d+) reports? in kernel (\S*)")


def is_report(detail: str) -> bool:
    return detail.startswith("check: ")


def error(prefix: str, detail: str) -> EmuCheckError:
    """The EmuCheckError of a launch whose runtime message is `detail` (the
    form Emu.h gives), at the first report's line."""
    lines = detail.splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    count = int(head.group(1)) if head else 0
    kernel = head.group(2) if head else ""
    reports = []
    for line in lines[1:]:
        m = _REPORT.match(line)
        if not m:
            continue
        where = m.group("where")
        file, _, number = where.rpartition(":")
        report = {"kind": m.group("kind"), "file": file or None,
                  "line": int(number) if number.isdigit() else None,
                  "block": tuple(int(m.group(i)) for i in (3, 4, 5)),
                  "thread": tuple(int(m.group(i)) for i in (6, 7, 8)),
                  "detail": m.group("detail"), "tensor": None, "offset": None, "extent": None}
        t = _TENSOR.search(m.group("detail")) or _LDS.search(m.group("detail"))
        if t:
            report["tensor"] = t.groupdict().get("name")
            report["offset"], report["extent"] = int(t.group("offset")), int(t.group("extent"))
        o = _OTHER.search(m.group("detail"))
        if o:
            ofile, _, onumber = o.group("where").rpartition(":")
            report["other"] = {"access": o.group("access"), "file": ofile or None,
                               "line": int(onumber) if onumber.isdigit() else None,
                               "thread": tuple(int(o.group(i)) for i in (3, 4, 5)),
                               "wave": int(o.group(6))}
            report["wave"] = int(o.group(7))
        reports.append(report)
    first = reports[0] if reports else {}
    return EmuCheckError(f"{prefix}{detail}", first.get("file"), first.get("line"), reports,
                         count, kernel)
