//===- CudaDevice.cpp - The CUDA backend over the driver API --------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The CUDA traits of the shared GPU device (gpu/GpuDevice.h):
// the driver's types and table, resolved from libcuda.so.1 at run time (no
// CUDA toolkit needed to build), and what only CUDA does: work runs on the
// device's primary context, made current on each calling thread; modules
// are PTX or cubin images loaded with cuModuleLoadDataEx, whose JIT log is
// reported when loading fails.
//
//===----------------------------------------------------------------------===//

#include "../gpu/GpuDevice.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

using namespace qd::rt;
using namespace qd::rt::gpu;

namespace {

// The driver types used, as cuda.h defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUgraphNode = struct CUgraphNode_st *;
/// CUDA_KERNEL_NODE_PARAMS as the unversioned (v1) graph entry points take
/// it.
struct KernelNodeParams {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
};

// The attributes and JIT options used, as cuda.h numbers them.
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

/// The CUDA driver as the shared device sees it: its functions, resolved
/// once from libcuda.so.1, and the facts of its API the table cannot say.
struct CudaDriver {
  using KernelNode = CUgraphNode;
  using KernelNodeParams = ::KernelNodeParams;
  static constexpr int KernelNodeType = 0; // CU_GRAPH_NODE_TYPE_KERNEL
  static constexpr GpuVendor Vendor = {
      qd::Arch::cuda, "cuda", "CUDA",
      "libcuda.so.1 loaded, but there is no CUDA device",
      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT};

  DynamicLibrary Library{"libcuda.so.1", "libcuda.so"};
#define QDRT_GPU_FN(ROLE, NAME, SYMBOL, RET, PARAMS)                           \
  DriverFn<RET PARAMS> ROLE{Library, #NAME, SYMBOL};
#include "CudaDriver.def"

  /// The driver's name and description of R, as out-parameters.
  std::pair<const char *, const char *> errorStrings(CUresult R) const {
    const char *Name = nullptr, *Text = nullptr;
    GetErrorName(R, &Name);
    GetErrorString(R, &Text);
    return {Name, Text};
  }
};

/// The device's primary context (what the CUDA runtime uses too, so
/// libraries sharing the process see the same memory and modules), and the
/// images this GPU runs.
class CudaContext {
public:
  CudaContext(const GpuDriver<CudaDriver> &D, const GpuInfo<CudaDriver> &Gpu)
      : D(D), Dev(Gpu.Id), Name(Gpu.Name) {
    int Major = 0, Minor = 0;
    D.call(D.DeviceGetAttribute, &Major,
           CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Dev);
    D.call(D.DeviceGetAttribute, &Minor,
           CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Dev);
    SmVersion = Major * 10 + Minor;
    D.call(D.DevicePrimaryCtxRetain, &Ctx, Dev);
  }
  ~CudaContext() { D.DevicePrimaryCtxRelease(Dev); }
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  CUcontext place() const { return Ctx; }

  /// Whether kernels on this GPU can use the Bytes at P: memory the driver
  /// knows (device, managed or pinned host memory), of this device, and
  /// all inside one allocation.
  std::string checkUsable(const void *P, size_t Bytes) const {
    auto Address = CUdeviceptr(reinterpret_cast<uintptr_t>(P));
    int Ordinal = -1;
    if (D.PointerGetAttribute(&Ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                              Address) != CudaDriver::Vendor.Success)
      return "it is not memory the CUDA driver knows (host memory from "
             "malloc, new or a std::vector?)";
    if (Ordinal >= 0 && Ordinal != Dev)
      return "it is memory of CUDA device " + std::to_string(Ordinal) +
             ", and the runtime uses device " + std::to_string(Dev);
    CUdeviceptr Start = 0;
    size_t Size = 0;
    if (D.PointerGetAttribute(&Start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                              Address) == CudaDriver::Vendor.Success &&
        D.PointerGetAttribute(&Size, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                              Address) == CudaDriver::Vendor.Success &&
        Address - Start + Bytes > Size)
      return "its " + std::to_string(Bytes) + " bytes run past the end of " +
             "its allocation (" + std::to_string(Size - (Address - Start)) +
             " bytes left from there)";
    return {};
  }
  /// E.g. "NVIDIA H100 80GB HBM3 (sm_90)".
  std::string describe() const {
    return Name + " (sm_" + std::to_string(SmVersion) + ")";
  }

  /// Loads the best image of M for this GPU; the error of a failed load
  /// carries the JIT's log.
  CUmodule load(const qdrt_module_desc &M) const {
    const qdrt_image *Image = pickImage(M);
    char Log[8192] = {};
    int Options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Values[] = {Log, reinterpret_cast<void *>(uintptr_t(sizeof(Log)))};
    CUmodule Mod = nullptr;
    CUresult R = D.ModuleLoad(&Mod, Image->data, 2, Options, Values);
    if (R != CudaDriver::Vendor.Success)
      throw qd::Error(D.message(R, D.ModuleLoad.Name) + " loading module '" +
                      M.name + "' (" + Image->arch + ")" +
                      (Log[0] ? std::string(":\n") + Log : ""));
    return Mod;
  }

private:
  /// Prefers SASS for exactly this GPU, then the PTX of the newest arch not
  /// newer than it (the driver JITs it).
  const qdrt_image *pickImage(const qdrt_module_desc &M) const {
    const qdrt_image *Best = nullptr;
    int BestSm = -1;
    std::string Have;
    for (uint32_t I = 0; I < M.num_images; ++I) {
      const qdrt_image &Img = M.images[I];
      if (Img.kind != QDRT_IMAGE_PTX && Img.kind != QDRT_IMAGE_CUBIN)
        continue;
      Have += (Have.empty() ? "" : ", ") + std::string(Img.arch);
      int Sm = std::strncmp(Img.arch, "sm_", 3) ? -1 : std::atoi(Img.arch + 3);
      if (Img.kind == QDRT_IMAGE_CUBIN && Sm == SmVersion)
        return &Img;
      if (Img.kind == QDRT_IMAGE_PTX && Sm <= SmVersion && Sm > BestSm) {
        Best = &Img;
        BestSm = Sm;
      }
    }
    if (!Best)
      throw qd::Error(std::string("module '") + M.name +
                      "' has no image this GPU can run (sm_" +
                      std::to_string(SmVersion) +
                      "); it has: " + (Have.empty() ? "no CUDA images" : Have));
    return Best;
  }

  const GpuDriver<CudaDriver> &D;
  CUdevice Dev;
  std::string Name;
  int SmVersion = 0;
  CUcontext Ctx = nullptr;
};

} // namespace

std::unique_ptr<Device> qd::rt::createCudaDevice(int Ordinal) {
  return std::make_unique<GpuDevice<CudaDriver, CudaContext>>(Ordinal);
}
