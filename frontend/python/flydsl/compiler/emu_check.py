"""Checked emulation: the emulator as a kernel sanitizer (SPEC §9).

`FLYDSL_EMU_CHECK` (or the compile hint `emu_check`, which wins) names the
checks compiled into emulator code: `1`/`all` (every check), or a comma
list of `bounds`, `race`, `init` and `barrier`, where `bounds=strict` is
`bounds` with warnings for buffer accesses past their range (e.g.
`all,bounds=strict`; the same spelling for `fly-emu-run --check`);
`0`/empty: none (the default; the code is unchanged). The checks are part
of the artifact's cache key; kernels compiled for a chip ignore them.

A checked launch describes each tensor argument's extent (its first byte
to one past its last element, from its address, shape and strides) to the
runtime, which reports accesses outside their own tensor; the reports
come back as an EmuCheckError, the warnings as EmuCheckWarning through
`warnings` (CompiledFunction._run calls emit_warnings after the launch)
(fly/runtime/Emu.h, "Checked emulation", says exactly what each check
reports).

What is reported:
  bounds   a global load, store or atomic (vector ones whole; the global
           source of an LDS DMA too) whose bytes leave the tensor its
           address derives from -- a view's neighbour in the same
           allocation included -- or, when the compiler cannot trace the
           address to one kernel argument, that lies in no tensor of the
           launch. An LDS access traced to one LDS allocation (a static
           global: each SharedAllocator leaf is one, named __fly_shared_<n>
           in the IR; the dynamic LDS is one extent) that leaves it, into
           another allocation or the dynamic LDS, named with the offset
           from its start; an untraced LDS access outside the workgroup's
           static + dynamic LDS. A buffer-resource (V#) access keeps the
           hardware's range checking, by the rule the emulator executes
           (voffset + soffset, per dword, against num_records): past the
           range it reads 0 or is dropped, no error; with `bounds=strict`
           it is an EmuCheckWarning. Inside the V#'s range but outside the
           tensor the V# was made from (a V# larger than its tensor, like
           make_buffer_tensor's 4 GiB default) it is an out-of-bounds
           report. gfx1250's tensor data mover: each element against the
           tensor of the descriptor's global address (past it, as out of
           the descriptor's range: a load writes 0) and the workgroup's
           LDS, one report of each per instruction. A register fragment
           (a vector) read or written at a run-time index past its length
           ("out-of-bounds register fragment read", write: the index and
           the length, in the vector's scalars), or at a constant one that
           survived compilation, when the work-item reaches it; a load or
           store through a pointer traced to one alloca of static size
           that leaves its bytes ("out-of-bounds private load of <b>
           bytes": the alloca, "alloca #<k> at file:line", and the offset
           from its start). A reported access does not happen (a load or
           fragment read gives zeros), so the launch runs on and reports
           the rest.
  race     two accesses of one 4-byte LDS word by work-items of different
           waves with no barrier between them, at least one a store or
           atomic and not both atomics; the report names both work-items,
           both lines and both waves, whichever ran first. Lanes of one
           wave never race (AMD's wave runs each instruction for all its
           lanes, in program order). The tensor data mover's LDS side
           counts, as accesses of the issuing lane at the op's line.
  init     a load of LDS bytes no work-item of the workgroup has written
           since the workgroup started, per byte (a 2-byte store
           initialises 2 bytes); LDS stores, atomics, the LDS writes of
           LDS-DMA loads and of the tensor data mover count as writes.
           The load reads what the LDS holds; the report is all it does.
  barrier  a barrier released while work-items of the workgroup wait at
           different barriers, or while lanes of a wave that reached it
           have returned without reaching it. A wave that returned as a
           whole does not count (AMD's barrier does not wait for it).
           Barriers sharing a source line (a helper's barrier called from
           two branches) are told apart: "file:line (barrier #k of n on
           that line)", the report's `site`.
Warnings (bounds=strict): one per kind and site of a launch, counted
("... (x37)"), naming the kernel, the line, the first work-item, the V#
(the tensor its base points into, else its base address), the byte offset
and num_records; the launch succeeds.

What the checks cannot see: private memory through a pointer not traced
to one alloca of static size; a fragment index inside the fragment's
vector but outside the elements its layout uses; the LDS writes of
LDS-DMA loads (race);
kernel arguments that point into no tensor the launch described (raw
pointers); LDS reads the runtime makes itself (ds_read_tr, the tensor data
mover's stores from LDS); LDS written by memset/memcpy (init);
synchronisation other than barriers (race: a flag another wave spins on is
reported); two waves writing different bytes of one word (race: reported,
it is per word); uninitialised registers."""

