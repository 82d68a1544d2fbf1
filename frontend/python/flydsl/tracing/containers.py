"""Python containers of traced values: a structure and its leaves.

A variable carried by a dynamic `if`, a conditional expression or a traced
loop, and an argument of a kernel, may be a Python container holding
dynamic values: a list, a tuple (a named tuple too), a dict or a
`types.SimpleNamespace`, nested to any depth. scf ops carry flat lists of
SSA values, so such a value is taken apart into its structure (a `Tree`:
the container types, lengths, keys) and its leaves (everything that is
not one of those containers), and put back together from a structure and
new leaves.

Dicts and namespaces are matched by key, not by the order of their keys
(`{"a": x, "b": y}` and `{"b": y2, "a": x2}` have one structure, and their
leaves line up by key); lists and tuples by position. Subclasses of list
and dict (other than the ones named above) are leaves: they may hold
state their class would not rebuild.
"""

from __future__ import annotations

from types import SimpleNamespace

__all__ = ["Tree", "Mismatch", "Packed", "is_container", "flatten", "unflatten",
           "leaves_like", "leaf_paths", "copy_structure", "describe_structure"]


def _kind(x):
    t = type(x)
    if t is list:
        return "list"
    if t is tuple:
        return "tuple"
    if t is dict:
        return "dict"
    if t is SimpleNamespace:
        return "namespace"
    if isinstance(x, tuple) and hasattr(t, "_fields") and hasattr(t, "_make"):
        return "namedtuple"
    return None


def is_container(x) -> bool:
    """Whether `x` is taken apart (a list, tuple, named tuple, dict or
    SimpleNamespace)."""
    return _kind(x) is not None


class Tree:
    """The structure of a container: its kind and class, its keys (dicts
    and namespaces, in their order) and the structures of its items (None
    for a leaf)."""

    __slots__ = ("kind", "cls", "keys", "children")

    def __init__(self, kind, cls, keys, children):
        self.kind = kind
        self.cls = cls
        self.keys = keys
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({describe_structure(self)})"


def _items(x, kind):
    if kind == "dict":
        return tuple(x), tuple(x.values())
    if kind == "namespace":
        d = vars(x)
        return tuple(d), tuple(d.values())
    return None, tuple(x)


def flatten(x):
    """(structure, leaves) of `x`; a value that is not a container is one
    leaf (its structure is None)."""
    leaves = []
    return _flatten(x, leaves), leaves


def _flatten(x, leaves):
    kind = _kind(x)
    if kind is None:
        leaves.append(x)
        return None
    keys, items = _items(x, kind)
    return Tree(kind, type(x), keys, tuple(_flatten(v, leaves) for v in items))


def unflatten(tree, leaves):
    """A new container of structure `tree` holding `leaves` (in the order
    `flatten` gives them)."""
    it = iter(leaves)
    out = _build(tree, it)
    for _ in it:
        raise ValueError("unflatten: more leaves than the structure holds")
    return out


def _build(tree, it):
    if tree is None:
        return next(it)
    items = [_build(c, it) for c in tree.children]
    if tree.kind == "dict":
        return dict(zip(tree.keys, items))
    if tree.kind == "namespace":
        return SimpleNamespace(**dict(zip(tree.keys, items)))
    if tree.kind == "namedtuple":
        return tree.cls._make(items)
    return tree.cls(items)


def copy_structure(x):
    """`x` with every container rebuilt (the leaves are the same objects),
    so that changing the copy in place leaves `x` as it is."""
    if _kind(x) is None:
        return x
    return unflatten(*flatten(x))


class Mismatch(Exception):
    """A value whose structure is not the expected one: `path` is where
    (a suffix such as `[0]['a']`), `expected` the structure expected there
    (None: a leaf, the expected value's leaf number `leaf`), `got` what is
    there instead."""

    def __init__(self, path, expected, got, leaf=None):
        super().__init__(f"{path}: expected {describe_structure(expected) or 'a leaf'}, "
                         f"got {type(got).__name__}")
        self.path = path
        self.expected = expected
        self.got = got
        self.leaf = leaf


