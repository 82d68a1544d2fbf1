"""torch's "cuda" device as host memory, with the emulated chip as its GPU.

A test written for a GPU makes its tensors with `device="cuda"`, moves
them with `.cuda()` / `.to("cuda")`, asks `torch.cuda` about the device and
synchronises, times with events and launches on streams. `install(arch)`
makes all of that work in a process whose torch has no GPU:

- a torch function mode, at the bottom of the mode stack, rewrites every
  `device=` that names CUDA to the CPU (factories, `*_like`, `.to`,
  `.cuda`, `with torch.device("cuda")`, `torch.set_default_device`). The
  tensors it makes are remembered (weakly) as *device* tensors, and so are
  the results of operations on them: `.cuda()` / `.to("cuda")` of a host
  tensor and `.cpu()` of a device tensor copy, as between real memories,
  and `Tensor.is_cuda` tells the two apart. `Tensor.device` stays the
  truth (`cpu`): torch's own code reads it;
- `torch.cuda`'s functions answer for one emulated GPU of chip `arch`:
  availability, the device count (1), properties from the compiler's chip
  table, streams and events (host wall-clock time: the emulator runs a
  launch when it is made, so an event pair times the emulation), memory
  statistics over the live device tensors, no-op synchronisation;
- what cannot be stood in for is an `EmulatedGPUError` naming the cause:
  CUDA graphs, a second GPU.

Kernels launched by `@flyc.jit` functions run on the emulator, which reads
the tensors' host memory directly.
"""

from __future__ import annotations

import contextlib
import os
import time
import weakref
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode


class EmulatedGPUError(RuntimeError):
    """Something a test asked of the GPU that the emulated one cannot do."""


_PLUGIN = "flydsl.testing.emulated_gpu"


# --- which device an argument names -----------------------------------------

def _cuda_index(device):
    """The CUDA device index `device` names (0 for a bare "cuda"), or None
    when it names another device type (or nothing)."""
    if device is None:
        return None
    if isinstance(device, bool):
        return None
    if isinstance(device, int):  # torch reads a bare int as a CUDA ordinal
        return device
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if kind.strip() != "cuda":
            return None
        return int(index) if index else 0
    if isinstance(device, torch.device):
        if device.type != "cuda":
            return None
        return device.index or 0
    return None


def _checked_index(device):
    index = _cuda_index(device)
    if index is not None and index != 0:
        raise EmulatedGPUError(
            f"device {device!r}: the emulator stands in for one GPU "
            f"(torch.cuda.device_count() is 1), so a test that needs cuda:{index} "
            f"cannot run under {_PLUGIN}")
    return index


# --- device tensors ----------------------------------------------------------

class _DeviceTensors:
    """The tensors that live on the emulated GPU, weakly held (by id: a
    tensor's == is elementwise), with the allocation statistics
    torch.cuda's memory queries report."""

    def __init__(self):
        self.refs = {}  # id(tensor) -> weakref to it
        self.peak = 0

    def _add_one(self, tensor):
        key = id(tensor)
        if key in self.refs:
            return

        def forget(ref, key=key):
            if self.refs.get(key) is ref:
                del self.refs[key]

        self.refs[key] = weakref.ref(tensor, forget)

    def add(self, value):
        if isinstance(value, torch.Tensor):
            self._add_one(value)
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, torch.Tensor):
                    self._add_one(item)

    def contains(self, value) -> bool:
        return isinstance(value, torch.Tensor) and id(value) in self.refs

    def any_in(self, args, kwargs) -> bool:
        refs = self.refs
        for value in (*args, *kwargs.values()):
            if isinstance(value, torch.Tensor):
                if id(value) in refs:
                    return True
            elif isinstance(value, (tuple, list)):
                if any(isinstance(v, torch.Tensor) and id(v) in refs for v in value):
                    return True
        return False

    def allocated(self) -> int:
        """Bytes of the distinct storages that live device tensors hold."""
        storages = {}
        for ref in list(self.refs.values()):
            tensor = ref()
            if tensor is not None:
                storage = tensor.untyped_storage()
                storages[storage.data_ptr()] = storage.nbytes()
        current = sum(storages.values())
        self.peak = max(self.peak, current)
        return current

    def reset_peak(self):
        self.peak = 0
        self.peak = self.allocated()

    def clear(self):
        self.refs.clear()
        self.peak = 0


_device = _DeviceTensors()


# --- the mode that maps "cuda" onto the host --------------------------------

