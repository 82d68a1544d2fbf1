"""The environment variables of SPEC §11 -- ours and the others FlyDSL
documents (its utils/env.py and tests/README.md), with FlyDSL's meaning --
read when first needed, and again when a compile starts and one of them
has changed since (the program set it: `Environment.refresh()`), or by
`Environment.reload()`.

Booleans accept 1/true/yes/on and 0/false/no/off (any case); enumerated
values any case; a malformed value is an error naming the variable.

Accepted, checked, and without an effect here (`NO_EFFECT` says why):
FlyDSL knobs of machinery this product does not have.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass

from ..tracing.errors import FlyDSLError
from .emu_check import parse as _emu_check_parse

# The variables read() reads, as it reads them: what refresh() compares.
_READ: dict[str, None] = dict.fromkeys(("FLYDSL_GPU_ARCH", "HSA_OVERRIDE_GFX_VERSION"))


def _get(name: str, default=None):
    _READ.setdefault(name)
    return os.environ.get(name, default)


def _snapshot() -> tuple:
    get = os.environ.get
    return tuple(get(name) for name in _READ)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _bool(name: str, default: bool) -> bool:
    text = _get(name)
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
    text = _get(name)
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
    text = _get(name)
    if text is None or not text.strip():
        return default
    by_lower = {choice.lower(): choice for choice in choices}
    choice = by_lower.get(text.strip().lower())
    if choice is None:
        raise FlyDSLError(f"environment variable {name}={text!r} must be one of "
                          + ", ".join(choices))
    return choice


def _detected_arch(chips) -> str:
    """The detected arch (FLYDSL_GPU_ARCH / HSA_OVERRIDE_GFX_VERSION first,
    as FlyDSL's get_rocm_arch, then the device's, else gfx942) when the
    compiler has it, else an error naming where it came from."""
    from ..runtime.device import get_rocm_arch  # only without ARCH

    arch = get_rocm_arch()
    if arch in chips:
        return arch
    source = next((n for n in ("FLYDSL_GPU_ARCH", "HSA_OVERRIDE_GFX_VERSION")
                   if os.environ.get(n)), None)
    where = f"environment variable {source}={os.environ[source]!r}" if source else "the device"
    raise FlyDSLError(f"{where} gives the arch {arch}, which this compiler does not support "
                      f"(supported: {', '.join(chips)}; set ARCH to compile for one of them)")


class _FileHandler(logging.FileHandler):
    """FLYDSL_DEBUG_LOG_TO_FILE's handler."""


class _StderrHandler(logging.Handler):
    """Writes to whatever sys.stderr is at the time of the record."""

    def emit(self, record):
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


