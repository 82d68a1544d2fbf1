"""The disk cache behind @flyc.jit: hits, invalidation, damage, processes.

Kernels live in small module files written by the tests, so that a test
can change a helper, a global or a closure value and import the module
again, as a user editing code would. Every test has a cache directory of
its own (FLYDSL_RUNTIME_CACHE_DIR).
"""

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "frontend" / "python"))
import flydsl.compiler as flyc  # noqa: E402

MODULE = """
import flydsl.compiler as flyc
import flydsl.expr as fx

SCALE = {scale}


def helper(x):
    return x * {factor}


def make_kernel(offset):
    @flyc.kernel(known_block_size=(64, 1, 1))
    def kernel(A: fx.Tensor, n: fx.Constexpr[int]):
        t = fx.thread_idx.x
        A[t] = helper(A[t]) + SCALE + offset + n
    return kernel


kernel = make_kernel({offset})


@flyc.jit
def run(A, n: fx.Constexpr[int] = 1):
    kernel(A, n).launch(grid=(1, 1, 1), block=(64, 1, 1))
"""

_count = itertools.count()


def cache_env_reset(monkeypatch, tmp_path):
    """A compile-only gfx942 environment, everything else at its default,
    with the disk cache in tmp_path/cache."""
    for name in ("FLYDSL_RUNTIME_KIND", "FLYDSL_COMPILE_OPT_LEVEL", "FLYDSL_DEBUG_ENABLE_DEBUG_INFO"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COMPILE_ONLY", "1")
    monkeypatch.setenv("ARCH", "gfx942")
    monkeypatch.setenv("FLYDSL_RUNTIME_CACHE_DIR", str(tmp_path / "cache"))
    flyc.Environment.reload()


@pytest.fixture
def cache_env(monkeypatch, tmp_path):
    cache_env_reset(monkeypatch, tmp_path)
    yield tmp_path
    monkeypatch.undo()
    flyc.Environment.reload()


def _load(tmp_path, scale=1.0, factor=2.0, offset=0.0, name="kmod"):
    """Imports the module text as a fresh module (same file, new import)."""
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(scale=scale, factor=factor, offset=offset))
    spec = importlib.util.spec_from_file_location(f"{name}_{next(_count)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile(module, n=1, tensor=None):
    return flyc.compile(module.run, np.zeros(64, np.float32) if tensor is None else tensor, n)


def _entries(tmp_path):
    return sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file())


def test_second_compile_is_a_hit_with_the_same_code_object(cache_env):
    first = _compile(_load(cache_env))
    second = _compile(_load(cache_env))
    assert not first.from_cache and second.from_cache
    assert second.code_objects == first.code_objects
    assert second.resources == first.resources
    assert [p.suffix for p in _entries(cache_env)] == [".flyc"]


def _array(shape=(64,), dtype=np.float32, offset=0):
    """A zeroed array; `offset` elements in, so that its address is aligned
    to less than 16 bytes when offset * itemsize is not a multiple of 16."""
    size = int(np.prod(shape))
    return np.zeros(size + offset, dtype)[offset:].reshape(shape)