def _tensor_cuda(func, args, kwargs):
    self = args[0]
    device = args[1] if len(args) > 1 else kwargs.get("device")
    _checked_index(device if device is not None else 0)
    if _device.contains(self):
        return self  # already on the device: torch returns the tensor itself
    memory_format = kwargs.get("memory_format", torch.preserve_format)
    out = self.clone(memory_format=memory_format)
    _device.add(out)
    _device.allocated()
    return out


def _tensor_cpu(func, args, kwargs):
    self = args[0]
    if not _device.contains(self):
        return func(*args, **kwargs)
    return self.clone(memory_format=kwargs.get("memory_format", torch.preserve_format))


def _tensor_to(func, args, kwargs):
    """Tensor.to in its three forms: to(dtype, ...), to(device, dtype, ...)
    and to(other, ...). A move between host and device copies."""
    self, rest, kwargs = args[0], list(args[1:]), dict(kwargs)
    target = None  # True: to the device; False: to the host; None: stays
    if rest and isinstance(rest[0], torch.Tensor):
        target = _device.contains(rest[0])
    else:
        if rest and not isinstance(rest[0], torch.dtype):
            device, rest[0] = rest[0], "cpu"
        else:
            device = kwargs.get("device")
            if device is not None:
                kwargs["device"] = "cpu"
        if device is not None:
            target = _checked_index(device) is not None
    out = func(self, *rest, **kwargs)
    on_device = _device.contains(self)
    if target is not None and target != on_device and out is self:
        out = self.clone()
    if target or (target is None and on_device):
        _device.add(out)
        if target and not on_device:
            _device.allocated()
    return out


def _identity(func, args, kwargs):
    return args[0]


def _record_stream(func, args, kwargs):
    return None


def _is_cuda(func, args, kwargs):
    return _device.contains(args[0])


def _is_pinned(func, args, kwargs):
    return False


_SPECIAL = {
    torch.Tensor.cuda: _tensor_cuda,
    torch.Tensor.cpu: _tensor_cpu,
    torch.Tensor.to: _tensor_to,
    torch.Tensor.pin_memory: _identity,
    torch.Tensor.is_pinned: _is_pinned,
    torch.Tensor.record_stream: _record_stream,
    torch.Tensor.is_cuda.__get__: _is_cuda,
}


class _HostDeviceMode(TorchFunctionMode):
    """Maps `device=` naming CUDA to the CPU, and keeps track of which
    tensors are on the (emulated) device."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        special = _SPECIAL.get(func)
        if special is not None:
            return special(func, args, kwargs)
        requested = False
        device = kwargs.get("device")
        if device is not None and _checked_index(device) is not None:
            kwargs = dict(kwargs, device="cpu")
            requested = True
        if kwargs.get("pin_memory"):
            kwargs = dict(kwargs, pin_memory=False)
        out = func(*args, **kwargs)
        if requested:
            _device.add(out)
            _device.allocated()
        elif _device.any_in(args, kwargs):
            _device.add(out)
        return out


# --- torch.cuda: streams, events, the device -----------------------------------

class Stream:
    """A stream of the emulated GPU. Kernels run when they are launched, so
    every stream is always idle; `cuda_stream` is a distinct handle that
    `fx.Stream` and `@flyc.jit` accept."""

    _next_handle = 0x1000

    def __new__(cls, device=None, priority=0, **kwargs):
        _checked_index(device if device is not None else 0)
        self = super().__new__(cls)
        handle = kwargs.get("stream_ptr")
        if handle is None:
            handle = Stream._next_handle
            Stream._next_handle += 0x10
        self.cuda_stream = int(handle)
        self.priority = priority
        self.device = torch.device("cuda", 0)
        return self

    def __init__(self, device=None, priority=0, **kwargs):
        pass

    def synchronize(self):
        pass

    def query(self) -> bool:
        return True

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and other.cuda_stream == self.cuda_stream

    def __hash__(self):
        return hash(self.cuda_stream)

    def __repr__(self):
        return f"<emulated torch.cuda.Stream device=cuda:0 cuda_stream={self.cuda_stream:#x}>"


class Event:
    """An event of the emulated GPU. Its time is the host's wall clock when
    it is recorded: the emulator has finished every launch made before,
    so an event pair measures the emulation, not a GPU."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream=None):
        self._time = time.perf_counter()

    def wait(self, stream=None):
        pass

    def query(self) -> bool:
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end_event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0