# FlyDSL's variables that are read and checked but change nothing here.
NO_EFFECT = {
    "FLYDSL_COMPILE_LLVM_DIR": "code generation is always the linked LLVM of libFlyCompiler "
                               "(no external LLVM toolchain step)",
    "FLYDSL_DEBUG_AST_DIFF": "the AST rewriter does not print diffs",
    "FLYDSL_DEBUG_MAX_LOC_DEPTH": "locations are the user's line, not a call-site chain",
    "FLYDSL_DEBUG_LOG_TO_CONSOLE": "the flydsl logger always writes to stderr at "
                                   "FLYDSL_DEBUG_LOG_LEVEL",
    "FLYDSL_AUTOTUNE_CONFIG_DIR": "offline autotune artifacts are not supported",
    "FLYDSL_KTRACE_ENABLE": "no in-kernel wave tracing",
    "FLYDSL_KTRACE_BUFFER_BYTES": "no in-kernel wave tracing",
    "FLYDSL_KTRACE_BLOCKS": "no in-kernel wave tracing",
    "FLYDSL_KTRACE_DUMP_DIR": "no in-kernel wave tracing",
}


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
    compile_backend: str = "rocm"
    run_only: bool = False
    print_origin_ir: bool = False
    log_to_file: str = ""
    autotune: bool = False
    autotune_cache_dir: str = ""
    emu_check: str = ""  # FLYDSL_EMU_CHECK, normalised (emu_check.parse)

    _current = None
    _read_from = None  # the variables' values _current was read from

    @classmethod
    def current(cls) -> "Environment":
        if cls._current is None:
            cls.reload()
        return cls._current

    @classmethod
    def refresh(cls) -> "Environment":
        """current(), read again if a variable changed since (os.environ
        set by the program itself): what a compile starts with, as FlyDSL
        reads its environment when it compiles. Warm calls do not look."""
        if cls._current is None or _snapshot() != cls._read_from:
            cls.reload()
        return cls._current

    @classmethod
    def reload(cls) -> "Environment":
        from .. import _fly

        cls._current = cls.read()
        cls._read_from = _snapshot()
        _fly.invalidate_dispatch()  # the warm calls' entries were made under the old one
        # FLYDSL_DEBUG_LOG_LEVEL: the level of the "flydsl" logger, which
        # writes to stderr unless the application gave it a handler.
        logger = logging.getLogger("flydsl")
        logger.setLevel(cls._current.log_level.upper())
        if not logger.handlers:
            handler = _StderrHandler()
            handler.setFormatter(logging.Formatter("[flydsl] %(message)s"))
            logger.addHandler(handler)
        # FLYDSL_DEBUG_LOG_TO_FILE: the same records, also to that file.
        for handler in [h for h in logger.handlers if isinstance(h, _FileHandler)]:
            if handler.baseFilename != os.path.abspath(cls._current.log_to_file or "\0"):
                logger.removeHandler(handler)
                handler.close()
        if cls._current.log_to_file and not any(isinstance(h, _FileHandler)
                                                for h in logger.handlers):
            try:
                handler = _FileHandler(cls._current.log_to_file)
            except OSError as err:
                raise FlyDSLError(f"environment variable FLYDSL_DEBUG_LOG_TO_FILE="
                                  f"{cls._current.log_to_file!r}: {err}") from None
            handler.setFormatter(logging.Formatter("[flydsl] %(levelname)s %(message)s"))
            logger.addHandler(handler)
        return cls._current

    @classmethod
    def read(cls) -> "Environment":
        from .. import _fly

        chips = _fly.supported_chips()
        home = os.path.expanduser("~")
        # FlyDSL's variables that change nothing here are still checked.
        for name in ("FLYDSL_DEBUG_AST_DIFF", "FLYDSL_DEBUG_LOG_TO_CONSOLE",
                     "FLYDSL_KTRACE_ENABLE"):
            _bool(name, False)
        _int("FLYDSL_DEBUG_MAX_LOC_DEPTH", 5, 1, 2**31 - 1)
        _int("FLYDSL_KTRACE_BUFFER_BYTES", 64 << 20, 1 << 12, 1 << 31)
        return cls(
            compile_only=_bool("COMPILE_ONLY", False),
            # ARCH, else the device's (FLYDSL_GPU_ARCH / HSA_OVERRIDE_GFX_VERSION
            # first, as FlyDSL's get_rocm_arch), else gfx942.
            arch=_choice("ARCH", None, chips) or _detected_arch(chips),
            opt_level=_int("FLYDSL_COMPILE_OPT_LEVEL", 2, 0, 3),
            dump_ir=_bool("FLYDSL_DUMP_IR", False),
            dump_dir=_get("FLYDSL_DUMP_DIR") or os.path.join(home, ".flydsl", "debug"),
            dump_asm=_bool("FLYDSL_DEBUG_DUMP_ASM", False),
            debug_info=_bool("FLYDSL_DEBUG_ENABLE_DEBUG_INFO", False),
            print_after_all=_bool("FLYDSL_DEBUG_PRINT_AFTER_ALL", False),
            verify_each_pass=_bool("FLYDSL_DEBUG_ENABLE_VERIFIER", False),
            show_stacktrace=_bool("FLYDSL_DEBUG_SHOW_STACKTRACE", False),
            log_level=_choice("FLYDSL_DEBUG_LOG_LEVEL", "warning",
                              ["debug", "info", "warning", "error"]),
            # "rocm" is FlyDSL's name of the HIP runtime.
            runtime_kind={"rocm": "hip"}.get(k, k) if (k := _choice(
                "FLYDSL_RUNTIME_KIND", None, ["hip", "emu", "rocm"])) else None,
            cache_dir=_get("FLYDSL_RUNTIME_CACHE_DIR") or os.path.join(home, ".flydsl", "cache"),
            enable_cache=_bool("FLYDSL_RUNTIME_ENABLE_CACHE", True),
            compile_backend=(_get("FLYDSL_COMPILE_BACKEND") or "rocm").strip().lower(),
            run_only=_bool("FLYDSL_RUNTIME_RUN_ONLY", False),
            print_origin_ir=_bool("FLYDSL_DEBUG_PRINT_ORIGIN_IR", False),
            log_to_file=_get("FLYDSL_DEBUG_LOG_TO_FILE", ""),
            autotune=_bool("FLYDSL_AUTOTUNE", False),
            autotune_cache_dir=(_get("FLYDSL_AUTOTUNE_CACHE_DIR")
                                or os.path.join(home, ".flydsl", "autotune")),
            emu_check=_emu_check_parse(_get("FLYDSL_EMU_CHECK"),
                                       "environment variable FLYDSL_EMU_CHECK"),
        )

    def dump_dir_for(self, name: str) -> str:
        """Where FLYDSL_DUMP_IR writes the stages of `name` ("" when off)."""
        return os.path.join(self.dump_dir, name) if self.dump_ir else ""
