//===- HipDevice.cpp - The AMD GPU backend over the HIP runtime
//------------===//
//
// Part of qdc. Resolves HIP from libamdhip64.so at run time (no ROCm needed
// to build), selects the device on each calling thread, and loads the first
// HSACO image of the module that the GPU accepts.
//
// This backend is compiled and its fork/join logic is tested against the
// mock device; it has not run on an AMD GPU.
//
//===----------------------------------------------------------------------===//

#include "../Device.h"
#include "../DynamicLibrary.h"

#include <algorithm>

using namespace qd::rt;

namespace {

using hipError_t = int;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorNotReady = 600;
constexpr unsigned hipStreamNonBlocking = 0x1;
constexpr unsigned hipEventDisableTiming = 0x2;

struct HipRuntime {
  DynamicLibrary Library{"libamdhip64.so", "libamdhip64.so.6",
                         "libamdhip64.so.5"};
#define QDRT_HIP_FN(RET, NAME, PARAMS) RET(*NAME) PARAMS = nullptr;
#include "HipRuntime.def"

  HipRuntime() {
#define QDRT_HIP_FN(RET, NAME, PARAMS)                                         \
  NAME = reinterpret_cast<decltype(NAME)>(Library.symbol(#NAME));
#include "HipRuntime.def"
  }

  void check(hipError_t R, const std::string &Call) const {
    if (R == hipSuccess)
      return;
    const char *Name = hipGetErrorName(R);
    const char *Text = hipGetErrorString(R);
    throw qd::Error(Call + ": " +
                    (Name ? Name : "HIP error " + std::to_string(R)) + " (" +
                    (Text ? Text : "no description") + ")");
  }
};

#define HIP_CHECK(CALL, ...) Hip.check(Hip.CALL(__VA_ARGS__), #CALL)

class HipDevice final : public Device {
public:
  explicit HipDevice(int Ordinal) : Ordinal(Ordinal) {
    HIP_CHECK(hipInit, 0);
    int Count = 0;
    HIP_CHECK(hipGetDeviceCount, &Count);
    if (Count == 0)
      throw qd::Error("amdgpu: libamdhip64.so loaded, but there is no AMD GPU");
    if (Ordinal >= Count)
      throw qd::Error("amdgpu: no device " + std::to_string(Ordinal) +
                      "; this machine has " + std::to_string(Count));
    makeCurrent();
    char Name[256] = {};
    HIP_CHECK(hipDeviceGetName, Name, sizeof(Name) - 1, Ordinal);
    DeviceName = Name;
  }
  ~HipDevice() override {
    makeCurrent();
    Hip.hipDeviceSynchronize();
  }

  qd::Arch arch() const override { return qd::Arch::amdgpu; }
  std::string describe() const override { return DeviceName; }

  Handle createStream() override {
    makeCurrent();
    hipStream_t S = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags, &S, hipStreamNonBlocking);
    return S;
  }
  void destroyStream(Handle S) override {
    makeCurrent();
    HIP_CHECK(hipStreamDestroy, static_cast<hipStream_t>(S));
  }
  void synchronizeStream(Handle S) override {
    makeCurrent();
    HIP_CHECK(hipStreamSynchronize, static_cast<hipStream_t>(S));
  }
  Handle createEvent(bool Timing) override {
    makeCurrent();
    hipEvent_t E = nullptr;
    HIP_CHECK(hipEventCreateWithFlags, &E, Timing ? 0u : hipEventDisableTiming);
    return E;
  }
  void destroyEvent(Handle E) override {
    makeCurrent();
    HIP_CHECK(hipEventDestroy, static_cast<hipEvent_t>(E));
  }
  void recordEvent(Handle E, Handle S) override {
    makeCurrent();
    HIP_CHECK(hipEventRecord, static_cast<hipEvent_t>(E),
              static_cast<hipStream_t>(S));
  }
  void streamWaitEvent(Handle S, Handle E) override {
    makeCurrent();
    HIP_CHECK(hipStreamWaitEvent, static_cast<hipStream_t>(S),
              static_cast<hipEvent_t>(E), 0u);
  }
  void synchronizeEvent(Handle E) override {
    makeCurrent();
    HIP_CHECK(hipEventSynchronize, static_cast<hipEvent_t>(E));
  }
  bool queryEvent(Handle E) override {
    makeCurrent();
    hipError_t R = Hip.hipEventQuery(static_cast<hipEvent_t>(E));
    if (R == hipErrorNotReady)
      return false;
    Hip.check(R, "hipEventQuery");
    return true;
  }
  float elapsedMs(Handle A, Handle B) override {
    makeCurrent();
    float Ms = 0;
    HIP_CHECK(hipEventElapsedTime, &Ms, static_cast<hipEvent_t>(A),
              static_cast<hipEvent_t>(B));
    return Ms;
  }

  Handle loadModule(const qdrt_module_desc &M) override {
    makeCurrent();
    std::string Tried, LastError;
    for (uint32_t I = 0; I < M.num_images; ++I) {
      const qdrt_image &Img = M.images[I];
      if (Img.kind != QDRT_IMAGE_HSACO)
        continue;
      Tried += (Tried.empty() ? "" : ", ") + std::string(Img.arch);
      hipModule_t Mod = nullptr;
      hipError_t R = Hip.hipModuleLoadData(&Mod, Img.data);
      if (R == hipSuccess)
        return Mod;
      try {
        Hip.check(R, "hipModuleLoadData");
      } catch (const qd::Error &E) {
        LastError = E.what();
      }
    }
    throw qd::Error(std::string("module '") + M.name + "' has no image " +
                    DeviceName + " accepts (" +
                    (Tried.empty() ? "no HSACO images" : "tried " + Tried) +
                    (LastError.empty() ? "" : "; " + LastError) + ")");
  }
  void unloadModule(Handle M) override {
    makeCurrent();
    HIP_CHECK(hipModuleUnload, static_cast<hipModule_t>(M));
  }
  Handle getFunction(Handle M, const qdrt_task_desc &T) override {
    makeCurrent();
    hipFunction_t F = nullptr;
    Hip.check(Hip.hipModuleGetFunction(&F, static_cast<hipModule_t>(M), T.name),
              std::string("hipModuleGetFunction('") + T.name + "')");
    return F;
  }
  void *getGlobal(Handle M, const qdrt_field_desc &F) override {
    makeCurrent();
    void *P = nullptr;
    size_t Bytes = 0;
    Hip.check(
        Hip.hipModuleGetGlobal(&P, &Bytes, static_cast<hipModule_t>(M), F.name),
        std::string("hipModuleGetGlobal('") + F.name + "')");
    return P;
  }
  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t ArgSize, Handle S) override {
    makeCurrent();
    unsigned Block = T.block_dim ? T.block_dim : 128;
    uint64_t Blocks = (Iterations + Block - 1) / Block;
    unsigned Grid = static_cast<unsigned>(
        std::max<uint64_t>(1, std::min<uint64_t>(Blocks, 65535)));
    void *Params[2];
    unsigned N = 0;
    if (ArgSize)
      Params[N++] = const_cast<void *>(Args);
    Params[N++] = &Iterations;
    HIP_CHECK(hipModuleLaunchKernel, static_cast<hipFunction_t>(Fn), Grid, 1u,
              1u, Block, 1u, 1u, 0u, static_cast<hipStream_t>(S), Params,
              nullptr);
  }
  void *allocate(size_t Bytes) override {
    makeCurrent();
    void *P = nullptr;
    HIP_CHECK(hipMalloc, &P, std::max<size_t>(Bytes, 1));
    return P;
  }
  void deallocate(void *P) override {
    makeCurrent();
    HIP_CHECK(hipFree, P);
  }
  void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    makeCurrent();
    HIP_CHECK(hipMemcpyHtoDAsync, Dst, Src, Bytes, static_cast<hipStream_t>(S));
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes, Handle S) override {
    makeCurrent();
    HIP_CHECK(hipMemcpyDtoHAsync, Dst, Src, Bytes, static_cast<hipStream_t>(S));
  }

private:
  void makeCurrent() {
    thread_local int Current = -1;
    if (Current == Ordinal)
      return;
    HIP_CHECK(hipSetDevice, Ordinal);
    Current = Ordinal;
  }

  HipRuntime Hip;
  int Ordinal;
  std::string DeviceName;
};

} // namespace

std::unique_ptr<Device> qd::rt::createHipDevice(int Ordinal) {
  return std::make_unique<HipDevice>(Ordinal);
}
