"""The vector dialect (generated builders: `vector.from_elements(t, xs)`,
`vector.extract(v, [], [i])`, ...) and its enums (`CombiningKind`, ...)."""

from ._vector_ops_gen import *  # noqa: F401,F403
from ._vector_ops_gen import _Dialect  # noqa: F401
from ._vector_enum_gen import *  # noqa: F401,F403