def leaves_like(tree, x, path=""):
    """The leaves of `x` in the order of structure `tree` (dict and
    namespace items matched by key); Mismatch where `x` has another
    structure."""
    out = []
    _leaves_like(tree, x, path, out)
    return out


def _leaves_like(tree, x, path, out):
    kind = _kind(x)
    if tree is None:
        if kind is not None:
            raise Mismatch(path, None, x, len(out))
        out.append(x)
        return
    if kind != tree.kind or (kind == "namedtuple" and type(x) is not tree.cls):
        raise Mismatch(path, tree, x)
    keys, items = _items(x, kind)
    if tree.keys is None:
        if len(items) != len(tree.children):
            raise Mismatch(path, tree, x)
        for i, (c, v) in enumerate(zip(tree.children, items)):
            _leaves_like(c, v, f"{path}[{i}]", out)
        return
    if set(keys) != set(tree.keys) or len(keys) != len(tree.keys):
        raise Mismatch(path, tree, x)
    by_key = dict(zip(keys, items))
    for k, c in zip(tree.keys, tree.children):
        _leaves_like(c, by_key[k], path_of(path, tree.kind, k), out)


def path_of(path, kind, key):
    """`path` extended by an item: `.key` of a namespace, `[key!r]` else."""
    return f"{path}.{key}" if kind == "namespace" else f"{path}[{key!r}]"


def leaf_paths(tree, path=""):
    """Where each leaf of structure `tree` is (`[0]['a']`, `.x`, ...), in
    the order of its leaves."""
    if tree is None:
        return [path]
    out = []
    for i, c in enumerate(tree.children):
        sub = f"{path}[{i}]" if tree.keys is None else path_of(path, tree.kind, tree.keys[i])
        out.extend(leaf_paths(c, sub))
    return out


def describe_structure(tree_or_value) -> str:
    """`a list of 2`, `a dict with keys ['a', 'b']`, ... of a structure or
    of a value's structure (None for a leaf gives '')."""
    tree = tree_or_value if isinstance(tree_or_value, Tree) or tree_or_value is None \
        else flatten(tree_or_value)[0]
    if tree is None:
        return ""
    if tree.kind == "dict":
        return f"a dict with keys {sorted(tree.keys, key=repr)}"
    if tree.kind == "namespace":
        return f"a SimpleNamespace with attributes {sorted(tree.keys)}"
    name = tree.cls.__name__
    return f"a{'n' if name[:1] in 'aeiou' else ''} {name} of {len(tree.children)}"


class _Taken:
    """The place of a leaf taken out of a Packed value."""

    def __repr__(self) -> str:
        return "<dynamic>"


_TAKEN = _Taken()


class Packed:
    """A container whose dynamic leaves are taken out (a kernel argument
    holding tensors and numerics: its dynamic leaves become parameters of
    the kernel). `taken` are those leaves; repr is the structure with the
    other leaves (what specializes the kernel); `rebuild(values)` is the
    container with `values` in the places of the taken leaves."""

    __slots__ = ("tree", "leaves", "taken")

    def __init__(self, tree, leaves, taken):
        self.tree = tree
        self.leaves = leaves
        self.taken = taken

    @classmethod
    def of(cls, value, is_dynamic):
        """The Packed form of a container with leaves for which
        `is_dynamic` holds; None for another value."""
        if not is_container(value):
            return None
        tree, leaves = flatten(value)
        flags = [bool(is_dynamic(x)) for x in leaves]
        if not any(flags):
            return None
        return cls(tree, [_TAKEN if f else x for x, f in zip(leaves, flags)],
                   [x for x, f in zip(leaves, flags) if f])

    def rebuild(self, values):
        it = iter(values)
        return unflatten(self.tree, [next(it) if x is _TAKEN else x for x in self.leaves])

    def __repr__(self) -> str:
        return repr(unflatten(self.tree, self.leaves))