@dataclass(frozen=True)
class DeviceProperties:
    """What `torch.cuda.get_device_properties` says of the emulated chip."""

    name: str
    gcnArchName: str
    major: int
    minor: int
    warp_size: int
    multi_processor_count: int
    total_memory: int
    L2_cache_size: int
    shared_memory_per_block: int
    shared_memory_per_block_optin: int
    shared_memory_per_multiprocessor: int
    max_threads_per_block: int
    max_threads_per_multi_processor: int
    regs_per_multiprocessor: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', gcnArchName='{self.gcnArchName}', "
                f"major={self.major}, minor={self.minor}, total_memory="
                f"{self.total_memory // 2**20}MB, multi_processor_count="
                f"{self.multi_processor_count}, warp_size={self.warp_size})")


def _host_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def device_properties(arch: str) -> DeviceProperties:
    """The emulated GPU of chip `arch`, from the compiler's chip table. Its
    memory is the host's: that is where its tensors live."""
    from .. import _fly

    chip = _fly.chip_info(arch)
    digits = arch[3:]
    major, minor = int(digits[:-2]), int(digits[-2], 16)
    lds = chip["lds_bytes_per_workgroup"]
    return DeviceProperties(
        name=f"{chip['product']} (FlyDSL emulator)", gcnArchName=arch, major=major,
        minor=minor, warp_size=chip["wave_size"],
        multi_processor_count=chip["compute_units"], total_memory=_host_memory(),
        L2_cache_size=chip["l2_bytes"], shared_memory_per_block=lds,
        shared_memory_per_block_optin=lds, shared_memory_per_multiprocessor=lds,
        max_threads_per_block=chip["max_workgroup_size"],
        max_threads_per_multi_processor=2560 if chip["wave_size"] == 64 else 2048,
        regs_per_multiprocessor=512 * chip["wave_size"] * 4)


class _Refused:
    """A torch.cuda name the emulator cannot stand in for: using it is an
    EmulatedGPUError saying why."""

    def __init__(self, name: str, why: str):
        self._message = f"torch.cuda.{name}: {why} (under {_PLUGIN})"

    def __call__(self, *args, **kwargs):
        raise EmulatedGPUError(self._message)


_GRAPHS = ("CUDA graphs cannot be emulated: the emulator runs each kernel when it is "
           "launched, so there is no captured work to replay")


class _CudaNamespace:
    """The replacements for torch.cuda's functions, for one GPU of `arch`."""

    def __init__(self, arch: str):
        self.arch = arch
        self.properties = device_properties(arch)
        self.default_stream = Stream(stream_ptr=0)
        self.streams = [self.default_stream]

    def names(self) -> dict:
        ns = self
        props = self.properties

        @contextlib.contextmanager
        def stream(s):
            if s is None:
                yield
                return
            ns.streams.append(s)
            try:
                yield
            finally:
                ns.streams.pop()

        class device:  # torch.cuda.device(i): a context that selects a GPU
            def __init__(self, index):
                self.index = _checked_index(index if index is not None else 0)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        def memory_stats(device=None):
            _checked_index(device if device is not None else 0)
            current = _device.allocated()
            stats = {}
            for kind in ("allocated_bytes", "reserved_bytes", "active_bytes"):
                stats[f"{kind}.all.current"] = current
                stats[f"{kind}.all.peak"] = _device.peak
            return stats

        def allocated(device=None):
            _checked_index(device if device is not None else 0)
            return _device.allocated()

        def peak(device=None):
            _checked_index(device if device is not None else 0)
            _device.allocated()
            return _device.peak

        def reset_peak(device=None):
            _checked_index(device if device is not None else 0)
            _device.reset_peak()

        def mem_get_info(device=None):
            _checked_index(device if device is not None else 0)
            return props.total_memory - _device.allocated(), props.total_memory

        def set_device(index):
            _checked_index(index)

        def seed_all(seed):
            # The device's tensors draw from the host's generator. Not
            # torch.manual_seed: that seeds torch.cuda too, i.e. this.
            torch.default_generator.manual_seed(int(seed))

        def check_device(fn):
            def query(device=None):
                _checked_index(device if device is not None else 0)
                return fn()
            return query

        return {
            "is_available": lambda: True,
            "is_initialized": lambda: True,
            "init": lambda: None,
            "device_count": lambda: 1,
            "current_device": lambda: 0,
            "set_device": set_device,
            "device": device,
            "get_device_name": check_device(lambda: props.name),
            "get_device_properties": check_device(lambda: props),
            "get_device_capability": check_device(lambda: (props.major, props.minor)),
            "get_arch_list": lambda: [self.arch],
            "synchronize": lambda device=None: None,
            "Stream": Stream,
            "Event": Event,
            "stream": stream,
            "current_stream": lambda device=None: ns.streams[-1],
            "default_stream": lambda device=None: ns.default_stream,
            "set_stream": lambda s: ns.streams.__setitem__(-1, s),
            "empty_cache": lambda: None,
            "memory_allocated": allocated,
            "max_memory_allocated": peak,
            "memory_reserved": allocated,
            "max_memory_reserved": peak,
            "memory_stats": memory_stats,
            "reset_peak_memory_stats": reset_peak,
            "reset_max_memory_allocated": reset_peak,
            "mem_get_info": mem_get_info,
            "manual_seed": seed_all,
            "manual_seed_all": seed_all,
            "initial_seed": lambda: torch.default_generator.initial_seed(),
            "get_rng_state": lambda device="cuda": torch.default_generator.get_state(),
            "set_rng_state": lambda state, device="cuda": torch.default_generator.set_state(state),
            "CUDAGraph": _Refused("CUDAGraph", _GRAPHS),
            "graph": _Refused("graph", _GRAPHS),
            "make_graphed_callables": _Refused("make_graphed_callables", _GRAPHS),
        }


