"""The environment variables of SPEC §11, read once per process (and again
by `Environment.reload()`, which the tests use).

Booleans accept 1/true/yes/on and 0/false/no/off (any case); a malformed
value is an error naming the variable.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass

from .errors import FlyDSLError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _bool(name: str, default: bool) -> bool:
    text = os.environ.get(name)
    if text is None:
        return default
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise FlyDSLError(f"environment variable {name}={text!r} is not a boolean "
                      "(use 1/true/yes/on or 0/false/no/off)")


def _int(name: str, default: int, low: int, high: int) -> int:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise FlyDSLError(f"environment variable {name}={text!r} is not an integer "
                          f"from {low} to {high}")
    return value


def _choice(name: str, default: str | None, choices) -> str | None:
    """One of `choices`, given in any case (INFO is info, GFX942 gfx942)."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    by_lower = {choice.lower(): choice for choice in choices}
    choice = by_lower.get(text.strip().lower())
    if choice is None:
        raise FlyDSLError(f"environment variable {name}={text!r} must be one of "
                          + ", ".join(choices))
    return choice


class _StderrHandler(logging.Handler):
    """Writes to whatever sys.stderr is at the time of the record."""

    def emit(self, record):
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


@dataclass
class Environment:
    compile_only: bool
    arch: str
    opt_level: int
    dump_ir: bool
    dump_dir: str
    dump_asm: bool
    debug_info: bool
    print_after_all: bool
    verify_each_pass: bool
    show_stacktrace: bool
    log_level: str
    runtime_kind: str | None
    cache_dir: str
    enable_cache: bool

    _current = None
    # Incremented whenever the environment is read again: what was derived
    # from an older one (the jit fast path) is not reused.
    generation = 0

    @classmethod
    def current(cls) -> "Environment":
        if cls._current is None:
            cls.reload()
        return cls._current

    @classmethod
    def reload(cls) -> "Environment":
        cls._current = cls.read()
        cls.generation += 1
        # FLYDSL_DEBUG_LOG_LEVEL: the level of the "flydsl" logger, which
        # writes to stderr unless the application gave it a handler.
        logger = logging.getLogger("flydsl")
        logger.setLevel(cls._current.log_level.upper())
        if not logger.handlers:
            handler = _StderrHandler()
            handler.setFormatter(logging.Formatter("[flydsl] %(message)s"))
            logger.addHandler(handler)
        return cls._current

    @classmethod
    def read(cls) -> "Environment":
        from .. import _fly

        chips = _fly.supported_chips()
        home = os.path.expanduser("~")
        return cls(
            compile_only=_bool("COMPILE_ONLY", False),
            arch=_choice("ARCH", "gfx942", chips),
            opt_level=_int("FLYDSL_COMPILE_OPT_LEVEL", 2, 0, 3),
            dump_ir=_bool("FLYDSL_DUMP_IR", False),
            dump_dir=os.environ.get("FLYDSL_DUMP_DIR") or os.path.join(home, ".flydsl", "debug"),
            dump_asm=_bool("FLYDSL_DEBUG_DUMP_ASM", False),
            debug_info=_bool("FLYDSL_DEBUG_ENABLE_DEBUG_INFO", False),
            print_after_all=_bool("FLYDSL_DEBUG_PRINT_AFTER_ALL", False),
            verify_each_pass=_bool("FLYDSL_DEBUG_ENABLE_VERIFIER", False),
            show_stacktrace=_bool("FLYDSL_DEBUG_SHOW_STACKTRACE", False),
            log_level=_choice("FLYDSL_DEBUG_LOG_LEVEL", "warning",
                              ["debug", "info", "warning", "error"]),
            runtime_kind=_choice("FLYDSL_RUNTIME_KIND", None, ["hip", "emu"]),
            cache_dir=os.environ.get("FLYDSL_RUNTIME_CACHE_DIR") or os.path.join(home, ".flydsl", "cache"),
            enable_cache=_bool("FLYDSL_RUNTIME_ENABLE_CACHE", True),
        )

    def dump_dir_for(self, name: str) -> str:
        """Where FLYDSL_DUMP_IR writes the stages of `name` ("" when off)."""
        return os.path.join(self.dump_dir, name) if self.dump_ir else ""
