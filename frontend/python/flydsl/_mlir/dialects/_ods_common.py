"""What the generated dialect modules (`_*_ops_gen.py`, `_*_enum_gen.py`)
import: MLIR's `_ods_common` names, on flydsl._mlir's `ir` runtime."""

from __future__ import annotations

from types import SimpleNamespace

from .. import ir
from .._context import current_context


def _register_traceback_file_exclusion(filename: str) -> None:
    # FlyDSL's errors already leave out the frames of its own files
    # (flydsl.tracing.errors.user_traceback), these generated ones included.
    pass


# The native module the generated code expects (`_cext.ir`, its decorators
# and globals), here the Python runtime.
_cext = SimpleNamespace(
    ir=ir, register_dialect=ir.register_dialect, register_operation=ir.register_operation,
    register_value_caster=ir.register_value_caster,
    globals=SimpleNamespace(register_traceback_file_exclusion=_register_traceback_file_exclusion))


def get_default_loc_context(location=None):
    """The Context of `location`, or the current one (None off a trace):
    what the attribute builders get as `context=`, which they ignore."""
    return current_context()


def get_op_result_or_value(arg):
    """An operand as a value: a value, an op with one result, an fx value."""
    if isinstance(arg, (ir.OpView, ir.Operation)):
        return arg.result
    return arg


def get_op_results_or_values(arg):
    """A variadic operand group as a list: an op's results, or the items."""
    if isinstance(arg, (ir.OpView, ir.Operation)):
        return list(arg.results)
    return [get_op_result_or_value(element) for element in arg]


def get_op_result_or_op_results(op):
    """An op's one result, its results, or the op when it has none."""
    results = op.results
    return results if len(results) > 1 else (results[0] if len(results) == 1 else op)


def segmented_accessor(elements, raw_segments, idx: int):
    """The elements of segment `idx` given the segment sizes (an
    operandSegmentSizes attribute)."""
    sizes = list(ir.DenseI32ArrayAttr(raw_segments))
    start = sum(sizes[:idx])
    return elements[start:start + sizes[idx]]


def equally_sized_accessor(elements, n_simple: int, n_variadic: int, n_preceding_simple: int,
                           n_preceding_variadic: int):
    """(start, length) of a variadic group when every variadic group has
    the same length."""
    total_variadic_length = len(elements) - n_simple
    elements_per_group = total_variadic_length // n_variadic
    start = n_preceding_simple + n_preceding_variadic * elements_per_group
    return start, elements_per_group
