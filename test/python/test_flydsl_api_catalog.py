"""FlyDSL's stable API (SPEC §7), path by path: every path of FlyDSL's
catalog resolves here at its module path and, for the direct children of
flydsl.expr, as `fx.<name>` (the same object FlyDSL's `from .<module>
import *` order leaves there), and every parameter FlyDSL 0.4.2 takes can
be passed the same way: by position in the same place, or by name.

The catalog and the parameter lists are data from FlyDSL
(data/flydsl_api/README.md says where they come from)."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "flydsl_api"
CATALOG = json.loads((DATA / "stable-apis.json").read_text())
SIGNATURES = json.loads((DATA / "signatures-0.4.2.json").read_text())
# gfx1250's fx.rocdl.cdna5 names, outside FlyDSL's stable catalog.
CDNA5_SIGNATURES = json.loads((DATA / "signatures-0.4.2-cdna5.json").read_text())


def _listed(name: str) -> set[str]:
    return {line.strip() for line in (DATA / name).read_text().splitlines()
            if line.strip() and not line.startswith("#")}


NOT_YET = _listed("not_yet.txt")  # paths not provided yet
SIGNATURE_NOT_YET = _listed("signature_not_yet.txt")  # provided, not yet with FlyDSL's parameters

PATHS = list(CATALOG)

# The order in which FlyDSL's flydsl/expr/__init__.py star-imports its
# direct children: a name several of them export is the last one's at fx.
FX_ORDER = ["numeric", "typing", "enum", "primitive", "gpu", "derived", "struct", "arith", "math"]

_MISSING = object()


def resolve(path: str):
    """The object at a dotted path as a user reaches it: the last name an
    attribute of what precedes it (flydsl.compiler.jit is the function even
    if a module of that name existed), the names before it modules where
    there are such (`from flydsl.expr.struct import Array`, though
    fx.struct is the decorator). _MISSING when it does not resolve."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=1):
        found = getattr(obj, name, _MISSING)
        last = i == len(parts) - 1
        if inspect.ismodule(obj) and (found is _MISSING or (not last and not inspect.ismodule(found))):
            try:
                found = importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                return _MISSING
        if found is _MISSING:
            return _MISSING
        obj = found
    return obj


def fx_owner(name: str) -> str | None:
    """The expr child whose export FlyDSL leaves at fx.<name>."""
    owner = None
    for module in FX_ORDER:
        if f"flydsl.expr.{module}.{name}" in CATALOG:
            owner = module
    return owner


def test_not_yet_lists_only_catalog_paths():
    assert NOT_YET <= set(PATHS), sorted(NOT_YET - set(PATHS))
    assert SIGNATURE_NOT_YET <= set(SIGNATURES) - NOT_YET, sorted(SIGNATURE_NOT_YET - set(SIGNATURES))


@pytest.mark.parametrize("path", PATHS)
def test_path_resolves(path):
    obj = resolve(path)
    if path in NOT_YET:
        assert obj is _MISSING, f"{path} resolves now: remove it from data/flydsl_api/not_yet.txt"
        return
    assert obj is not _MISSING, f"{path} does not resolve"
    parts = path.split(".")
    if len(parts) == 4 and parts[1] == "expr" and parts[2] in FX_ORDER:
        module, name = parts[2], parts[3]
        exported = getattr(importlib.import_module(f"flydsl.expr.{module}"), "__all__", [])
        assert name in exported, f"{name} is not in flydsl.expr.{module}.__all__"
        import flydsl.expr as fx
        owner = fx_owner(name)
        expected = resolve(f"flydsl.expr.{owner}.{name}")
        assert getattr(fx, name, _MISSING) is expected, (
            f"fx.{name} is not flydsl.expr.{owner}.{name}")


def _parameters(obj):
    try:
        return list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return None