from __future__ import annotations

import re

from ..tracing.errors import FlyDSLError


class _Pattern:
    """A regular expression compiled on first use (match, search): the
    reports' patterns cost importing flydsl nothing."""

    def __init__(self, pattern: str):
        self._pattern, self._compiled = pattern, None

    def __getattr__(self, name):
        if self._compiled is None:
            self._compiled = re.compile(self._pattern)
        return getattr(self._compiled, name)

IMPLEMENTED = ("bounds", "race", "init", "barrier")
STRICT = "bounds=strict"  # bounds, and out-of-range buffer accesses are warnings


class EmuCheckWarning(UserWarning):
    """A checked emulator launch's warning (with `bounds=strict`: a buffer
    access past its buffer resource's range, which the hardware's range
    checking makes a read of 0 or a dropped store). One per kind and site
    of a launch: `report` is a dict as EmuCheckError's reports are (its
    `tensor` the one the resource was made from, or None; `offset` the
    byte offset in the resource, `num_records` its range in bytes),
    `count` how many accesses of that site there were, `kernel` the
    kernel's name."""

    def __init__(self, message, report=None, count=1, kernel=""):
        super().__init__(message)
        self.report = report or {}
        self.count = count
        self.kernel = kernel


class EmuCheckError(FlyDSLError):
    """A checked emulator launch found errors in a kernel. `reports` holds
    the ones the runtime showed, each a dict: kind ("out-of-bounds store of
    4 bytes", "uninitialised LDS read of 4 bytes", "barrier divergence"),
    file, line, block and thread (id triples), and for bounds and init
    reports tensor, offset and extent (bytes; the tensor is None for LDS,
    the offset then the LDS offset); race reports also have wave (this
    access's) and other (the earlier access: access, file, line, thread,
    wave); LDS reports of an access traced to one LDS allocation also have
    allocation (its symbol), allocation_offset and allocation_extent
    (bytes), and so do private reports (allocation "alloca #1 at k.py:7";
    offset and extent are then the alloca's); register fragment reports
    ("out-of-bounds register fragment read", write) have index and
    elements (the fragment's length); site is None but for a barrier sharing its line with another
    ("barrier #2 of 2 on that line"); `count` is how many there were in
    all."""

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
        raise FlyDSLError(f"{what}={text!r}: a comma list of {', '.join(IMPLEMENTED)}, "
                          f"{STRICT} (or 1/all, 0)")
    value = text.strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return ""
    if value in ("1", "true", "yes", "on", "all"):
        return ",".join(IMPLEMENTED)
    names, strict = [], False
    for name in (n.strip() for n in value.split(",")):
        if not name:
            continue
        if name in ("1", "true", "yes", "on", "all"):
            names.extend(IMPLEMENTED)
            continue
        if name.replace(" ", "") == STRICT:
            name, strict = "bounds", True
        if name not in IMPLEMENTED:
            raise FlyDSLError(f"{what}={text!r}: unknown check '{name}' (checks: "
                              f"{', '.join(IMPLEMENTED)}, {STRICT}; or 1/all)")
        if name not in names:
            names.append(name)
    return ",".join(STRICT if n == "bounds" and strict else n
                    for n in IMPLEMENTED if n in names)


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


_REPORT = _Pattern(r"^(?P<kind>.+?) at (?P<where>.+?) in workgroup \((\d+),(\d+),(\d+)\), "
                     r"work-item \((\d+),(\d+),(\d+)\): (?P<detail>.*)$")
_TENSOR = _Pattern(r"tensor '(?P<name>[^']*)' byte offset (?P<offset>-?\d+), its extent is "
                     r"(?P<extent>\d+) bytes")
_LDS = _Pattern(r"LDS offset (?P<offset>-?\d+), the workgroup's LDS is (?P<extent>\d+) bytes")
_ALLOCATION = _Pattern(r"(?P<space>LDS allocation|the dynamic LDS, allocation|private allocation) "
                         r"'(?P<name>[^']*)' byte offset (?P<offset>-?\d+), its extent is "
                         r"(?P<extent>\d+) bytes")
