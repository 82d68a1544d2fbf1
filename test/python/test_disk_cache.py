"""The disk cache of SPEC §6 (support/lib/Cache), driven through
test/tools/fly-cache-tool: keys, the entry format, invalid entries that must
never be loaded, builds that fail, processes and threads racing for one
entry, and the environment variables."""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import time
from pathlib import Path

import blake3
import pytest

MAGIC = b"FLYCACHE"
FORMAT_VERSION = 2


class Cache:
    """One cache directory, seen through fly-cache-tool."""

    def __init__(self, tool: str, directory: Path):
        self.tool = tool
        self.dir = directory

    def run(self, command, *args, payload: bytes = b"", env=None, timeout=60):
        return subprocess.run(
            [self.tool, command, *args], input=payload, capture_output=True, env=env, timeout=timeout
        )

    def put(self, fields, payload: bytes, *options):
        proc = self.run("put", *options, str(self.dir), *fields, payload=payload)
        assert proc.returncode == 0, proc.stderr.decode()

    def get(self, fields, *options):
        """The payload, or None on a miss."""
        proc = self.run("get", *options, str(self.dir), *fields)
        assert proc.returncode in (0, 1), proc.stderr.decode()
        return proc.stdout if proc.returncode == 0 else None

    def path(self, fields, *options) -> Path:
        proc = self.run("path", *options, str(self.dir), *fields)
        assert proc.returncode == 0, proc.stderr.decode()
        return Path(proc.stdout.decode().strip())

    def build_command(self, fields, *options):
        return [self.tool, "build", *options, str(self.dir), *fields]

    def files(self):
        """Every file under the cache directory, relative to it."""
        return sorted(str(p.relative_to(self.dir)) for p in self.dir.rglob("*") if p.is_file())


@pytest.fixture
def cache(fly_cache_tool, tmp_path) -> Cache:
    return Cache(fly_cache_tool, tmp_path / "cache")


def digest(tool: str, *fields) -> str:
    proc = subprocess.run([tool, "digest", *fields], capture_output=True, check=True)
    return proc.stdout.decode().strip()


def parse_entry(data: bytes):
    """The header fields and payload of an entry (format in DiskCache.h)."""
    magic, version, toolchain_size = struct.unpack_from("<8sII", data, 0)
    offset = 16
    toolchain = data[offset : offset + toolchain_size]
    offset += toolchain_size
    name = data[offset : offset + 64]
    offset += 64
    (payload_size,) = struct.unpack_from("<Q", data, offset)
    checksum = data[offset + 8 : offset + 40]
    payload = data[offset + 40 :]
    return dict(
        magic=magic, version=version, toolchain=toolchain, name=name,
        payload_size=payload_size, payload_size_offset=offset, checksum=checksum, payload=payload,
    )


ALL_BYTES = bytes(range(256)) * 3 + b"\n\x00tail"
KEY = ["source=def k(a): return a + 1", "signature=f32[?]:div16", "arch=gfx942", "opt=3"]


# --- keys --------------------------------------------------------------------


def test_hit_after_store_returns_the_payload_bytes(cache):
    cache.put(KEY, ALL_BYTES)
    assert cache.get(KEY) == ALL_BYTES
    assert cache.get(KEY) == ALL_BYTES  # a hit does not consume the entry


def test_store_replaces_an_entry(cache):
    cache.put(KEY, b"first")
    cache.put(KEY, b"second")
    assert cache.get(KEY) == b"second"
    assert cache.files() == [str(cache.path(KEY).relative_to(cache.dir))]


def test_empty_payload_is_a_hit(cache):
    cache.put(KEY, b"")
    assert cache.get(KEY) == b""


@pytest.mark.parametrize(
    "other",
    [
        KEY[:-1] + ["opt=2"],  # a changed option
        KEY[:2] + ["arch=gfx950"] + KEY[3:],  # another target
        ["source=def k(a): return a + 2"] + KEY[1:],  # a changed source
        KEY + ["closure=x=1"],  # one more captured value
        KEY[:-1],  # one field fewer
        [KEY[1], KEY[0]] + KEY[2:],  # the same fields in another order
        ["Source=" + KEY[0].split("=", 1)[1]] + KEY[1:],  # a renamed field
    ],
)
def test_different_key_misses(cache, other):
    cache.put(KEY, b"payload")
    assert cache.get(other) is None
    assert cache.path(other) != cache.path(KEY)


