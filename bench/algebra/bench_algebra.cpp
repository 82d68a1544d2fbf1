//===- bench_algebra.cpp - Cost of type inference of algebra ops ----------===//
//
// Prints, for typical layouts, the time per inferred op: the op's
// InferTypeOpInterface::inferReturnTypes, as the parser, the builders and
// the verifier call it (operand types -> algebra -> result type), and the
// time of the bare algebra call underneath.
//
//===----------------------------------------------------------------------===//

#include "fly/Dialect/Fly/IR/FlyAlgebraEval.h"
#include "fly/Dialect/Fly/IR/FlyDialect.h"
#include "fly/Dialect/Fly/IR/FlyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/AsmParser/AsmParser.h"

#include <chrono>
#include <cstdio>

using namespace mlir;

namespace {

struct Case {
  const char *op;
  const char *lhs;
  const char *rhs;
};

// Typical uses: a swizzle-free smem tile, a partition of a GEMM tile by a
// thread layout, a thread-value layout built by raked_product.
const Case kCases[] = {
    {"fly.composition", "!fly.layout<(128,64):(64,1)>",
     "!fly.layout<(4,8):(8,1)>"},
    {"fly.composition", "!fly.layout<((4,8),(2,4)):((64,1),(16,512))>",
     "!fly.layout<(8,(4,2)):(4,(1,32))>"},
    {"fly.logical_divide", "!fly.layout<(128,64):(1,128)>",
     "!fly.tile<[32|16]>"},
    {"fly.logical_divide", "!fly.layout<(?,?{div=16}):(1,?{div=16})>",
     "!fly.tile<[64|32]>"},
    {"fly.raked_product", "!fly.layout<(16,16):(16,1)>",
     "!fly.layout<(4,4):(1,4)>"},
    {"fly.raked_product", "!fly.layout<(8,32):(32,1)>",
     "!fly.layout<(2,4):(4,1)>"},
};

double usPerCall(int iters, const std::function<void()> &f) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

} // namespace

int main() {
  MLIRContext ctx;
  ctx.loadDialect<mlir::fly::FlyDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());

  std::printf("%-20s %-46s %-30s %10s %10s\n", "op", "lhs", "rhs",
              "infer(us)", "algebra(us)");
  for (const Case &c : kCases) {
    Type lhs = parseType(c.lhs, &ctx), rhs = parseType(c.rhs, &ctx);
    if (!lhs || !rhs) {
      std::fprintf(stderr, "bad type in case %s\n", c.op);
      return 1;
    }
    // A dynamic operand stands for a value computed elsewhere.
    Value a = mlir::fly::isStatic(lhs)
                  ? Value(mlir::fly::StaticOp::create(b, loc, lhs))
                  : UnrealizedConversionCastOp::create(b, loc, TypeRange{lhs},
                                                       ValueRange{})
                        .getResult(0);
    Value bv = mlir::fly::StaticOp::create(b, loc, rhs);
    auto name = RegisteredOperationName::lookup(c.op, &ctx);
    auto *infer = name->getInterface<InferTypeOpInterface>();
    SmallVector<Value> operands{a, bv};
    auto attrs = DictionaryAttr::get(&ctx);
    SmallVector<Type> results;
    int iters = 20000;
    double inferUs = usPerCall(iters, [&] {
      results.clear();
      (void)infer->inferReturnTypes(&ctx, loc, operands, attrs,
                                    OpaqueProperties(nullptr), {}, results);
    });
    SmallVector<mlir::fly::AlgebraValue, 2> values{mlir::fly::toAlgebraValue(lhs),
                                          mlir::fly::toAlgebraValue(rhs)};
    SmallVector<mlir::fly::AlgebraValue, 2> out;
    double algebraUs = usPerCall(iters, [&] {
      out.clear();
      ::fly::algebra::Arith ar;
      (void)mlir::fly::evaluateAlgebraOp(name->getStringRef(), attrs, values, {}, ar,
                                   out, std::nullopt);
    });
    std::string lhsText = c.lhs, rhsText = c.rhs;
    std::printf("%-20s %-46s %-30s %10.2f %10.2f\n", c.op + 4, lhsText.c_str(),
                rhsText.c_str(), inferUs, algebraUs);
  }
  return 0;
}