_FRAGMENT = _Pattern(r"^index (?P<index>-?\d+), the fragment has (?P<elements>\d+) elements?")
_OTHER = _Pattern(r"was (?P<access>loaded|stored|atomically updated) at (?P<where>.+?) by "
                    r"work-item \((\d+),(\d+),(\d+)\) \(wave (\d+); this is wave (\d+)\)")
_HEAD = _Pattern(r"^check: (\d+) reports? in kernel (\S*)")


def _where(text: str):
    """(file, line, note) of a report's "file:line" or "file:line (note)"
    (a barrier that shares its line: "barrier #2 of 2 on that line")."""
    note = None
    m = re.match(r"^(.*?) \((barrier #\d+ of \d+ on that line)\)$", text)
    if m:
        text, note = m.group(1), m.group(2)
    file, _, number = text.rpartition(":")
    return file or None, int(number) if number.isdigit() else None, note


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
        file, number, note = _where(m.group("where"))
        report = {"kind": m.group("kind"), "file": file, "line": number,
                  "block": tuple(int(m.group(i)) for i in (3, 4, 5)),
                  "thread": tuple(int(m.group(i)) for i in (6, 7, 8)),
                  "detail": m.group("detail"), "tensor": None, "offset": None, "extent": None,
                  "site": note}
        t = _TENSOR.search(m.group("detail")) or _LDS.search(m.group("detail"))
        if t:
            report["tensor"] = t.groupdict().get("name")
            report["offset"], report["extent"] = int(t.group("offset")), int(t.group("extent"))
        a = _ALLOCATION.search(m.group("detail"))
        if a:
            report["allocation"] = a.group("name")
            report["allocation_offset"] = int(a.group("offset"))
            report["allocation_extent"] = int(a.group("extent"))
            if a.group("space") == "private allocation":
                report["offset"], report["extent"] = int(a.group("offset")), int(a.group("extent"))
        f = _FRAGMENT.match(m.group("detail"))
        if f:
            report["index"], report["elements"] = int(f.group("index")), int(f.group("elements"))
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


_WARNING = _Pattern(r"^kernel (?P<kernel>\S*): (?P<report>.*?)(?: \(x(?P<count>\d+)\))?$")
_RESOURCE = _Pattern(r"buffer resource (?:of tensor '(?P<tensor>[^']*)'|with base (?P<base>0x[0-9a-f]+))"
                       r".*?, byte offset (?P<offset>\d+), num_records (?P<records>\d+)")


def take_warnings():
    """The warnings of this thread's checked emulator launches since the
    last call, as EmuCheckWarning objects (the runtime's
    fly_emu_take_warnings), with the file and line of each."""
    from .. import _fly

    found = []
    for line in _fly.emu_take_warnings().splitlines():
        w = _WARNING.match(line)
        m = _REPORT.match(w.group("report")) if w else None
        if not m:
            continue
        file, number, _ = _where(m.group("where"))
        report = {"kind": m.group("kind"), "file": file, "line": number,
                  "block": tuple(int(m.group(i)) for i in (3, 4, 5)),
                  "thread": tuple(int(m.group(i)) for i in (6, 7, 8)),
                  "detail": m.group("detail"), "tensor": None, "base": None,
                  "offset": None, "num_records": None}
        r = _RESOURCE.search(m.group("detail"))
        if r:
            report["tensor"] = r.group("tensor")
            report["base"] = int(r.group("base"), 16) if r.group("base") else None
            report["offset"], report["num_records"] = int(r.group("offset")), int(r.group("records"))
        found.append(EmuCheckWarning(line[len("kernel "):], report, int(w.group("count") or 1),
                                     w.group("kernel")))
    return found


def emit_warnings() -> None:
    """Issues this thread's pending launch warnings through `warnings`, each
    at the user's file and line of its access."""
    import warnings

    for w in take_warnings():
        file, line = w.report.get("file"), w.report.get("line")
        if file and line:
            warnings.warn_explicit(w, EmuCheckWarning, file, line)
        else:
            warnings.warn(w, stacklevel=3)
