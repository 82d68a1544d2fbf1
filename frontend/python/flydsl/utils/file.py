"""Writing files so that a reader never sees a half-written one."""

from __future__ import annotations

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", encoding: str | None = None):
    """A file object to write `path` through: the data goes to a temporary
    file beside it, which replaces `path` (os.replace, atomic on POSIX)
    only when the block ends without an exception. On an exception `path`
    keeps its old contents and the temporary file is removed.

        with atomic_write(cache_file, mode="w", encoding="utf-8") as f:
            json.dump(data, f)
    """
    if mode not in ("w", "wb", "wt", "x", "xb"):
        raise ValueError(f"atomic_write: mode {mode!r} is not a write mode (w, wb)")
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, mode.replace("x", "w"), encoding=encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if "x" in mode and os.path.exists(path):
            raise FileExistsError(f"atomic_write: {path} exists (mode {mode!r})")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
