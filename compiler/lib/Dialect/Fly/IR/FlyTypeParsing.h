//===- FlyTypeParsing.h - Algebra texts inside other types ------*- C++ -*-===//
//
// The pointer and tensor types (FlyMemoryTypes.cpp) hold int tuples and
// layouts written as in their own types; these read such a text where a `,`
// or the closing `>` follows, with the parser of FlyTypes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FLY_LIB_DIALECT_FLY_IR_FLYTYPEPARSING_H
#define FLY_LIB_DIALECT_FLY_IR_FLYTYPEPARSING_H

#include "fly/Algebra/Layout.h"

#include "mlir/IR/OpImplementation.h"

#include <variant>

namespace mlir::fly::detail {

/// `(4,?{div=8})`, as inside `!fly.int_tuple<...>`.
FailureOr<::fly::algebra::IntTuple> parseIntTupleText(AsmParser &p);

/// `(8,64):(64,1)` or `S<3,4,3> o 0 o (8,64):(64,1)`, as inside
/// `!fly.layout<...>` or `!fly.composed_layout<...>`.
FailureOr<std::variant<::fly::algebra::Layout, ::fly::algebra::ComposedLayout>>
parseAnyLayoutText(AsmParser &p);

/// `[16|64]`, as inside `!fly.tile<...>`.
FailureOr<::fly::algebra::Tile> parseTileText(AsmParser &p);

} // namespace mlir::fly::detail

#endif // FLY_LIB_DIALECT_FLY_IR_FLYTYPEPARSING_H
