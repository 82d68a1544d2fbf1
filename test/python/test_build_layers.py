"""The layers below the compiler (ARCHITECTURE.md): the runtime links no
compiler library and no MLIR; support/, below both, links neither the
compiler nor the runtime. cmake/FlyLayers.cmake checks it whenever CMake
configures the project.

The check runs on the project itself, configured into a temporary build
directory: as it is (it passes), and with one bad link or include directory
added (it fails, naming the target and the chain of links). The bad command
comes from a CMAKE_PROJECT_FlyDSL_INCLUDE file that defers it to the end of
the top-level CMakeLists.txt, where it runs before the (also deferred)
check, as if a CMakeLists.txt of the tree said it. And the built tree: no
source of runtime/ or support/ is compiled with the compiler's headers on
its include path (build/compile_commands.json).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

BUILD_DIR = REPO_ROOT / "build"


def _cmake() -> str:
    path = shutil.which("cmake")
    if path is None:
        pytest.fail("cmake not found on PATH (scripts/setup.sh installs it)", pytrace=False)
    return path


def configure(tmp_path: Path, injected: str | None = None) -> tuple[int, str]:
    """Configures the project into tmp_path/build, with `injected` (CMake
    commands) run at the end of the top-level CMakeLists.txt; the exit
    status and the output, whitespace collapsed."""
    args = [
        _cmake(), "-G", "Ninja", "-S", str(REPO_ROOT), "-B", str(tmp_path / "build"),
        "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
    ]
    if injected is not None:
        include = tmp_path / "inject.cmake"
        include.write_text(f"cmake_language(DEFER CALL cmake_language EVAL CODE [=[{injected}]=])\n")
        args.append(f"-DCMAKE_PROJECT_FlyDSL_INCLUDE={include}")
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return result.returncode, " ".join((result.stdout + result.stderr).split())


def test_the_project_as_it_is_configures(tmp_path):
    status, output = configure(tmp_path)
    assert status == 0, output
    assert "FlyDSL's layers" not in output


BROKEN = {
    # what is added -> what the error must say
    "runtime-links-the-compiler": (
        "target_link_libraries(FlyRuntimeEmuJit PUBLIC FlyCompiler)",
        ["runtime target FlyRuntimeEmuJit reaches FlyCompiler, a target of compiler/, "
         "through FlyRuntimeEmuJit -> FlyCompiler"],
    ),
    "runtime-reaches-the-compiler-through-a-private-link": (
        "target_link_libraries(FlyRuntimeLaunch PRIVATE FlyArch)",
        ["runtime target FlyRuntimeLaunch reaches FlyArch, a target of compiler/, "
         "through FlyRuntimeLaunch -> FlyArch",
         "runtime target FlyRuntimeHip reaches FlyArch, a target of compiler/, "
         "through FlyRuntimeHip -> FlyRuntimeLaunch -> FlyArch",
         "runtime target FlyRuntimeEmuJit reaches FlyArch, a target of compiler/, "
         "through FlyRuntimeEmuJit -> FlyRuntimeLaunch -> FlyArch"],
    ),
    "support-links-mlir": (
        "target_link_libraries(FlyCache PUBLIC MLIR)",
        ["support target FlyCache reaches MLIR, an MLIR library, through FlyCache -> MLIR",
         "runtime target FlyRuntimeEmuJit reaches MLIR, an MLIR library, "
         "through FlyRuntimeEmuJit -> FlyCache -> MLIR"],
    ),
    "support-links-the-runtime": (
        "target_link_libraries(FlyCache PRIVATE FlyRuntimeLaunch)",
        ["support target FlyCache reaches FlyRuntimeLaunch, a target of runtime/, "
         "through FlyCache -> FlyRuntimeLaunch"],
    ),
    "runtime-links-a-top-level-target": (
        "add_library(FlyTopLevelHelper INTERFACE)\n"
        "target_link_libraries(FlyRuntimeEmu PUBLIC FlyTopLevelHelper)",
        ["runtime target FlyRuntimeEmu reaches FlyTopLevelHelper, a target of the "
         "top-level CMakeLists.txt, through FlyRuntimeEmu -> FlyTopLevelHelper",
         "runtime target FlyRuntimeEmuJit reaches FlyTopLevelHelper, a target of the "
         "top-level CMakeLists.txt, through FlyRuntimeEmuJit -> FlyRuntimeEmu -> FlyTopLevelHelper"],
    ),
    "runtime-includes-compiler-headers": (
        "target_include_directories(FlyRuntimeEmu PRIVATE ${PROJECT_SOURCE_DIR}/compiler/include)",
        ["runtime target FlyRuntimeEmu has the compiler's headers on its include path "
         f"(INCLUDE_DIRECTORIES: {REPO_ROOT}/compiler/include)"],
    ),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_broken_layer_fails_the_configure(tmp_path, case):
    injected, expected = BROKEN[case]
    status, output = configure(tmp_path, injected)
    assert status != 0, output
    assert "FlyDSL's layers (ARCHITECTURE.md) are broken" in output, output
    for line in expected:
        assert line in output, output
    # Only what was broken is reported: the tree's own links are clean.
    assert output.count(" reaches ") + output.count(" has the compiler's headers ") == len(expected), output


def test_runtime_and_support_sources_do_not_see_the_compiler_headers():
    commands_file = BUILD_DIR / "compile_commands.json"
    if not commands_file.is_file():
        pytest.fail(f"{commands_file} is missing; build with scripts/build.sh", pytrace=False)
    commands = json.loads(commands_file.read_text())
    lower = {}
    for entry in commands:
        source = Path(entry["file"])
        if not source.is_absolute():
            source = Path(entry["directory"]) / source
        try:
            relative = source.resolve().relative_to(REPO_ROOT)
        except ValueError:
            continue
        if relative.parts[0] in ("runtime", "support"):
            lower[relative.as_posix()] = entry["command"] if "command" in entry else " ".join(entry["arguments"])
    # The sources that include the disk cache's headers are among them.
    assert "runtime/emu/EmuLaunchTable.cpp" in lower and "support/lib/Cache/DiskCache.cpp" in lower
    assert f"{REPO_ROOT}/support/include" in lower["runtime/emu/EmuLaunchTable.cpp"]
    for source, command in lower.items():
        for root in (REPO_ROOT, BUILD_DIR):
            assert f"{root}/compiler/" not in command, f"{source} is compiled with {command}"