# --- generators ----------------------------------------------------------------

_HostGenerator = torch.Generator  # the class install() replaces, and restores


class _DeviceGenerator(_HostGenerator):
    """torch.Generator while the stand-in is installed: a generator for
    device "cuda" draws for the emulated device, whose tensors live in host
    memory, so it is a host generator (torch.Generator is a constructor, not
    a torch function: the device mode does not see its `device=`). Still an
    instance of torch's Generator class."""

    def __new__(cls, device="cpu"):
        where = torch.device(device)
        if where.type == "cuda":
            if where.index not in (None, 0):
                raise RuntimeError(f"the emulated GPU is device cuda:0, not {where}")
            where = torch.device("cpu")
        return super().__new__(cls, where)

    def __init__(self, device="cpu"):
        pass  # (made in __new__)


# --- installing ----------------------------------------------------------------

class _Installed:
    def __init__(self, arch, mode, saved):
        self.arch = arch
        self.mode = mode
        self.saved = saved


_installed: _Installed | None = None


def real_device_present() -> str | None:
    """The name of a real GPU torch can use, or None. Asked before
    install(): afterwards torch.cuda answers for the emulated one."""
    if _installed is not None:
        return None
    try:
        if torch.cuda.is_available() and torch.cuda.device_count() > 0:
            return torch.cuda.get_device_name(0)
    except (RuntimeError, AssertionError):
        return None
    return None


def install(arch: str) -> None:
    """Makes torch's "cuda" device the emulated GPU of chip `arch`, for
    this process (until uninstall())."""
    global _installed
    if _installed is not None:
        if _installed.arch != arch:
            raise EmulatedGPUError(f"the emulated GPU is already {_installed.arch}; "
                                   f"it cannot become {arch} in the same process")
        return
    present = real_device_present()
    if present is not None:
        raise EmulatedGPUError(
            f"torch has a real GPU here ({present}); the emulated GPU would hide it. "
            f"Run the tests without {_PLUGIN} (or on a machine without a GPU)")
    names = _CudaNamespace(arch).names()
    saved = {name: getattr(torch.cuda, name, _MISSING) for name in names}
    for name, value in names.items():
        setattr(torch.cuda, name, value)
    mode = _HostDeviceMode()
    # At the bottom of the mode stack, so that modes pushed later (with
    # torch.device("cuda"), set_default_device) hand their device= to it.
    torch._C._push_on_torch_function_stack(mode)
    torch.Generator = _DeviceGenerator
    _installed = _Installed(arch, mode, saved)


_MISSING = object()


def uninstall() -> None:
    """Gives torch.cuda and the device mapping back."""
    global _installed
    if _installed is None:
        return
    stack = []
    while torch._C._len_torch_function_stack() > 0:
        top = torch._C._pop_torch_function_stack()
        if top is _installed.mode:
            break
        stack.append(top)
    for mode in reversed(stack):
        torch._C._push_on_torch_function_stack(mode)
    for name, value in _installed.saved.items():
        if value is _MISSING:
            delattr(torch.cuda, name)
        else:
            setattr(torch.cuda, name, value)
    torch.Generator = _HostGenerator
    _installed = None
    _device.clear()


def installed_arch() -> str | None:
    """The emulated chip, or None when the stand-in is not installed."""
    return _installed.arch if _installed is not None else None
