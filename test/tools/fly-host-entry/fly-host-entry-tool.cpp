//===- fly-host-entry-tool.cpp - The host module of a compile -------------===//
//
//   fly-host-entry-tool IN.mlir --chip=gfx942 -o OUT.bc
//
// Compiles IN.mlir with fly::Compiler, writes Artifact::hostModule to
// OUT.bc and prints the host functions' argument blocks and the kernels'
// ABI as JSON on stdout. Test scaffolding: the Python extension's compile
// does not return the host module yet.
//
//===----------------------------------------------------------------------===//

#include "fly/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<std::string> input(cl::Positional, cl::desc("<input.mlir>"),
                                  cl::Required);
static cl::opt<std::string> output("o", cl::desc("The host module (bitcode)"),
                                   cl::Required);
static cl::opt<std::string> chip("chip", cl::desc("Target chip"),
                                 cl::init("gfx942"));

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "fly-host-entry-tool\n");
  auto text = MemoryBuffer::getFile(input);
  if (!text) {
    errs() << input << ": " << text.getError().message() << "\n";
    return 1;
  }
  fly::Compiler compiler;
  fly::CompileOptions options;
  options.pipeline.chip = chip;
  Expected<fly::Artifact> artifact =
      compiler.compile((*text)->getBuffer(), options);
  if (!artifact) {
    errs() << toString(artifact.takeError()) << "\n";
    return 1;
  }
  std::error_code ec;
  raw_fd_ostream out(output, ec);
  if (ec) {
    errs() << output << ": " << ec.message() << "\n";
    return 1;
  }
  out << artifact->hostModule;

  json::Array hosts, kernels;
  for (const fly::HostFunctionInfo &host : artifact->hostFunctions) {
    json::Array arguments, parameters, slots;
    for (const fly::HostArgument &a : host.arguments)
      arguments.push_back(json::Object{{"abi", a.abi},
                                       {"type", a.type},
                                       {"offset", int64_t(a.offset)},
                                       {"size", int64_t(a.size)}});
    for (const fly::AbiParameter &p : host.parameters) {
      json::Array leaves;
      for (const fly::AbiLeaf &l : p.leaves)
        leaves.push_back(json::Array{
            l.stride ? "stride" : "shape", int64_t(l.dim),
            l.value ? json::Value(*l.value) : json::Value(nullptr),
            l.divisibility, l.wide});
      parameters.push_back(json::Object{{"type", p.type},
                                        {"element", p.element},
                                        {"alignment", int64_t(p.alignment)},
                                        {"rank", int64_t(p.rank)},
                                        {"leaves", std::move(leaves)}});
    }
    for (const fly::AbiSlot &slot : host.slots)
      slots.push_back(json::Array{int64_t(slot.offset),
                                  fly::abiScalarName(slot.type),
                                  int64_t(slot.parameter), slot.leaf});
    hosts.push_back(json::Object{{"name", host.name},
                                 {"arguments", std::move(arguments)},
                                 {"block_size", int64_t(host.blockSize)},
                                 {"parameters", std::move(parameters)},
                                 {"slots", std::move(slots)},
                                 {"original_type", host.originalType}});
  }
  for (const fly::KernelInfo &k : artifact->kernels) {
    json::Array abi;
    for (const std::string &entry : k.abi)
      abi.push_back(entry);
    kernels.push_back(json::Object{
        {"module", k.module}, {"name", k.name}, {"abi", std::move(abi)}});
  }
  outs() << formatv("{0:2}", json::Value(json::Object{
                                 {"host_functions", std::move(hosts)},
                                 {"kernels", std::move(kernels)}}))
         << "\n";
  return 0;
}
