"""flydsl.utils.file.atomic_write: a file is replaced only by a complete
write, and a failed write leaves the old contents and no temporary file."""

from __future__ import annotations

import pytest

from flydsl.utils.file import atomic_write


def test_the_file_changes_when_the_block_ends(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    with atomic_write(path, mode="w", encoding="utf-8") as out:
        out.write("new")
        assert path.read_text() == "old"
    assert path.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_an_exception_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")
    with pytest.raises(KeyError):
        with atomic_write(path, mode="wb") as out:
            out.write(b"partial")
            raise KeyError("stop")
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin"]


def test_a_new_file_and_exclusive_mode(tmp_path):
    path = tmp_path / "sub.txt"
    with atomic_write(str(path), mode="x") as out:
        out.write("once")
    assert path.read_text() == "once"
    with pytest.raises(FileExistsError):
        with atomic_write(path, mode="x") as out:
            out.write("twice")
    assert path.read_text() == "once"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub.txt"]
    with pytest.raises(ValueError, match="not a write mode"):
        with atomic_write(path, mode="r"):
            pass
