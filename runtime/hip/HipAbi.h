//===- HipAbi.h - The parts of HIP's C ABI that the loader uses -*- C++ -*-===//
//
// libamdhip64 is dlopen'ed, so HIP's headers are not included: this file
// declares the few types and signatures the loader calls, as HIP's public
// headers (hip/hip_runtime_api.h) define them on Linux x86-64:
//
//   hipError_t        a C enum (int): hipSuccess = 0, hipErrorInvalidValue =
//                     1, hipErrorNoDevice = 100, hipErrorInvalidImage = 200,
//                     hipErrorNotFound = 500
//   hipModule_t, hipFunction_t, hipStream_t   opaque pointers
//   hipInit(unsigned flags), hipGetDeviceCount(int *)
//   hipModuleLoadData(hipModule_t *, const void *image)
//   hipModuleUnload(hipModule_t)
//   hipModuleGetFunction(hipFunction_t *, hipModule_t, const char *kname)
//   hipModuleLaunchKernel(hipFunction_t, unsigned gridDimX/Y/Z,
//       unsigned blockDimX/Y/Z, unsigned sharedMemBytes, hipStream_t,
//       void **kernelParams, void **extra)
//   hipStreamCreate(hipStream_t *), hipStreamSynchronize(hipStream_t),
//   hipStreamDestroy(hipStream_t)
//   const char *hipGetErrorName(hipError_t), hipGetErrorString(hipError_t)
//
// Cluster launch (newer HIP only; there is no hipModuleLaunchKernelEx):
//   hipDrvLaunchKernelEx(const HIP_LAUNCH_CONFIG *, hipFunction_t,
//                        void **params, void **extra)
//   HIP_LAUNCH_CONFIG  {unsigned gridDimX, gridDimY, gridDimZ, blockDimX,
//                       blockDimY, blockDimZ, sharedMemBytes;
//                       hipStream_t hStream; hipLaunchAttribute *attrs;
//                       unsigned numAttrs;}                   56 bytes
//   hipLaunchAttribute {hipLaunchAttributeID id; char pad[4];
//                       union hipLaunchAttributeValue value;} 72 bytes
//   hipLaunchAttributeValue: a 64-byte union, among whose members
//                       `struct {unsigned x, y, z;} clusterDim`
//   hipLaunchAttributeClusterDimension = 4
//
//===----------------------------------------------------------------------===//

#ifndef FLY_RUNTIME_HIP_HIPABI_H
#define FLY_RUNTIME_HIP_HIPABI_H

#include <cstddef>

namespace fly::runtime::hipabi {

using Status = int; // hipError_t
constexpr Status kSuccess = 0;
constexpr int kLaunchAttributeClusterDimension = 4;

union LaunchAttributeValue {
  char pad[64];
  void *align; // the real union holds pointers (accessPolicyWindow)
  struct {
    unsigned x, y, z;
  } clusterDim;
};

struct LaunchAttribute {
  int id; // hipLaunchAttributeID
  char pad[8 - sizeof(int)];
  LaunchAttributeValue value;
};

struct DrvLaunchConfig { // HIP_LAUNCH_CONFIG
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

static_assert(sizeof(LaunchAttributeValue) == 64, "hipLaunchAttributeValue");
static_assert(sizeof(LaunchAttribute) == 72 &&
                  offsetof(LaunchAttribute, value) == 8,
              "hipLaunchAttribute");
static_assert(sizeof(DrvLaunchConfig) == 56 &&
                  offsetof(DrvLaunchConfig, hStream) == 32 &&
                  offsetof(DrvLaunchConfig, attrs) == 40 &&
                  offsetof(DrvLaunchConfig, numAttrs) == 48,
              "HIP_LAUNCH_CONFIG");

using InitFn = Status (*)(unsigned);
using GetDeviceCountFn = Status (*)(int *);
using ModuleLoadDataFn = Status (*)(void **, const void *);
using ModuleUnloadFn = Status (*)(void *);
using ModuleGetFunctionFn = Status (*)(void **, void *, const char *);
using ModuleLaunchKernelFn = Status (*)(void *, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, unsigned,
                                        void *, void **, void **);
using DrvLaunchKernelExFn = Status (*)(const DrvLaunchConfig *, void *,
                                       void **, void **);
using StreamCreateFn = Status (*)(void **);
using StreamFn = Status (*)(void *);
using ErrorTextFn = const char *(*)(Status);

} // namespace fly::runtime::hipabi

#endif // FLY_RUNTIME_HIP_HIPABI_H