@pytest.mark.parametrize(
    "a, b",
    [
        (["ab=c"], ["a=bc"]),  # field/value boundary
        (["x=ab", "y=c"], ["x=a", "y=bc"]),  # between two values
        (["x=a", "y=b"], ["x=ay=b"]),  # two fields vs one
        (["x="], ["x=", "x="]),  # empty values still count
        (["x=1"], ["x=1\n"]),  # a trailing newline is a byte like any other
    ],
)
def test_field_boundaries_make_different_keys(fly_cache_tool, cache, a, b):
    assert digest(fly_cache_tool, *a) != digest(fly_cache_tool, *b)
    cache.put(a, b"for a")
    assert cache.get(b) is None


@pytest.mark.parametrize("data", [b"", b"abc", bytes(range(256)) * 300])
def test_the_front_ends_digest_is_blake3(data):
    """_fly.digest, with which the front end hashes its key material."""
    from flydsl import _fly

    assert _fly.digest(data) == blake3.blake3(data).hexdigest()
    with pytest.raises(TypeError):
        _fly.digest("text")


def test_digest_is_deterministic_blake3(fly_cache_tool):
    d = digest(fly_cache_tool, *KEY)
    assert d == digest(fly_cache_tool, *KEY)
    assert len(d) == 64 and int(d, 16) >= 0

    def sized(s: bytes) -> bytes:
        return struct.pack("<Q", len(s)) + s

    material = b"".join(sized(f.encode()) + sized(v.encode()) for f, v in (w.split("=", 1) for w in KEY))
    assert d == blake3.blake3(material).hexdigest()   # the reference implementation


def test_another_toolchain_never_sees_an_entry(cache):
    cache.put(KEY, b"old compiler", "--toolchain=llvm 22.1.7; fly aaaa")
    assert cache.get(KEY, "--toolchain=llvm 22.1.7; fly aaaa") == b"old compiler"
    assert cache.get(KEY, "--toolchain=llvm 22.1.7; fly bbbb") is None
    assert cache.get(KEY) is None  # this build's own identity


def test_foreign_entry_at_the_right_name_is_discarded(cache):
    """An entry of another toolchain, moved to the name this toolchain
    uses for the same key, is rejected by its header."""
    old = "--toolchain=llvm 22.1.7; fly aaaa"
    cache.put(KEY, b"old compiler", old)
    ours = cache.path(KEY)
    ours.parent.mkdir(parents=True, exist_ok=True)
    cache.path(KEY, old).rename(ours)
    assert cache.get(KEY) is None
    assert not ours.exists()


# --- the entry format --------------------------------------------------------


def test_entry_format(cache):
    cache.put(KEY, ALL_BYTES)
    path = cache.path(KEY)
    assert path.suffix == ".flyc" and path.parent.name == path.stem[:2]
    assert path.parent.parent == cache.dir
    entry = parse_entry(path.read_bytes())
    assert entry["magic"] == MAGIC
    assert entry["version"] == FORMAT_VERSION
    toolchain = entry["toolchain"].decode()
    assert toolchain.startswith("llvm 22.") and "; fly " in toolchain
    build_identity = toolchain.split("; fly ")[1]
    assert len(build_identity) == 64 and int(build_identity, 16) >= 0
    assert entry["name"].decode() == path.stem
    assert entry["payload_size"] == len(ALL_BYTES)
    assert entry["checksum"] == blake3.blake3(ALL_BYTES).digest()
    assert entry["payload"] == ALL_BYTES


# --- invalid entries: a miss, removed, and rebuilt ---------------------------


def truncate_payload(data: bytes) -> bytes:
    return data[:-1]


def truncate_header(data: bytes) -> bytes:
    return data[:20]


def empty(data: bytes) -> bytes:
    return b""


def flip_payload_byte(data: bytes) -> bytes:
    return data[:-5] + bytes([data[-5] ^ 0x01]) + data[-4:]


def flip_checksum_byte(data: bytes) -> bytes:
    offset = parse_entry(data)["payload_size_offset"] + 8
    return data[:offset] + bytes([data[offset] ^ 0x80]) + data[offset + 1 :]


def wrong_magic(data: bytes) -> bytes:
    return b"FLYCACHF" + data[8:]


def wrong_version(data: bytes) -> bytes:
    return data[:8] + struct.pack("<I", FORMAT_VERSION + 1) + data[12:]


def claims_more_bytes(data: bytes) -> bytes:
    offset = parse_entry(data)["payload_size_offset"]
    size = struct.unpack_from("<Q", data, offset)[0]
    return data[:offset] + struct.pack("<Q", size + 1) + data[offset + 8 :]


def claims_huge_toolchain(data: bytes) -> bytes:
    return data[:12] + struct.pack("<I", 0xFFFFFFFF) + data[16:]


