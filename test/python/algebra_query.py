"""Client of fly-algebra-query (test/tools/fly-algebra-query): the C++
partitioning algebra behind a line protocol, one query per line.

The tool is located through $FLY_ALGEBRA_QUERY, else
<repo>/build/bin/fly-algebra-query. A missing tool is a test failure.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pycute import Layout

from fly_types import fmt_layout, fmt_tile_body, fmt_tuple, parse_value  # noqa: F401 (parse_value: for the tests)

REPO_ROOT = Path(__file__).resolve().parents[2]


def locate() -> str:
    env = os.environ.get("FLY_ALGEBRA_QUERY")
    path = env or str(REPO_ROOT / "build" / "bin" / "fly-algebra-query")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(
            f"fly-algebra-query not found at {path}. Build it with "
            f"`ninja -C {REPO_ROOT / 'build'} fly-algebra-query` or set $FLY_ALGEBRA_QUERY.",
            pytrace=False,
        )
    return path


@dataclass
class Answer:
    query: str
    ok: bool
    error: str = ""
    values: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return self.values[key]

    def layout(self, key="layout") -> Layout:
        return parse_layout(self.values[key])


def run(queries) -> list:
    """Answers of the queries, in order (one tool process for all)."""
    queries = list(queries)
    if not queries:
        return []
    for q in queries:
        assert "\n" not in q
    proc = subprocess.run(
        [locate()], input="\n".join(queries) + "\n", capture_output=True, text=True, timeout=600
    )
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != len(queries):
        pytest.fail(
            f"fly-algebra-query exited with {proc.returncode} after {len(lines)} of "
            f"{len(queries)} answers; stderr:\n{proc.stderr[-2000:]}\nlast query: "
            f"{queries[min(len(lines), len(queries) - 1)]}",
            pytrace=False,
        )
    answers = []
    for q, line in zip(queries, lines):
        if line.startswith("ok"):
            values = dict(w.split("=", 1) for w in line[2:].split())
            answers.append(Answer(q, True, values=values))
        else:
            answers.append(Answer(q, False, error=line))
    return answers


# -- texts of the protocol ---------------------------------------------------


def parse_layout(text: str) -> Layout:
    return parse_value(f"!fly.layout<{text}>")


def parse_tuple(text: str):
    return parse_value(f"!fly.int_tuple<{text}>")


def layout_text(layout: Layout) -> str:
    return fmt_layout(layout).replace(" ", "")


def tuple_text(t) -> str:
    return fmt_tuple(t).replace(" ", "")


def tile_text(tile) -> str:
    return fmt_tile_body(tile).replace(" ", "")


def parse_offsets(text: str) -> list:
    return [int(x) for x in text.split(",")]


def parse_offset_layouts(text: str):
    """`L@o>L@o;...` or `L@o|L@o|...`: [(layout, offset), ...] per call."""
    calls = []
    for call in text.split(";") if text else []:
        parts = []
        for piece in call.replace(">", "|").split("|"):
            lay, off = piece.rsplit("@", 1)
            parts.append((parse_layout(lay), int(off)))
        calls.append(parts)
    return calls
