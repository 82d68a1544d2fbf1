# lit configuration of FlyDSL's tests of fly-opt: each .mlir file under
# test/lit runs its "// RUN:" lines, usually `fly-opt %s ... | FileCheck %s`.
#
# The usual entry is the site configuration that CMake writes into the build
# tree (`lit build/test/lit`): it says where this build's tools are, then
# loads this file. Given a test in the source tree (`lit test/lit/X.mlir`),
# lit loads this file alone; it then assumes the build directory build/.

import os

import lit.formats

config.name = "FlyDSL"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "lit.site.cfg.py.in", "Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

if not hasattr(config, "fly_tools_dir"):  # no site configuration
    repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
    config.fly_obj_root = os.path.join(repo_root, "build")
    config.fly_tools_dir = os.path.join(config.fly_obj_root, "bin")
    config.llvm_tools_dir = "/usr/lib/llvm-22/bin"
# Output/ directories of the tests go to the build tree, not the sources.
config.test_exec_root = os.path.join(config.fly_obj_root, "test", "lit")

# The C runtime of mlir-runner (vector.print and friends).
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(os.path.dirname(config.llvm_tools_dir), "lib", "libmlir_c_runner_utils.so"))
)

# Each tool, written as a command in a RUN line, becomes its full path; the
# look-arounds keep names inside paths and options (--fly-opt-x, a/not.mlir)
# untouched.
tools = {
    "fly-opt": config.fly_tools_dir,
    "fly-compile": config.fly_tools_dir,
    "FileCheck": config.llvm_tools_dir,
    "not": config.llvm_tools_dir,
    "count": config.llvm_tools_dir,
    "llvm-objdump": config.llvm_tools_dir,
    "llvm-readelf": config.llvm_tools_dir,
    "mlir-runner": config.llvm_tools_dir,
    "mlir-translate": config.llvm_tools_dir,
}
for name, directory in tools.items():
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        lit_config.fatal(
            f"{name} not found at {path} (scripts/build.sh builds fly-opt; "
            "scripts/setup.sh installs LLVM 22's other tools)"
        )
    config.substitutions.append((rf"(?<![\w/.=-]){name}(?![\w/.-])", path))
