"""Shared fixtures for the Python test suite.

fly-opt is located through $FLY_OPT, else <repo>/build/bin/fly-opt (the
repository root is two levels above this file). A missing tool is a test
failure with a clear message, never a silent skip.
"""

from __future__ import annotations

import faulthandler
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]

if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def marker_lines(path) -> dict[str, int]:
    """{marker: line} of the `# L:<marker>` comments of a test file: the
    lines its located-error tests expect in the messages."""
    lines = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        found = re.search(r"# L:(\w+)", line)
        if found:
            lines[found.group(1)] = number
    return lines


def _executable(path) -> bool:
    return path is not None and os.path.isfile(path) and os.access(path, os.X_OK)


def locate_fly_opt() -> str:
    env = os.environ.get("FLY_OPT")
    candidate = env if env else str(REPO_ROOT / "build" / "bin" / "fly-opt")
    if not _executable(candidate):
        how = "$FLY_OPT" if env else "the default <repo>/build/bin/fly-opt"
        pytest.fail(
            f"fly-opt not found at {candidate} (from {how}). Build it with "
            f"`ninja -C {REPO_ROOT / 'build'} fly-opt` or point $FLY_OPT at it.",
            pytrace=False,
        )
    return candidate


def _llvm_tool(name: str, env_var: str) -> str:
    env = os.environ.get(env_var)
    candidates = [env] if env else []
    candidates += [shutil.which(name), shutil.which(f"{name}-22"), f"/usr/lib/llvm-22/bin/{name}"]
    for c in candidates:
        if _executable(c):
            return c
    pytest.fail(f"{name} not found (set ${env_var}); it ships in Debian's mlir-22-tools.", pytrace=False)


def locate_runner_libs(runner: str):
    """The C runner-utils libraries that sit in the LLVM lib dir next to the
    runner's bin dir (libmlir_c_runner_utils.so, libmlir_runner_utils.so)."""
    env = os.environ.get("MLIR_RUNNER_LIBS")
    if env:
        return env.split(",")
    libdir = Path(os.path.realpath(runner)).parent.parent / "lib"
    libs = [libdir / "libmlir_c_runner_utils.so", libdir / "libmlir_runner_utils.so"]
    missing = [str(p) for p in libs if not p.exists()]
    if missing:
        pytest.fail(f"MLIR runner libraries missing: {missing} (set $MLIR_RUNNER_LIBS)", pytrace=False)
    return [str(p) for p in libs]


def pytest_configure(config):
    if not config.pluginmanager.hasplugin("timeout"):
        raise pytest.UsageError(
            "pytest-timeout is not installed: without it a hung test hangs the whole run "
            "(scripts/setup.sh installs it; pip install pytest-timeout).")


# The suite has no skips: a test that cannot run here (a tool or package
# missing) fails and says why, so a green run means every test ran.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skipped(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skipped(outcome.get_result())


def _fail_skipped(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, and this suite allows no skips: {reason}"


# pytest-timeout's signal reaches a test only when it runs Python code; a
# test stuck in native code (a kernel that never ends on the emulator, a
# deadlocked fiber) is ended NATIVE_HANG_GRACE seconds after its budget by
# faulthandler, which prints every thread's stack (the innermost test frame
# names the test) on the terminal's stderr, not into pytest's capture.
NATIVE_HANG_GRACE = 60
_hang_report = None


def _terminal_stderr(config):
    """A file on the stderr pytest had before it began capturing."""
    global _hang_report
    if _hang_report is None:
        capman = config.pluginmanager.getplugin("capturemanager")
        capturing = getattr(capman, "_global_capturing", None)
        saved = getattr(getattr(capturing, "err", None), "targetfd_save", None)
        _hang_report = os.fdopen(os.dup(sys.__stderr__.fileno() if saved is None else saved), "w")
    return _hang_report


def pytest_timeout_set_timer(item, settings):
    faulthandler.dump_traceback_later(settings.timeout + NATIVE_HANG_GRACE, exit=True,
                                      file=_terminal_stderr(item.config))
    # Returns None, so pytest-timeout sets its own timer too.


def pytest_timeout_cancel_timer(item):
    faulthandler.cancel_dump_traceback_later()


def pytest_unconfigure(config):
    global _hang_report
    if _hang_report is not None:
        faulthandler.cancel_dump_traceback_later()
        _hang_report.close()
        _hang_report = None


@pytest.fixture(scope="session")
def fly_opt() -> str:
    return locate_fly_opt()


@pytest.fixture(scope="session")
def mlir_runner() -> str:
    return _llvm_tool("mlir-runner", "MLIR_RUNNER")


@pytest.fixture(scope="session")
def runner_libs(mlir_runner):
    return locate_runner_libs(mlir_runner)


def _build_tool(name: str, env_var: str) -> str:
    """A tool of this build: $<env_var>, else <repo>/build/bin/<name>."""
    env = os.environ.get(env_var)
    candidate = env if env else str(REPO_ROOT / "build" / "bin" / name)
    if not _executable(candidate):
        pytest.fail(
            f"{name} not found at {candidate}. Build it with "
            f"`ninja -C {REPO_ROOT / 'build'} {name}` or set ${env_var}.",
            pytrace=False,
        )
    return candidate


@pytest.fixture(scope="session")
def emu_run() -> str:
    """test/tools/fly-emu-run (see emu_run.py)."""
    return _build_tool("fly-emu-run", "FLY_EMU_RUN")


@pytest.fixture(scope="session")
def fly_cache_tool() -> str:
    return _build_tool("fly-cache-tool", "FLY_CACHE_TOOL")


@pytest.fixture(autouse=True, scope="session")
def _flydsl_cache_dir(tmp_path_factory):
    """The front end's disk cache lives in a temporary directory for the
    whole test session, never in the user's ~/.flydsl/cache."""
    os.environ["FLYDSL_RUNTIME_CACHE_DIR"] = str(tmp_path_factory.mktemp("flydsl-cache"))
    yield


@pytest.fixture
def fly_env(monkeypatch):
    """Sets the front end's environment variables for one test --
    `fly_env(ARCH="gfx1100", COMPILE_ONLY=None)`, None unsets -- and has
    flydsl read them again; everything is restored after the test."""
    import flydsl.compiler as flyc

    def set_env(**values):
        for name, value in values.items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        flyc.Environment.reload()

    yield set_env
    monkeypatch.undo()
    flyc.Environment.reload()
