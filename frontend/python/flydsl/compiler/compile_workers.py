"""Compiling traced modules into the disk cache in parallel worker
processes (autotuning uses it for its candidates).

The parent traces each job (tracing is Python and quick); a worker
(`python -m flydsl.compiler.compile_workers`, a fresh interpreter: the
parent's compiler and runtime threads are never forked) runs the C++
compile of one job at a time and stores the artifact in the job's disk
cache, where the parent's next call for it finds it. Jobs and replies
cross the workers' stdin and stdout as length-prefixed pickles.

A job is the dict `JitFunction._compile_job` returns; a reply is
{"ok": bool, "error": str, "compile_ms": float, "kernels": [names], "pid":
the worker's process id}.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading

_FRAME = struct.Struct("<Q")


def _write(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(data)) + data)
    stream.flush()


def _read(stream):
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


# The directory this flydsl package was imported from: the worker runs
# there and imports the same one.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _worker_environment() -> dict:
    """The parent's environment, with _PACKAGE_ROOT first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    return env


class _Worker:
    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flydsl.compiler.compile_workers"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env=_worker_environment(), cwd=_PACKAGE_ROOT)

    def run(self, job) -> dict | None:
        """The reply to `job`; None when the worker died."""
        try:
            _write(self.process.stdin, job)
        except (BrokenPipeError, OSError):
            return None
        return _read(self.process.stdout)

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        self.process.wait()


def compile_jobs(jobs: list, workers: int, on_done=None) -> list:
    """Compiles `jobs` into their disk caches on up to `workers` processes;
    the replies in the order of `jobs`. `on_done(index, reply)` is called
    (from a helper thread, one call at a time) as each job finishes."""
    replies: list = [None] * len(jobs)
    pending: "queue.Queue[int]" = queue.Queue()
    for index in range(len(jobs)):
        pending.put(index)
    lock = threading.Lock()

    def serve():
        worker = None
        try:
            while True:
                try:
                    index = pending.get_nowait()
                except queue.Empty:
                    return
                if worker is None:
                    worker = _Worker()
                reply = worker.run(jobs[index])
                if reply is None:
                    code = worker.process.wait()
                    reply = {"ok": False, "compile_ms": 0.0, "kernels": [],
                             "pid": worker.process.pid,
                             "error": f"the compile worker process died (exit status {code})"}
                    worker = None
                replies[index] = reply
                if on_done is not None:
                    with lock:
                        on_done(index, reply)
        finally:
            if worker is not None:
                worker.close()

    threads = [threading.Thread(target=serve, daemon=True)
               for _ in range(max(1, min(workers, len(jobs))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return replies


def _compile_one(job) -> dict:
    import time

    from .. import _fly
    from .jit_function import compile_traced

    start = time.perf_counter()
    try:
        cache = _fly.DiskCache.open(job["cache_dir"])
        made = []

        def build() -> bytes:
            compiled = compile_traced(job["name"], job["module_text"], job["arg_names"],
                                      job["options"])
            made.append([k["name"] for k in compiled.kernels])
            return compiled.to_bytes()

        cache.get_or_create(job["fields"], build)
    except Exception as err:  # reported to the parent, which compiles it again itself
        return {"ok": False, "error": f"{type(err).__name__}: {err}",
                "compile_ms": (time.perf_counter() - start) * 1e3, "kernels": [],
                "pid": os.getpid()}
    return {"ok": True, "error": "", "compile_ms": (time.perf_counter() - start) * 1e3,
            "kernels": made[0] if made else [], "pid": os.getpid()}


def _serve() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies on the pipe
    while True:
        job = _read(stdin)
        if job is None:
            return
        _write(stdout, _compile_one(job))


if __name__ == "__main__":
    _serve()
