//===- HipDevice.cpp - The AMD GPU backend over the HIP runtime -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The HIP traits of the shared GPU device (gpu/GpuDevice.h):
// HIP's types and table, resolved from libamdhip64.so at run time (no ROCm
// needed to build), and what only HIP does: the device is selected with
// hipSetDevice on each calling thread, and a module is the first image the
// GPU accepts: the object's offload bundle (or an HSACO code object), loaded
// with hipModuleLoadData.
//
// This backend is compiled and its fork/join logic is tested against the
// mock device, its shared part against a fake driver; it has not run on an
// AMD GPU.
//
//===----------------------------------------------------------------------===//

#include "../gpu/GpuDevice.h"

#include <utility>

using namespace qd::rt;
using namespace qd::rt::gpu;

namespace {

// The HIP types used, as hip_runtime_api.h defines them.
using hipError_t = int;
using hipDevice_t = int;
using hipDeviceptr_t = void *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipGraph_t = struct ihipGraph *;
using hipGraphExec_t = struct hipGraphExec *;

/// hipDeviceAttribute_t as ROCm 5 and later number it.
constexpr int hipDeviceAttributeMultiprocessorCount = 63;

/// The HIP runtime as the shared device sees it: its functions, resolved
/// once from libamdhip64.so, and the facts of its API the table cannot say.
struct HipRuntime {
  static constexpr GpuVendor Vendor = {
      qd::Arch::amdgpu, "amdgpu", "HIP",
      "libamdhip64.so loaded, but there is no AMD GPU",
      hipDeviceAttributeMultiprocessorCount};

  DynamicLibrary Library{"libamdhip64.so", "libamdhip64.so.6",
                         "libamdhip64.so.5"};
#define QDRT_GPU_FN(ROLE, NAME, SYMBOL, RET, PARAMS)                           \
  DriverFn<RET PARAMS> ROLE{Library, #NAME, SYMBOL};
#include "HipRuntime.def"

  std::pair<const char *, const char *> errorStrings(hipError_t R) const {
    return {GetErrorName(R), GetErrorString(R)};
  }
  /// Whether P is page-locked host memory HIP knows (hipHostMalloc,
  /// hipHostRegister).
  bool isPinnedHost(const void *P) const {
    unsigned Flags = 0;
    return MemHostGetFlags(&Flags, const_cast<void *>(P)) == Vendor.Success;
  }
};

/// HIP has no context to hold: each thread selects the device (SetCurrent is
/// hipSetDevice) before its calls.
class HipContext {
public:
  HipContext(const GpuDriver<HipRuntime> &D, const GpuInfo<HipRuntime> &Gpu)
      : D(D), Dev(Gpu.Id), Name(Gpu.Name) {}

  hipDevice_t place() const { return Dev; }
  /// No fill kernel for AMD GPUs (it would need a code object per
  /// architecture): fills without a short pattern copy and double.
  bool fillWords(void *, const uint32_t *, unsigned, size_t, int,
                 hipStream_t) const {
    return false;
  }
  void prepareFill() const {}
  /// HIP's pointer attributes differ between ROCm versions: the HIP
  /// backend does not check views' pointers.
  std::string checkUsable(const void *, size_t) const { return {}; }
  std::string describe() const { return Name; }
  int capability() const { return 0; }
  /// Lets this device (current) reach Peer's memory; enabling it twice is
  /// no error.
  void enablePeer(const HipContext &Peer) const {
    constexpr int AlreadyEnabled = 704; // hipErrorPeerAccessAlreadyEnabled
    auto R = D.DeviceEnablePeerAccess(int(Peer.Dev), 0u);
    if (int(R) != AlreadyEnabled)
      D.check(R, D.DeviceEnablePeerAccess.Name);
  }

  /// Loads into Out the first image of M that the GPU accepts: the offload
  /// bundle of its HSACO (the HIP runtime picks the code object for this
  /// GPU), or one HSACO; the error lists the archs tried and the last
  /// failure.
  void load(const qdrt_module_desc &M, LoadedImage<hipModule_t> &Out) const {
    std::string Tried, LastError;
    for (uint32_t I = 0; I < M.num_images; ++I) {
      const qdrt_image &Img = M.images[I];
      if (Img.kind != QDRT_IMAGE_HSACO && Img.kind != QDRT_IMAGE_OFFLOAD_BUNDLE)
        continue;
      Tried += (Tried.empty() ? "" : ", ") + std::string(Img.arch);
      hipModule_t Mod = nullptr;
      hipError_t R = D.ModuleLoad(&Mod, Img.data);
      if (R == HipRuntime::Vendor.Success) {
        Out.Modules = {Mod};
        return;
      }
      LastError = D.message(R, D.ModuleLoad.Name);
    }
    throw qd::Error(std::string("module '") + M.name + "' has no image " +
                    Name + " accepts (" +
                    (Tried.empty() ? "no HSACO images" : "tried " + Tried) +
                    (LastError.empty() ? "" : "; " + LastError) + ")");
  }

private:
  const GpuDriver<HipRuntime> &D;
  hipDevice_t Dev;
  std::string Name;
};

} // namespace

std::unique_ptr<Device> qd::rt::createHipDevice(int Ordinal) {
  return std::make_unique<GpuDevice<HipRuntime, HipContext>>(Ordinal);
}
