//===- CudaDevice.cpp - The CUDA backend over the driver API
//---------------===//
//
// Part of qdc. Resolves the driver from libcuda.so.1 at run time (no CUDA
// toolkit needed to build), runs on the device's primary context (made
// current on each calling thread), loads PTX or cubin images with
// cuModuleLoadDataEx and reports the JIT log when that fails.
//
//===----------------------------------------------------------------------===//

#include "../Device.h"
#include "../DynamicLibrary.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

using namespace qd::rt;

namespace {

// The few driver types and constants used, as cuda.h defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

/// The driver functions, resolved once from libcuda.so.1.
struct CudaDriver {
  DynamicLibrary Library{"libcuda.so.1", "libcuda.so"};
#define QDRT_CUDA_FN(NAME, SYMBOL, PARAMS) CUresult(*NAME) PARAMS = nullptr;
#include "CudaDriver.def"

  CudaDriver() {
#define QDRT_CUDA_FN(NAME, SYMBOL, PARAMS)                                     \
  NAME = reinterpret_cast<decltype(NAME)>(Library.symbol(SYMBOL));
#include "CudaDriver.def"
  }

  /// Throws qd::Error("<Call>: CUDA_ERROR_X (<description>)") on failure.
  void check(CUresult R, const char *Call) const {
    if (R == CUDA_SUCCESS)
      return;
    const char *Name = nullptr, *Text = nullptr;
    cuGetErrorName(R, &Name);
    cuGetErrorString(R, &Text);
    throw qd::Error(std::string(Call) + ": " +
                    (Name ? Name : "CUDA error " + std::to_string(R)) + " (" +
                    (Text ? Text : "no description") + ")");
  }
};

#define CU_CHECK(CALL, ...) Driver.check(Driver.CALL(__VA_ARGS__), #CALL)

class CudaDevice final : public Device {
public:
  explicit CudaDevice(int Ordinal) {
    CU_CHECK(cuInit, 0);
    int Count = 0;
    CU_CHECK(cuDeviceGetCount, &Count);
    if (Count == 0)
      throw qd::Error("cuda: libcuda.so.1 loaded, but there is no CUDA device");
    if (Ordinal >= Count)
      throw qd::Error("cuda: no device " + std::to_string(Ordinal) +
                      "; this machine has " + std::to_string(Count));
    CU_CHECK(cuDeviceGet, &Dev, Ordinal);
    char Name[256] = {};
    CU_CHECK(cuDeviceGetName, Name, sizeof(Name) - 1, Dev);
    DeviceName = Name;
    int Major = 0, Minor = 0;
    CU_CHECK(cuDeviceGetAttribute, &Major,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Dev);
    CU_CHECK(cuDeviceGetAttribute, &Minor,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Dev);
    SmVersion = Major * 10 + Minor;
    CU_CHECK(cuDeviceGetAttribute, &Multiprocessors,
             CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
    CU_CHECK(cuDevicePrimaryCtxRetain, &Ctx, Dev);
  }

  ~CudaDevice() override {
    makeCurrent();
    Driver.cuCtxSynchronize();
    Driver.cuDevicePrimaryCtxRelease(Dev);
    current() = nullptr;
  }

  qd::Arch arch() const override { return qd::Arch::cuda; }
  std::string describe() const override {
    return DeviceName + " (sm_" + std::to_string(SmVersion) + ")";
  }

  Handle createStream() override {
    makeCurrent();
    CUstream S = nullptr;
    CU_CHECK(cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
    return S;
  }
  void destroyStream(Handle S) override {
    makeCurrent();
    CU_CHECK(cuStreamDestroy, static_cast<CUstream>(S));
  }
  void synchronizeStream(Handle S) override {
    makeCurrent();
    CU_CHECK(cuStreamSynchronize, static_cast<CUstream>(S));
  }

  Handle createEvent(bool Timing) override {
    makeCurrent();
    CUevent E = nullptr;
    CU_CHECK(cuEventCreate, &E, Timing ? 0u : CU_EVENT_DISABLE_TIMING);
    return E;
  }
  void destroyEvent(Handle E) override {
    makeCurrent();
    CU_CHECK(cuEventDestroy, static_cast<CUevent>(E));
  }
  void recordEvent(Handle E, Handle S) override {
    makeCurrent();
    CU_CHECK(cuEventRecord, static_cast<CUevent>(E), static_cast<CUstream>(S));
  }
  void streamWaitEvent(Handle S, Handle E) override {
    makeCurrent();
    CU_CHECK(cuStreamWaitEvent, static_cast<CUstream>(S),
             static_cast<CUevent>(E), 0u);
  }
  void synchronizeEvent(Handle E) override {
    makeCurrent();
    CU_CHECK(cuEventSynchronize, static_cast<CUevent>(E));
  }
  bool queryEvent(Handle E) override {
    makeCurrent();
    CUresult R = Driver.cuEventQuery(static_cast<CUevent>(E));
    if (R == CUDA_ERROR_NOT_READY)
      return false;
    Driver.check(R, "cuEventQuery");
    return true;
  }
  float elapsedMs(Handle A, Handle B) override {
    makeCurrent();
    float Ms = 0;
    CU_CHECK(cuEventElapsedTime, &Ms, static_cast<CUevent>(A),
             static_cast<CUevent>(B));
    return Ms;
  }

  Handle loadModule(const qdrt_module_desc &M) override {
    makeCurrent();
    const qdrt_image *Image = pickImage(M);
    char Log[8192] = {};
    int Options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Values[] = {Log, reinterpret_cast<void *>(uintptr_t(sizeof(Log)))};
    CUmodule Mod = nullptr;
    CUresult R =
        Driver.cuModuleLoadDataEx(&Mod, Image->data, 2, Options, Values);
    if (R != CUDA_SUCCESS) {
      try {
        Driver.check(R, "cuModuleLoadDataEx");
      } catch (const qd::Error &E) {
        throw qd::Error(std::string(E.what()) + " loading module '" + M.name +
                        "' (" + Image->arch + ")" +
                        (Log[0] ? std::string(":\n") + Log : ""));
      }
    }
    return Mod;
  }
  void unloadModule(Handle M) override {
    makeCurrent();
    CU_CHECK(cuModuleUnload, static_cast<CUmodule>(M));
  }
  Handle getFunction(Handle M, const qdrt_task_desc &T) override {
    makeCurrent();
    CUfunction F = nullptr;
    CUresult R =
        Driver.cuModuleGetFunction(&F, static_cast<CUmodule>(M), T.name);
    if (R != CUDA_SUCCESS)
      Driver.check(
          R, (std::string("cuModuleGetFunction('") + T.name + "')").c_str());
    return F;
  }
  void *getGlobal(Handle M, const qdrt_field_desc &F) override {
    makeCurrent();
    CUdeviceptr P = 0;
    size_t Bytes = 0;
    CUresult R =
        Driver.cuModuleGetGlobal(&P, &Bytes, static_cast<CUmodule>(M), F.name);
    if (R != CUDA_SUCCESS)
      Driver.check(
          R, (std::string("cuModuleGetGlobal('") + F.name + "')").c_str());
    if (Bytes != F.bytes)
      throw qd::Error(std::string("field '") + F.name + "' has " +
                      std::to_string(Bytes) + " bytes on the device, " +
                      std::to_string(F.bytes) + " in its module");
    return reinterpret_cast<void *>(P);
  }

  void launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
              const void *Args, size_t ArgSize, Handle S) override {
    makeCurrent();
    unsigned Block = T.block_dim ? T.block_dim : DefaultBlock;
    uint64_t Blocks = (Iterations + Block - 1) / Block;
    // Grid-stride loops cover the rest; enough blocks to fill the device.
    uint64_t MaxBlocks = uint64_t(Multiprocessors) * 32;
    unsigned Grid = static_cast<unsigned>(
        std::max<uint64_t>(1, std::min(Blocks, MaxBlocks)));
    void *Params[2];
    unsigned N = 0;
    if (ArgSize)
      Params[N++] = const_cast<void *>(Args);
    Params[N++] = &Iterations;
    CU_CHECK(cuLaunchKernel, static_cast<CUfunction>(Fn), Grid, 1u, 1u, Block,
             1u, 1u, 0u, static_cast<CUstream>(S), Params, nullptr);
  }

  void *allocate(size_t Bytes) override {
    makeCurrent();
    CUdeviceptr P = 0;
    CU_CHECK(cuMemAlloc, &P, std::max<size_t>(Bytes, 1));
    return reinterpret_cast<void *>(P);
  }
  void deallocate(void *P) override {
    makeCurrent();
    CU_CHECK(cuMemFree, reinterpret_cast<CUdeviceptr>(P));
  }
  void copyToDevice(void *Dst, const void *Src, size_t Bytes,
                    Handle S) override {
    makeCurrent();
    CU_CHECK(cuMemcpyHtoDAsync, reinterpret_cast<CUdeviceptr>(Dst), Src, Bytes,
             static_cast<CUstream>(S));
  }
  void copyToHost(void *Dst, const void *Src, size_t Bytes, Handle S) override {
    makeCurrent();
    CU_CHECK(cuMemcpyDtoHAsync, Dst, reinterpret_cast<CUdeviceptr>(Src), Bytes,
             static_cast<CUstream>(S));
  }

private:
  static constexpr unsigned DefaultBlock = 128;

  static CUcontext &current() {
    thread_local CUcontext Current = nullptr;
    return Current;
  }
  void makeCurrent() {
    if (current() == Ctx)
      return;
    CU_CHECK(cuCtxSetCurrent, Ctx);
    current() = Ctx;
  }

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

  CudaDriver Driver;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  std::string DeviceName;
  int SmVersion = 0;
  int Multiprocessors = 1;
};

} // namespace

std::unique_ptr<Device> qd::rt::createCudaDevice(int Ordinal) {
  return std::make_unique<CudaDevice>(Ordinal);
}