def trailing_garbage(data: bytes) -> bytes:
    return data + b"x"


@pytest.mark.parametrize(
    "damage",
    [
        truncate_payload, truncate_header, empty, flip_payload_byte, flip_checksum_byte,
        wrong_magic, wrong_version, claims_more_bytes, claims_huge_toolchain, trailing_garbage,
    ],
)
def test_invalid_entry_is_a_miss_and_is_removed(cache, damage):
    cache.put(KEY, ALL_BYTES)
    path = cache.path(KEY)
    path.write_bytes(damage(path.read_bytes()))
    assert cache.get(KEY) is None
    assert not path.exists()
    cache.put(KEY, b"rebuilt")
    assert cache.get(KEY) == b"rebuilt"


def test_invalid_entry_is_rebuilt_by_build(cache, tmp_path):
    log = tmp_path / "builds.log"
    cache.put(KEY, ALL_BYTES)
    path = cache.path(KEY)
    path.write_bytes(flip_payload_byte(path.read_bytes()))
    proc = subprocess.run(
        cache.build_command(KEY, "--payload=fresh", f"--log={log}"), capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"fresh"
    assert len(log.read_text().splitlines()) == 1
    assert cache.get(KEY) == b"fresh"


# --- builds ------------------------------------------------------------------


def test_build_stores_then_hits_without_building(cache, tmp_path):
    log = tmp_path / "builds.log"
    for _ in range(3):
        proc = subprocess.run(
            cache.build_command(KEY, "--payload=kernel", f"--log={log}"), capture_output=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert proc.stdout == b"kernel"
    assert len(log.read_text().splitlines()) == 1
    assert cache.get(KEY) == b"kernel"


def test_failed_build_stores_nothing(cache, tmp_path):
    log = tmp_path / "builds.log"
    proc = subprocess.run(
        cache.build_command(KEY, "--payload=kernel", "--fail", f"--log={log}"), capture_output=True, timeout=60
    )
    assert proc.returncode == 2
    assert "builder failed" in proc.stderr.decode()
    assert proc.stdout == b""
    assert cache.get(KEY) is None
    assert cache.files() == []  # no entry, no temp file, no lock file
    proc = subprocess.run(
        cache.build_command(KEY, "--payload=kernel", f"--log={log}"), capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(log.read_text().splitlines()) == 2  # the failure did not count as a build
    assert cache.get(KEY) == b"kernel"


@pytest.mark.parametrize("processes", [2, 4])
def test_concurrent_processes_build_once(cache, tmp_path, processes):
    log = tmp_path / "builds.log"
    command = cache.build_command(KEY, "--payload=the kernel", "--sleep-ms=700", f"--log={log}")
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(processes)]
    outputs = [p.communicate(timeout=60) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err.decode()
        assert out == b"the kernel"
    assert len(log.read_text().splitlines()) == 1
    assert cache.files() == [str(cache.path(KEY).relative_to(cache.dir))]
    assert parse_entry(cache.path(KEY).read_bytes())["payload"] == b"the kernel"


def test_concurrent_threads_build_once(cache, tmp_path):
    """sys::fs::lockFile takes a POSIX record lock, which does not exclude
    the threads of one process: the cache must serialize them itself."""
    log = tmp_path / "builds.log"
    proc = subprocess.run(
        cache.build_command(KEY, "--payload=k", "--sleep-ms=300", "--threads=4", f"--log={log}"),
        capture_output=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"k\n" * 4
    assert len(log.read_text().splitlines()) == 1
    assert cache.files() == [str(cache.path(KEY).relative_to(cache.dir))]


def test_crashed_builder_does_not_block_others(cache, tmp_path):
    log = tmp_path / "builds.log"
    holder = subprocess.Popen(
        cache.build_command(KEY, "--payload=never", "--sleep-ms=60000", f"--log={log}"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not (log.exists() and log.read_text()):  # the holder is building
        assert time.monotonic() < deadline, "the first builder never started"
        time.sleep(0.02)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    proc = subprocess.run(
        cache.build_command(KEY, "--payload=after crash", f"--log={log}"), capture_output=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"after crash"
    assert len(log.read_text().splitlines()) == 2
    assert cache.files() == [str(cache.path(KEY).relative_to(cache.dir))]


# --- the environment ---------------------------------------------------------


def run_env(tool: str, home: Path, **variables):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLYDSL_RUNTIME_")}
    env["HOME"] = str(home)
    env.update(variables)
    proc = subprocess.run([tool, "env"], capture_output=True, env=env, timeout=60)
    if proc.returncode != 0:
        return proc.returncode, proc.stderr.decode()
    return 0, dict(line.split("=", 1) for line in proc.stdout.decode().splitlines())


def test_default_directory_is_under_home(fly_cache_tool, tmp_path):
    assert run_env(fly_cache_tool, tmp_path) == (0, {"enabled": "1", "dir": str(tmp_path / ".flydsl" / "cache")})


def test_cache_dir_variable(fly_cache_tool, tmp_path):
    chosen = str(tmp_path / "elsewhere")
    assert run_env(fly_cache_tool, tmp_path, FLYDSL_RUNTIME_CACHE_DIR=chosen) == (
        0, {"enabled": "1", "dir": chosen},
    )
    # Empty counts as unset.
    assert run_env(fly_cache_tool, tmp_path, FLYDSL_RUNTIME_CACHE_DIR="")[1]["dir"] == str(
        tmp_path / ".flydsl" / "cache"
    )


@pytest.mark.parametrize("value", ["0", "false", "no", "off", "OFF", "False"])
def test_cache_disabled(fly_cache_tool, tmp_path, value):
    assert run_env(fly_cache_tool, tmp_path, FLYDSL_RUNTIME_ENABLE_CACHE=value) == (
        0, {"enabled": "0", "dir": ""},
    )


@pytest.mark.parametrize("value", ["1", "true", "yes", "on", "YES", "True"])
def test_cache_enabled(fly_cache_tool, tmp_path, value):
    assert run_env(fly_cache_tool, tmp_path, FLYDSL_RUNTIME_ENABLE_CACHE=value)[1]["enabled"] == "1"


@pytest.mark.parametrize("value", ["maybe", "2", "o", "enabled", " 1"])
def test_malformed_enable_value_names_the_variable(fly_cache_tool, tmp_path, value):
    status, message = run_env(fly_cache_tool, tmp_path, FLYDSL_RUNTIME_ENABLE_CACHE=value)
    assert status == 2
    assert "FLYDSL_RUNTIME_ENABLE_CACHE" in message and f"'{value}'" in message


def test_open_creates_the_directory(cache):
    assert not cache.dir.exists()
    assert cache.get(KEY) is None
    assert cache.dir.is_dir()


def test_open_on_a_file_is_an_error(fly_cache_tool, tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    proc = subprocess.run([fly_cache_tool, "get", str(not_a_dir), *KEY], capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert str(not_a_dir) in proc.stderr.decode()


def test_toolchain_identity_reaches_python():
    """The identity in every disk-cache key (LLVM's version and this
    build's) is a str in Python: autotune keys its choices with it."""
    from flydsl import _fly
    identity = _fly.toolchain_identity()
    assert isinstance(identity, str) and identity.startswith("llvm 22.") and "fly " in identity


# --- listing and removing entries (what `python -m flydsl cache` uses) ---------


def test_entries_lists_complete_entries_and_remove_deletes_one(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "frontend" / "python"))
    from flydsl import _fly

    cache = _fly.DiskCache.open(str(tmp_path))
    cache.store([("k", "1")], b"x" * 10)
    cache.store([("k", "2")], b"y" * 2000)
    paths = {Path(cache.entry_path([("k", "1")])), Path(cache.entry_path([("k", "2")]))}
    # an entry being written and a lock file are not entries
    sub = next(iter(paths)).parent
    (sub / (next(iter(paths)).stem + ".flyc.tmp-abcd1234")).write_bytes(b"partial")
    (sub / (next(iter(paths)).stem + ".lock")).write_bytes(b"")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / ("0" * 64 + ".flyc")).write_bytes(b"misplaced")  # not under its prefix
    os.utime(cache.entry_path([("k", "1")]), (1_000_000_000, 1_000_000_000))

    entries = cache.entries()
    assert {Path(p) for _, p, _, _ in entries} == paths
    for digest, path, size, modified in entries:
        assert Path(path).name == digest + ".flyc" and Path(path).parent.name == digest[:2]
        assert size == os.path.getsize(path)
        assert modified == int(os.stat(path).st_mtime)
    assert sorted(modified for *_, modified in entries)[0] == 1_000_000_000

    old = next(d for d, p, _, _ in entries if Path(p) == Path(cache.entry_path([("k", "1")])))
    assert cache.remove(old) is True
    assert cache.remove(old) is False  # already gone
    assert cache.lookup([("k", "1")]) is None and cache.lookup([("k", "2")]) == b"y" * 2000
    assert len(cache.entries()) == 1
    with pytest.raises(Exception, match="names no cache entry"):
        cache.remove("../../etc/passwd")