# One key component changed, relative to the first compile (a raw f32
# vector of 64, n=1, for gfx942 at -O2, no debug info, the HIP runtime): the
# module's text ("module": _load's keywords), the Constexpr ("n"), the
# tensor argument ("tensor": made anew for each compile) or the environment
# ("env": set before the second compile).
CHANGES = {
    "helper": {"module": dict(factor=3.0)},
    "global": {"module": dict(scale=5.0)},
    "closure": {"module": dict(offset=7.0)},
    "constexpr": {"n": 2},
    "arch": {"env": dict(ARCH="gfx950")},
    "dtype": {"tensor": lambda: _array(dtype=np.float16)},
    "rank": {"tensor": lambda: _array(shape=(2, 32))},
    "static-leaves": {"tensor": lambda: flyc.from_dlpack(_array())},
    "divisibility": {"tensor": lambda: flyc.from_dlpack(_array()).mark_layout_dynamic()
                     .mark_shape_dynamic(0, divisibility=4)},
    "alignment": {"tensor": lambda: _array(offset=1)},
    "opt-level": {"env": dict(FLYDSL_COMPILE_OPT_LEVEL="1")},
    "debug-info": {"env": dict(FLYDSL_DEBUG_ENABLE_DEBUG_INFO="1")},
    "runtime": {"env": dict(FLYDSL_RUNTIME_KIND="emu")},
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_misses(cache_env, monkeypatch, change):
    """Each component of the key, changed alone, misses the disk cache (a
    new module import each time, so no in-memory cache answers), and hits
    it when compiled again the same way; the first entry stays valid. Every
    case has a cache directory of its own."""
    what = CHANGES[change]
    base = _compile(_load(cache_env), tensor=_array())
    assert not base.from_cache
    for name, value in what.get("env", {}).items():
        monkeypatch.setenv(name, value)
    flyc.Environment.reload()

    def changed():
        tensor = what["tensor"]() if "tensor" in what else _array()
        return _compile(_load(cache_env, **what.get("module", {})), what.get("n", 1), tensor)

    again = changed()
    assert not again.from_cache, f"a changed {change} reused a stale entry"
    assert len(_entries(cache_env)) == 2
    assert changed().from_cache, f"the same {change} missed the cache"
    monkeypatch.undo()
    cache_env_reset(monkeypatch, cache_env)
    assert _compile(_load(cache_env), tensor=_array()).from_cache
    assert len(_entries(cache_env)) == 2


@pytest.mark.parametrize("where, env, hits", [
    ("another directory", {}, True),
    ("lower in the file", {}, True),
    ("another directory", {"FLYDSL_DEBUG_ENABLE_DEBUG_INFO": "1"}, False),
    ("lower in the file", {"FLYDSL_DEBUG_ENABLE_DEBUG_INFO": "1"}, False),
    ("another directory", {"FLYDSL_RUNTIME_KIND": "emu"}, False),
])
def test_the_key_is_what_the_code_is_not_where_it_lives(cache_env, monkeypatch, where, env, hits):
    """SPEC §6: the same kernel from another directory (or moved down its
    file) hits the entry; file and line enter the key only where they enter
    the artifact: with debug info, and in emulator code (its fault messages
    name the line)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    flyc.Environment.reload()
    assert not _compile(_load(cache_env)).from_cache
    if where == "another directory":
        (cache_env / "elsewhere").mkdir()
        module = _load(cache_env / "elsewhere")
    else:
        path = cache_env / "kmod.py"
        path.write_text("# moved down by a comment\n\n" + path.read_text())
        spec = importlib.util.spec_from_file_location(f"kmod_{next(_count)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    assert _compile(module).from_cache == hits
    assert len(_entries(cache_env)) == (1 if hits else 2)


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_damaged_entry_is_rebuilt(cache_env, damage):
    first = _compile(_load(cache_env))
    (entry,) = _entries(cache_env)
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        entry.write_bytes(bytes(data[: len(data) // 2]))
    else:
        data[-10] ^= 0xFF
        entry.write_bytes(bytes(data))
    rebuilt = _compile(_load(cache_env))
    assert not rebuilt.from_cache
    assert rebuilt.code_objects == first.code_objects
    assert _compile(_load(cache_env)).from_cache  # valid again


def test_a_failed_compile_leaves_no_entry(cache_env):
    path = cache_env / "bad.py"
    path.write_text(textwrap.dedent("""
        import flydsl.compiler as flyc
        import flydsl.expr as fx

        @flyc.kernel
        def kernel(A: fx.Tensor):
            atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
            frag = fx.make_rmem_tensor(fx.make_layout((4, 2), (2, 1)), fx.Float32)
            fx.copy(atom, fx.zipped_divide(A, (8,))[None, 0], frag)

        @flyc.jit
        def run(A):
            kernel(A).launch(grid=(1, 1, 1), block=(64, 1, 1))
    """))
    spec = importlib.util.spec_from_file_location("bad_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(flyc.CompileError):
        flyc.compile(module.run, np.zeros(64, np.float32))
    assert _entries(cache_env) == []


def test_two_processes_compiling_at_once_leave_one_entry(cache_env):
    module_path = cache_env / "kmod.py"
    module_path.write_text(MODULE.format(scale=1.0, factor=2.0, offset=0.0))
    script = textwrap.dedent(f"""
        import importlib.util, sys
        import numpy as np
        import flydsl.compiler as flyc
        spec = importlib.util.spec_from_file_location("kmod", {str(module_path)!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        c = flyc.compile(m.run, np.zeros(64, np.float32), 1)
        print(len(c.code_objects[0][2]), c.resources)
    """)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    assert outputs[0][0] == outputs[1][0]
    assert [p.suffix for p in _entries(cache_env)] == [".flyc"]


KEY_SCRIPT = """
import sys
sys.path.insert(0, {package!r})
from flydsl.compiler.cache_key import _describe_code

def f(x):
    if x in {{"a", "b", "c", "d", "e"}}:  # a frozenset constant
        return x + {value!r}
    return (lambda y: y * 2)(x)  # a nested code object

print(_describe_code(f.__code__))
"""


def _code_key(tmp_path, name, value, seed):
    path = tmp_path / name
    path.write_text(KEY_SCRIPT.format(package=str(REPO_ROOT / "frontend" / "python"), value=value))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONHASHSEED=str(seed)))
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_code_keys_are_the_same_in_every_process(tmp_path):
    """A function is keyed by its compiled code, not its source text: the
    description must not change with the hash seed (set constants iterate
    in seed order), and must change with the code."""
    keys = {_code_key(tmp_path, "k.py", "!", seed) for seed in (0, 1, 2, 12345)}
    assert len(keys) == 1
    assert _code_key(tmp_path, "k.py", "?", 0) not in keys
    # With locations (debug info, the emulator) the file is part of it.
    assert _code_key(tmp_path, "other.py", "!", 0) not in keys


HOST_OBJECT_SCRIPT = """
import sys, time
sys.path.insert(0, {examples!r})
import numpy as np
import vector_add as va
import flydsl.compiler as flyc
a = np.random.rand(40, 130).astype(np.float32); b = np.random.rand(40, 130).astype(np.float32)
c = np.zeros_like(a)
compiled = flyc.compile(va.vector_add, a, b, c)
compiled(a, b, c)
assert np.array_equal(c, a + b)
print(compiled.from_cache)
"""


GLOBALS_KEY_SCRIPT = """
import sys
sys.path.insert(0, {package!r})
import flydsl.expr as fx
from flydsl.compiler.cache_key import _Collector

def helper(x):
    return x + {value!r}

COPIES = {{128: fx.UniversalCopy128b, 32: fx.UniversalCopy32b, "mine": helper}}

def f(bits):
    return COPIES[bits]()

collector = _Collector(locations=False)
collector.function(f)
print(collector.fields)
"""


def test_globals_holding_functions_key_the_same_in_every_process(tmp_path):
    """A global table of functions (fx's atoms, the user's helpers) is keyed
    by their names and, for the user's, their code: never by an address,
    which differs in every process (every call of a new process missed)."""
    def key(value):
        path = tmp_path / "g.py"
        path.write_text(GLOBALS_KEY_SCRIPT.format(package=str(REPO_ROOT / "frontend" / "python"),
                                                  value=value))
        out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout
    first = key(1)
    assert first == key(1) and " at 0x" not in first
    assert key(2) != first  # the helper in the table changed


def test_host_objects_are_compiled_once_across_processes(tmp_path):
    """The host entry's and the emulated kernels' native objects are kept in
    the disk cache (fly/Cache/HostObject.h): a second process finds the
    artifact and both objects, compiles nothing and stores nothing, and its
    results are right."""
    script = tmp_path / "run.py"
    script.write_text(HOST_OBJECT_SCRIPT.format(examples=str(REPO_ROOT / "examples")))
    cache = tmp_path / "cache"
    env = dict(os.environ, FLYDSL_RUNTIME_CACHE_DIR=str(cache), FLYDSL_RUNTIME_KIND="emu",
               ARCH="gfx942")
    env.pop("COMPILE_ONLY", None)

    def run():
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        # (name, inode, mtime): a store replaces an entry with a new file.
        entries = sorted((str(p.relative_to(cache)), p.stat().st_ino, p.stat().st_mtime_ns)
                         for p in cache.rglob("*") if p.is_file() and not p.name.endswith(".lock"))
        return out.stdout.strip(), entries

    first, entries = run()
    assert first == "False"
    # the artifact, the host entry's object, the kernels' object (and in the
    # emulator's SIMD mode their wave functions' object, compiled apart)
    assert len(entries) == (4 if os.environ.get("FLYDSL_EMU_MODE") == "wave" else 3)
    second, again = run()
    assert second == "True" and again == entries
    # Without the cache nothing is written and the call still works.
    env["FLYDSL_RUNTIME_ENABLE_CACHE"] = "0"
    third, still = run()
    assert third == "False" and still == entries


CLASS_MODULE = """
class Storage:
    width: int = {width}

def f():
    return Storage.width
"""


def test_a_users_class_is_keyed_by_what_it_declares_not_its_module_name(tmp_path):
    """A class the code reads (an fx.struct of shared storage, ...) from a
    module loaded under any name (importlib's spec_from_file_location, as
    runners and benchmarks load scripts) keys the same; its fields count."""
    from flydsl.compiler.cache_key import _Collector

    def key(width, module_name):
        path = tmp_path / f"{module_name}.py"
        path.write_text(CLASS_MODULE.format(width=width))
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        collector = _Collector(locations=False)
        collector.function(module.f)
        return [(f, v) for f, v in collector.fields]
    assert key(4, "first") == key(4, "second")
    assert key(4, "first") != key(8, "first")


def test_the_frontend_identity_follows_the_package_sources(tmp_path, monkeypatch):
    """The key's frontend part: every .py file of the package, nested ones
    too, by path, size and modification time; bytecode caches and other
    files do not count."""
    from flydsl.compiler import cache_key

    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    monkeypatch.setattr(cache_key, "_PACKAGE_DIR", str(tmp_path))
    identity = cache_key.frontend_identity.__wrapped__
    first = identity()
    assert identity() == first
    (tmp_path / "notes.txt").write_text("not code")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.py").write_text("cached")
    assert identity() == first
    (tmp_path / "sub" / "b.py").write_text("y = 22\n")  # another size
    second = identity()
    assert second != first
    os.utime(tmp_path / "a.py", ns=(1, 1))  # another modification time
    assert identity() not in (first, second)
