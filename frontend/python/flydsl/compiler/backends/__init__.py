"""The registry of compile backends: `register_backend(name, cls)`, and
`get_backend()` for the one FLYDSL_COMPILE_BACKEND names (default
"rocm"). The @flyc.jit compile path asks it for its backend and builds its
`CompileOptions` from that backend's target."""

from __future__ import annotations

import inspect

from ... import _fly
from ...tracing.errors import ArgumentError, FlyDSLError
from ...tracing.trace import register_target_resolver
from .base import BaseBackend, CompileOptions, GPUTarget

_registry: dict = {}
_instances: dict = {}  # (name, arch) -> backend


def register_backend(name: str, backend_cls: type, *, force: bool = False) -> None:
    """Registers a BaseBackend subclass under `name` (any case). A name
    already taken is an error unless `force`."""
    if not isinstance(name, str) or not name:
        raise ArgumentError(f"register_backend(name): a non-empty str, got {name!r}")
    if not (isinstance(backend_cls, type) and issubclass(backend_cls, BaseBackend)):
        raise ArgumentError(f"register_backend(backend_cls): a subclass of BaseBackend, got "
                            f"{backend_cls!r}")
    if inspect.isabstract(backend_cls):
        missing = ", ".join(sorted(backend_cls.__abstractmethods__))
        raise ArgumentError(f"register_backend: {backend_cls.__name__} does not implement "
                            f"{missing}")
    key = name.lower()
    if key in _registry and not force:
        raise ArgumentError(f"register_backend: the compile backend '{name}' is already "
                            "registered (force=True replaces it)")
    _registry[key] = backend_cls
    for cached in [k for k in _instances if k[0] == key]:
        del _instances[cached]
    _fly.invalidate_dispatch()  # warm calls compiled by the old one compile again


def compile_backend_name() -> str:
    """The compile backend FLYDSL_COMPILE_BACKEND names (default "rocm")."""
    from ..env import Environment

    return Environment.current().compile_backend


def _backend_class(name: str) -> type:
    cls = _registry.get(name)
    if cls is None:
        raise FlyDSLError(f"unknown compile backend '{name}' (FLYDSL_COMPILE_BACKEND); the "
                          f"registered backends are: {', '.join(sorted(_registry))}")
    return cls


def get_backend(name: str | None = None, *, arch: str = "") -> BaseBackend:
    """The backend `name` (default: compile_backend_name()) for `arch`
    (default: the backend's detected target), one instance per pair."""
    if name is None:
        name = compile_backend_name()
    if not isinstance(name, str):
        raise ArgumentError(f"get_backend(name): a str or None, got {name!r}")
    name = name.lower()
    cls = _backend_class(name)
    if arch is None:
        arch = ""
    if not isinstance(arch, str):
        raise ArgumentError(f"get_backend(arch=): a str, got {arch!r}")
    target = cls.make_target(arch) if arch else cls.detect_target()
    backend = _instances.get((name, target))
    if backend is None:
        backend = _instances[(name, target)] = cls(target)
    return backend


def current_target() -> GPUTarget:
    """The target being compiled for now."""
    return get_backend().target


from .rocm import RocmBackend  # noqa: E402

register_backend("rocm", RocmBackend)
register_target_resolver(lambda arch: get_backend(arch=arch or "").target)

__all__ = ["BaseBackend", "CompileOptions", "GPUTarget", "compile_backend_name",
           "current_target", "get_backend", "register_backend"]