def signature_problems(theirs, ours) -> list[str]:
    """Why a call FlyDSL's parameters accept would not fit ours ([] if
    every one does): a positional parameter must be ours at the same
    place with the same name; a keyword one ours by name (or **kwargs);
    *args and **kwargs ours too; a parameter FlyDSL lacks must have a
    default."""
    P = inspect.Parameter
    problems = []
    names = {p.name: p for p in ours}
    has_var_kw = any(p.kind is P.VAR_KEYWORD for p in ours)
    has_var_pos = any(p.kind is P.VAR_POSITIONAL for p in ours)
    positional = [p for p in ours if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    for index, (name, kind) in enumerate(theirs):
        if kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
            if index >= len(positional) or positional[index].name != name:
                got = positional[index].name if index < len(positional) else "nothing"
                problems.append(f"positional parameter {index} is '{name}', ours '{got}'")
            elif kind == "POSITIONAL_OR_KEYWORD" and positional[index].kind is not P.POSITIONAL_OR_KEYWORD:
                problems.append(f"'{name}' cannot be passed by name")
        elif kind == "KEYWORD_ONLY":
            p = names.get(name)
            if p is None and not has_var_kw:
                problems.append(f"no keyword '{name}'")
            elif p is not None and p.kind not in (P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD):
                problems.append(f"'{name}' cannot be passed by name")
        elif kind == "VAR_POSITIONAL" and not has_var_pos:
            problems.append(f"no *{name}")
        elif kind == "VAR_KEYWORD" and not has_var_kw:
            problems.append(f"no **{name}")
    theirs_names = {name for name, _ in theirs}
    for p in ours:
        if (p.name not in theirs_names and p.default is P.empty
                and p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)):
            problems.append(f"our parameter '{p.name}' has no default (FlyDSL has no such parameter)")
    return problems


SIGNED = [p for p in PATHS if p in SIGNATURES and p not in NOT_YET]


@pytest.mark.parametrize("path", SIGNED)
def test_signature_accepts_flydsls_calls(path):
    ours = _parameters(resolve(path))
    problems = (["no inspectable signature"] if ours is None
                else signature_problems(SIGNATURES[path], ours))
    if path in SIGNATURE_NOT_YET:
        assert problems, f"{path} fits now: remove it from data/flydsl_api/signature_not_yet.txt"
        return
    assert not problems, f"{path}: " + "; ".join(problems)


@pytest.mark.parametrize("path", sorted(CDNA5_SIGNATURES))
def test_cdna5_signature_accepts_flydsls_calls(path):
    ours = _parameters(resolve(path))
    assert ours is not None, f"{path} does not resolve to a callable"
    problems = signature_problems(CDNA5_SIGNATURES[path], ours)
    assert not problems, f"{path}: " + "; ".join(problems)


def test_signature_rule_catches_what_it_claims():
    """The rule itself, on small functions: a renamed, moved, missing or
    extra-required parameter is reported; a superset with defaults is not."""
    def fits(a, b, *, c=1, d=2): ...
    def renamed(a, x, *, c=1): ...
    def swapped(b, a, *, c=1): ...
    def no_kw(a, b): ...
    def extra_required(a, b, e, *, c=1): ...
    def kw_by_var(a, b, **kwargs): ...
    theirs = [["a", "POSITIONAL_OR_KEYWORD"], ["b", "POSITIONAL_OR_KEYWORD"], ["c", "KEYWORD_ONLY"]]
    check = lambda f: signature_problems(theirs, _parameters(f))  # noqa: E731
    assert check(fits) == []
    assert check(kw_by_var) == []
    assert check(renamed) and check(swapped) and check(no_kw) and check(extra_required)


if __name__ == "__main__":  # the gap, as a list: python3 test_flydsl_api_catalog.py
    for p in PATHS:
        if resolve(p) is _MISSING:
            print("missing  ", p)
        elif p in SIGNATURES:
            params = _parameters(resolve(p))
            problems = ["no signature"] if params is None else signature_problems(SIGNATURES[p], params)
            if problems:
                print("signature", p, "; ".join(problems))
