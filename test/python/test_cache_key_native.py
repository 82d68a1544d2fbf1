"""The parts of a disk-cache key the runtime extension computes for the
front end (bindings/DiskCache.cpp): the identity of the package's sources
(`tree_digest`, and `TreeDigestTask`, the same on a thread of its own) and
the description of a function's compiled code (`code_digest`). Each is
checked against a reference written here in Python, with the blake3
package as the hash."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import blake3
import pytest

from conftest import REPO_ROOT

from flydsl import _fly
from flydsl.compiler import cache_key, jit_function
from flydsl.tracing.errors import ArgumentError

PACKAGE = REPO_ROOT / "frontend" / "python"


def reference_tree_digest(root, suffix=".py") -> str:
    """The documented listing, from os.walk: per file named *suffix, its path
    from `root` (from '/'), size and st_mtime_ns, NUL-terminated; each
    directory's files by name before its subdirectories, which follow by
    name, depth first; __pycache__ skipped."""
    parts = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == "." else "/" + relative.replace(os.sep, "/")
        for name in sorted(files):
            if name.endswith(suffix):
                st = os.stat(os.path.join(directory, name))
                parts.append(f"{prefix}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0")
    return blake3.blake3("".join(parts).encode()).hexdigest()


@pytest.fixture
def tree(tmp_path):
    for path, text in {"b.py": "x = 1\n", "a.py": "y = 2\n", "notes.txt": "text",
                       "sub/c.py": "c = 3\n", "sub/deeper/d.py": "d = 4\n",
                       "sub/e.py": "e = 5\n", "z/f.py": "", "z/g.pyc": "not source",
                       "__pycache__/h.py": "cached", "sub/__pycache__/i.py": "cached",
                       "empty/.keep": ""}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def test_tree_digest_is_the_documented_listing(tree):
    digest = _fly.tree_digest(str(tree), ".py")
    assert digest == reference_tree_digest(tree)
    assert len(digest) == 64 and int(digest, 16) >= 0
    assert _fly.tree_digest(str(tree), ".txt") == reference_tree_digest(tree, ".txt")
    assert _fly.tree_digest(str(tree), ".txt") != digest


def test_tree_digest_changes_with_each_source_file(tree):
    digests = [_fly.tree_digest(str(tree), ".py")]

    def changed():
        digest = _fly.tree_digest(str(tree), ".py")
        assert digest == reference_tree_digest(tree)
        assert digest not in digests
        digests.append(digest)

    (tree / "sub" / "deeper" / "d.py").write_text("d = 44\n")  # another size
    changed()
    os.utime(tree / "a.py", ns=(1, 1_000_000_001))  # another modification time
    changed()
    os.utime(tree / "a.py", ns=(1, 1_000_000_002))  # by a nanosecond
    changed()
    (tree / "z" / "new.py").write_text("")
    changed()
    (tree / "sub" / "c.py").rename(tree / "sub" / "c2.py")
    changed()
    # Neither other files nor bytecode caches count.
    (tree / "notes.txt").write_text("other text")
    (tree / "__pycache__" / "h.py").write_text("recached")
    (tree / "sub" / "__pycache__" / "j.py").write_text("")
    assert _fly.tree_digest(str(tree), ".py") == digests[-1]


def test_tree_digest_follows_symbolic_links(tree):
    (tree / "link").symlink_to(tree / "sub", target_is_directory=True)
    (tree / "alias.py").symlink_to(tree / "a.py")
    digest = _fly.tree_digest(str(tree), ".py")
    assert "/link/deeper/d.py" in _listing(tree)
    assert digest == blake3.blake3(_listing(tree).encode()).hexdigest()


def _listing(root) -> str:
    """The listing with links followed (os.walk does not follow them)."""
    parts = []

    def walk(directory, prefix):
        names = sorted(os.listdir(directory))
        for name in names:
            if name.endswith(".py"):
                st = os.stat(os.path.join(directory, name))
                parts.append(f"{prefix}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0")
        for name in names:
            path = os.path.join(directory, name)
            if not name.endswith(".py") and name != "__pycache__" and os.path.isdir(path):
                walk(path, f"{prefix}/{name}")

    walk(root, "")
    return "".join(parts)


def test_tree_digest_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such-directory"):
        _fly.tree_digest(str(tmp_path / "no-such-directory"), ".py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone.py")
    with pytest.raises(FileNotFoundError, match="dangling.py"):
        _fly.tree_digest(str(tmp_path), ".py")
    task = _fly.TreeDigestTask(str(tmp_path), ".py")
    with pytest.raises(FileNotFoundError, match="dangling.py"):
        task.result()


def test_the_task_gives_the_tree_digest(tree):
    task = _fly.TreeDigestTask(str(tree), ".py")
    assert task.directory == str(tree)
    assert task.result() == _fly.tree_digest(str(tree), ".py") == reference_tree_digest(tree)
    assert task.result() == task.result()  # the walk it made, again


def test_the_task_in_a_forked_process(tree):
    """A child forked while the task may still run has no such thread: it
    walks the tree itself, and gets the same digest."""
    task = _fly.TreeDigestTask(str(tree), ".py")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, task.result().encode())
        finally:
            os._exit(0)
    os.close(write)
    child = os.read(read, 100).decode()
    os.close(read)
    assert os.waitpid(pid, 0)[1] == 0
    assert child == task.result() == reference_tree_digest(tree)


def test_the_frontend_identity_is_the_package_walk():
    """In a fresh process, the walk started at import is the package's
    listing, and a first call that takes it gives the same as walking
    again."""
    script = (f"import sys; sys.path.insert(0, {str(PACKAGE)!r})\n"
              "from flydsl import _fly\n"
              "from flydsl.compiler import cache_key\n"
              "print(cache_key.frontend_identity())\n"
              "print(_fly.tree_digest(cache_key._PACKAGE_DIR, '.py'))\n"
              "print(cache_key._PACKAGE_DIR)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=REPO_ROOT / "test")
    assert out.returncode == 0, out.stderr
    identity, again, directory = out.stdout.split()
    assert identity == again == reference_tree_digest(directory)
    assert directory == str(PACKAGE / "flydsl")


def reference_code_digest(code, locations):
    """The documented description of a code object, in Python."""
    parts = [code.co_code, getattr(code, "co_exceptiontable", b"")]
    if locations:
        parts.append(code.co_linetable)
    data = [len(part).to_bytes(8, "little") + part for part in parts]
    header = (code.co_name, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
              code.co_flags, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    if locations:
        header += (code.co_filename, code.co_firstlineno)
    data.append(repr(header).encode())
    for const in code.co_consts:
        data.append(reference_const(const, locations).encode() + b"\0")
    return blake3.blake3(b"".join(data)).hexdigest()


def reference_const(const, locations):
    if isinstance(const, types.CodeType):
        return "code:" + reference_code_digest(const, locations)
    if isinstance(const, (frozenset, set)):
        return "frozenset(" + ",".join(sorted(reference_const(c, locations) for c in const)) + ")"
    if isinstance(const, tuple):
        return "tuple(" + ",".join(reference_const(c, locations) for c in const) + ")"
    return f"{type(const).__name__}:{const!r}"


def _constants(x, *rest, key=None, **options):
    words = {"alpha", "beta", "gamma", "délta"}
    if x in {1, 2.5, -0.0, 3j, b"raw", None, ("t", 1)} or x in words:
        return (lambda y, z=(1, (2, "3")): y + 1)(x), ..., True, 1e300
    try:
        return [v * 2 for v in rest if v not in frozenset({7, 8})]
    except ValueError:
        return sorted(options, key=key)


def _same_but_one(x, *rest, key=None, **options):
    words = {"alpha", "beta", "gamma", "delta"}
    if x in {1, 2.5, -0.0, 3j, b"raw", None, ("t", 1)} or x in words:
        return (lambda y, z=(1, (2, "3")): y + 1)(x), ..., True, 1e300
    try:
        return [v * 2 for v in rest if v not in frozenset({7, 8})]
    except ValueError:
        return sorted(options, key=key)


def test_code_digest_is_the_documented_description():
    codes = [_constants.__code__, _same_but_one.__code__, reference_code_digest.__code__,
             cache_key._Collector.describe.__code__, os.path.join.__code__,
             subprocess.run.__code__]
    for code in codes:
        for locations in (False, True):
            assert _fly.code_digest(code, locations) == reference_code_digest(code, locations)
    # One letter of one constant (in a set) apart.
    assert (_fly.code_digest(_constants.__code__, False)
            != _fly.code_digest(_same_but_one.__code__, False))
    # The same code elsewhere: equal without locations only.
    scope = {}
    exec(compile("\n\ndef f(a, b=2):\n    return {a, b, 'c'} | {3}\n", "elsewhere.py", "exec"),
         scope)
    here = {}
    exec(compile("def f(a, b=2):\n    return {a, b, 'c'} | {3}\n", "here.py", "exec"), here)
    assert (_fly.code_digest(scope["f"].__code__, False)
            == _fly.code_digest(here["f"].__code__, False))
    assert (_fly.code_digest(scope["f"].__code__, True)
            != _fly.code_digest(here["f"].__code__, True))
    assert cache_key._describe_code(here["f"].__code__) == \
        _fly.code_digest(here["f"].__code__, True)


def test_code_digest_takes_code_objects_only():
    with pytest.raises(TypeError, match="a code object"):
        _fly.code_digest(_constants, False)


def _plain(a, b, c=3, d=None):
    pass


def _keyword_only(a, *, b=1):
    pass


def _variadic(a, *rest, **options):
    pass


@pytest.mark.parametrize("fn, args, kwargs", [
    (_plain, (1, 2), {}), (_plain, (1, 2, 4), {}), (_plain, (1, 2, 4, 5), {}),
    (_plain, (1,), {"b": 2}), (_plain, (), {"a": 1, "b": 2, "d": 0}),
    (_keyword_only, (1,), {}), (_keyword_only, (1,), {"b": 2}),
    (_variadic, (1, 2, 3), {"x": 4}), (_variadic, (1,), {}),
])
def test_call_arguments_are_what_binding_gives(fn, args, kwargs):
    jit = jit_function.JitFunction(fn)
    bound = jit.signature.bind(*args, **kwargs)
    bound.apply_defaults()
    got = jit._arguments(args, kwargs)
    assert list(got.items()) == list(bound.arguments.items())


@pytest.mark.parametrize("args, kwargs, message", [
    ((1,), {}, r"_plain\(\) missing a required argument: 'b'"),
    ((1, 2, 3, 4, 5), {}, r"_plain\(\) takes 2 to 4 positional arguments \(a, b, c=3, d=None\), "
                          r"got 5"),
    ((1, 2), {"e": 1}, r"_plain\(\) got an unexpected keyword argument 'e'"),
])
def test_call_arguments_that_do_not_fit_are_errors(args, kwargs, message):
    with pytest.raises(ArgumentError, match=message):
        jit_function.JitFunction(_plain)._arguments(args, kwargs)


import flydsl.compiler as flyc  # noqa: E402
import flydsl.expr as fx  # noqa: E402


@flyc.kernel
def _scale_kernel(A: fx.Tensor):
    A[fx.thread_idx.x] = A[fx.thread_idx.x] * 3.0


def _scale(A: fx.Tensor):
    _scale_kernel(A).launch(grid=(1, 1, 1), block=(8, 1, 1))


def test_the_entry_key_is_reported_to_observers_only(fly_env, tmp_path, monkeypatch):
    """An observer gets each compile's and load's entry key; without an
    observer or INFO logging, the key is not computed."""
    import numpy as np

    fly_env(COMPILE_ONLY="1", ARCH="gfx942", FLYDSL_RUNTIME_CACHE_DIR=str(tmp_path),
            FLYDSL_DEBUG_LOG_LEVEL="warning")
    a = np.ones(8, np.float32)
    seen = []
    monkeypatch.setattr(jit_function, "compile_observers", [lambda r, c: seen.append(r)])
    flyc.compile(flyc.jit(_scale), a)   # a new JitFunction each: no memory hit
    flyc.compile(flyc.jit(_scale), a)
    assert [r["cache"] for r in seen] == ["miss", "hit"]
    assert seen[0]["key"] == seen[1]["key"]
    entries = [d for d, *_ in _fly.DiskCache.open(str(tmp_path)).entries()]
    assert entries == [seen[0]["key"]]

    monkeypatch.setattr(jit_function, "compile_observers", [])

    def no_key(cache, fields):
        raise AssertionError("the entry key was computed for nobody")

    monkeypatch.setattr(jit_function, "entry_digest", no_key)
    compiled = flyc.compile(flyc.jit(_scale), a)
    assert compiled.from_cache
