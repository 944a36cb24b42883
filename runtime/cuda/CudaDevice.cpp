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
// are a fat binary (or, from a compile without the CUDA toolkit, PTX) loaded
// with cuModuleLoadDataEx, whose JIT log is reported when loading fails.
//
//===----------------------------------------------------------------------===//

#include "../gpu/GpuDevice.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
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

/// CUlaunchAttribute: an attribute's number, then its value (a union of 64
/// bytes, of which only an int is used).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
    long long align;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute's size");
/// CUlaunchConfig.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

using CUlinkState = struct CUlinkState_st *;
/// CUDA_CONDITIONAL_NODE_PARAMS.
struct ConditionalNodeParams {
  unsigned long long handle;
  int type;
  unsigned size;
  CUgraph *phGraph_out;
  CUcontext ctx;
};
/// CUgraphNodeParams, of which only the conditional member is used.
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(GraphNodeParams) == 256, "CUgraphNodeParams' size");

// The attributes and JIT options used, as cuda.h numbers them.
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_PTX_VERSION = 5;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
constexpr int CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr unsigned CU_MEMORYTYPE_HOST = 1;
constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11;
constexpr int CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_INPUT_PTX = 1;
constexpr int CU_JIT_INPUT_LIBRARY = 4;
constexpr int CU_GRAPH_NODE_TYPE_CONDITIONAL = 13;
constexpr int CU_GRAPH_COND_TYPE_WHILE = 1;
constexpr unsigned CU_GRAPH_COND_ASSIGN_DEFAULT = 1;
constexpr unsigned CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;

/// The node that ends each run of a do_while body: sets the while node's
/// condition (a cudaGraphConditionalHandle) to whether the flag is
/// non-zero and no assertion of the module failed (assert_record, the
/// qdrt_assert_record whose first word is `failed`, may be null).
/// cudaGraphSetConditional lives in the CUDA toolkit's libcudadevrt.a, so
/// this PTX is linked with it when first needed.
constexpr char SetWhilePtx[] = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);
.visible .entry qdrt_set_while(.param .u64 handle, .param .u64 flag,
                               .param .u64 assert_record)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [handle];
  ld.param.u64 %rd2, [flag];
  ld.param.u64 %rd3, [assert_record];
  ld.volatile.u32 %r1, [%rd2];
  setp.ne.s32 %p1, %r1, 0;
  setp.eq.u64 %p2, %rd3, 0;
  @%p2 bra SET;
  ld.volatile.u32 %r2, [%rd3];
  setp.eq.s32 %p3, %r2, 0;
  and.pred %p1, %p1, %p3;
SET:
  selp.u32 %r3, 1, 0, %p1;
  {
    .param .b64 param0;
    .param .b32 param1;
    st.param.b64 [param0], %rd1;
    st.param.b32 [param1], %r3;
    call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
.visible .entry qdrt_set_one(.param .u64 handle)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [handle];
  mov.u32 %r1, 1;
  {
    .param .b64 param0;
    .param .b32 param1;
    st.param.b64 [param0], %rd1;
    st.param.b32 [param1], %r1;
    call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
)";

/// Fills Count 32-bit words at Dst (4-byte aligned) with a pattern of
/// Period words (1 to 16) repeated: word i is w[i % Period]. The pattern
/// goes to shared memory once per block; each thread then strides over the
/// words keeping i % Period by additions, or, where `pairs` says Dst is
/// 8-byte aligned and Count even, over pairs of words stored together. A fill whose
/// element repeats no 1-, 2- or 4-byte pattern (a double of 1.0 / 3, a
/// qd::vec3) runs at a memset's speed this way (2026-11-27, NVIDIA H200, 2^25
/// doubles: a kernel of this kind 0.0643 ms, cuMemsetD32 0.0627 ms; doubling
/// copies had been 0.34 of a memset on an H100). Loaded when first needed; PTX
/// of sm_75, so the driver compiles it for any GPU the runtime supports.
constexpr char FillPtx[] = R"(.version 6.4
.target sm_75
.address_size 64
.visible .entry qdrt_fill_words(
  .param .u64 dst,
  .param .u64 count,
  .param .u32 period,
  .param .u32 pairs,
  .param .u32 w0,
  .param .u32 w1,
  .param .u32 w2,
  .param .u32 w3,
  .param .u32 w4,
  .param .u32 w5,
  .param .u32 w6,
  .param .u32 w7,
  .param .u32 w8,
  .param .u32 w9,
  .param .u32 w10,
  .param .u32 w11,
  .param .u32 w12,
  .param .u32 w13,
  .param .u32 w14,
  .param .u32 w15
)
{
  .shared .align 4 .b32 pattern[16];
  .reg .pred %p<4>;
  .reg .b32 %r<11>;
  .reg .b32 %w<16>;
  .reg .b64 %rd<12>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra LOADED;
  ld.param.u32 %w0, [w0];
  ld.param.u32 %w1, [w1];
  ld.param.u32 %w2, [w2];
  ld.param.u32 %w3, [w3];
  ld.param.u32 %w4, [w4];
  ld.param.u32 %w5, [w5];
  ld.param.u32 %w6, [w6];
  ld.param.u32 %w7, [w7];
  ld.param.u32 %w8, [w8];
  ld.param.u32 %w9, [w9];
  ld.param.u32 %w10, [w10];
  ld.param.u32 %w11, [w11];
  ld.param.u32 %w12, [w12];
  ld.param.u32 %w13, [w13];
  ld.param.u32 %w14, [w14];
  ld.param.u32 %w15, [w15];
  mov.u32 %r2, %w0;
  setp.eq.u32 %p1, %r1, 1;
  selp.b32 %r2, %w1, %r2, %p1;
  setp.eq.u32 %p1, %r1, 2;
  selp.b32 %r2, %w2, %r2, %p1;
  setp.eq.u32 %p1, %r1, 3;
  selp.b32 %r2, %w3, %r2, %p1;
  setp.eq.u32 %p1, %r1, 4;
  selp.b32 %r2, %w4, %r2, %p1;
  setp.eq.u32 %p1, %r1, 5;
  selp.b32 %r2, %w5, %r2, %p1;
  setp.eq.u32 %p1, %r1, 6;
  selp.b32 %r2, %w6, %r2, %p1;
  setp.eq.u32 %p1, %r1, 7;
  selp.b32 %r2, %w7, %r2, %p1;
  setp.eq.u32 %p1, %r1, 8;
  selp.b32 %r2, %w8, %r2, %p1;
  setp.eq.u32 %p1, %r1, 9;
  selp.b32 %r2, %w9, %r2, %p1;
  setp.eq.u32 %p1, %r1, 10;
  selp.b32 %r2, %w10, %r2, %p1;
  setp.eq.u32 %p1, %r1, 11;
  selp.b32 %r2, %w11, %r2, %p1;
  setp.eq.u32 %p1, %r1, 12;
  selp.b32 %r2, %w12, %r2, %p1;
  setp.eq.u32 %p1, %r1, 13;
  selp.b32 %r2, %w13, %r2, %p1;
  setp.eq.u32 %p1, %r1, 14;
  selp.b32 %r2, %w14, %r2, %p1;
  setp.eq.u32 %p1, %r1, 15;
  selp.b32 %r2, %w15, %r2, %p1;
  mov.u64 %rd1, pattern;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.shared.u32 [%rd1], %r2;
LOADED:
  bar.sync 0;
  ld.param.u64 %rd3, [dst];
  cvta.to.global.u64 %rd3, %rd3;
  ld.param.u64 %rd4, [count];
  ld.param.u32 %r3, [period];
  cvt.u64.u32 %rd5, %r3;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mul.wide.u32 %rd6, %r4, %r5;
  cvt.u64.u32 %rd7, %r1;
  add.u64 %rd6, %rd6, %rd7;
  mov.u32 %r6, %nctaid.x;
  mul.wide.u32 %rd8, %r6, %r5;
  mov.u64 %rd10, pattern;
  ld.param.u32 %r8, [pairs];
  setp.ne.u32 %p3, %r8, 0;
  @%p3 shr.u64 %rd4, %rd4, 1;
  selp.u32 %r8, 2, 1, %p3;
  cvt.u64.u32 %rd7, %r8;
  mul.lo.u64 %rd9, %rd6, %rd7;
  rem.u64 %rd9, %rd9, %rd5;
  cvt.u32.u64 %r4, %rd9;
  mul.lo.u64 %rd9, %rd8, %rd7;
  rem.u64 %rd9, %rd9, %rd5;
  cvt.u32.u64 %r6, %rd9;
LOOP:
  setp.ge.u64 %p2, %rd6, %rd4;
  @%p2 bra DONE;
  mul.wide.u32 %rd11, %r4, 4;
  add.u64 %rd11, %rd10, %rd11;
  ld.shared.u32 %r7, [%rd11];
  @%p3 bra PAIR;
  shl.b64 %rd11, %rd6, 2;
  add.u64 %rd11, %rd3, %rd11;
  st.global.u32 [%rd11], %r7;
  bra.uni NEXT;
PAIR:
  add.u32 %r9, %r4, 1;
  setp.ge.u32 %p1, %r9, %r3;
  @%p1 sub.u32 %r9, %r9, %r3;
  mul.wide.u32 %rd11, %r9, 4;
  add.u64 %rd11, %rd10, %rd11;
  ld.shared.u32 %r10, [%rd11];
  shl.b64 %rd11, %rd6, 3;
  add.u64 %rd11, %rd3, %rd11;
  st.global.v2.u32 [%rd11], {%r7, %r10};
NEXT:
  add.u64 %rd6, %rd6, %rd8;
  add.u32 %r4, %r4, %r6;
  setp.ge.u32 %p1, %r4, %r3;
  @%p1 sub.u32 %r4, %r4, %r3;
  bra.uni LOOP;
DONE:
  ret;
}
)";

/// Where a CUDA toolkit keeps libcudadevrt.a: $CUDA_PATH, $CUDA_HOME, then
/// the usual install places; empty when none has it.
std::string findDeviceRuntime() {
  std::vector<std::string> Roots;
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *V = std::getenv(Var); V && *V)
      Roots.push_back(V);
  Roots.push_back("/usr/local/cuda");
  for (const std::string &Root : Roots)
    for (const char *Sub : {"/lib64/", "/targets/x86_64-linux/lib/",
                            "/targets/sbsa-linux/lib/", "/lib/"}) {
      std::string Path = Root + Sub + "libcudadevrt.a";
      if (FILE *F = std::fopen(Path.c_str(), "rb")) {
        std::fclose(F);
        return Path;
      }
    }
  for (const char *Path : {"/usr/lib/x86_64-linux-gnu/libcudadevrt.a",
                           "/usr/lib/aarch64-linux-gnu/libcudadevrt.a"})
    if (FILE *F = std::fopen(Path, "rb")) {
      std::fclose(F);
      return Path;
    }
  return {};
}

/// The driver entry points device-side loops need beyond the table (CUDA
/// 12.3 and newer): resolved when first needed, so an older driver still
/// runs everything else.
struct GraphLoopDriver {
  explicit GraphLoopDriver(const DynamicLibrary &L)
      : GetCaptureInfo(L, "cuStreamGetCaptureInfo",
                       "cuStreamGetCaptureInfo_v3"),
        ConditionalHandleCreate(L, "cuGraphConditionalHandleCreate",
                                "cuGraphConditionalHandleCreate"),
        AddNode(L, "cuGraphAddNode", "cuGraphAddNode_v2"),
        UpdateCaptureDependencies(L, "cuStreamUpdateCaptureDependencies",
                                  "cuStreamUpdateCaptureDependencies_v2"),
        BeginCaptureToGraph(L, "cuStreamBeginCaptureToGraph",
                            "cuStreamBeginCaptureToGraph"),
        LinkCreate(L, "cuLinkCreate", "cuLinkCreate_v2"),
        LinkAddData(L, "cuLinkAddData", "cuLinkAddData_v2"),
        LinkAddFile(L, "cuLinkAddFile", "cuLinkAddFile_v2"),
        LinkComplete(L, "cuLinkComplete", "cuLinkComplete"),
        LinkDestroy(L, "cuLinkDestroy", "cuLinkDestroy") {}

  DriverFn<CUresult(CUstream, int *, unsigned long long *, CUgraph *,
                    const CUgraphNode **, const void **, size_t *)>
      GetCaptureInfo;
  DriverFn<CUresult(unsigned long long *, CUgraph, CUcontext, unsigned,
                    unsigned)>
      ConditionalHandleCreate;
  DriverFn<CUresult(CUgraphNode *, CUgraph, const CUgraphNode *, const void *,
                    size_t, GraphNodeParams *)>
      AddNode;
  DriverFn<CUresult(CUstream, CUgraphNode *, const void *, size_t, unsigned)>
      UpdateCaptureDependencies;
  DriverFn<CUresult(CUstream, CUgraph, const CUgraphNode *, const void *,
                    size_t, int)>
      BeginCaptureToGraph;
  DriverFn<CUresult(unsigned, int *, void **, CUlinkState *)> LinkCreate;
  DriverFn<CUresult(CUlinkState, int, void *, size_t, const char *, unsigned,
                    int *, void **)>
      LinkAddData;
  DriverFn<CUresult(CUlinkState, int, const char *, unsigned, int *, void **)>
      LinkAddFile;
  DriverFn<CUresult(CUlinkState, void **, size_t *)> LinkComplete;
  DriverFn<CUresult(CUlinkState)> LinkDestroy;
};

/// The driver entry points of launches that overlap the grid ahead of them
/// (programmatic dependent launch; CUDA 12 and newer): resolved with the
/// context on GPUs that have it, so an older driver launches plainly.
struct OverlapDriver {
  explicit OverlapDriver(const DynamicLibrary &L)
      : LaunchKernelEx(L, "cuLaunchKernelEx", "cuLaunchKernelEx"),
        FuncGetAttribute(L, "cuFuncGetAttribute", "cuFuncGetAttribute") {}

  DriverFn<CUresult(const LaunchConfig *, CUfunction, void **, void **)>
      LaunchKernelEx;
  DriverFn<CUresult(int *, int, CUfunction)> FuncGetAttribute;
};

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
  /// Whether P is page-locked host memory the driver knows (cuMemHostAlloc,
  /// cuMemHostRegister, cudaHostAlloc, a pinned torch tensor). Asked with
  /// cuPointerGetAttributes, which answers for any address: cuMemHostGetFlags
  /// fails for pageable memory, and compute-sanitizer counts each such
  /// failure as an API error.
  bool isPinnedHost(const void *P) const {
    int Attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    unsigned Type = 0;
    void *Data[] = {&Type};
    return PointerGetAttributes(1, &Attribute, Data,
                                reinterpret_cast<CUdeviceptr>(P)) ==
               Vendor.Success &&
           Type == CU_MEMORYTYPE_HOST;
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
    if (SmVersion >= 90) {
      try {
        Overlap.emplace(D.Library);
      } catch (const qd::Error &) {
        // A driver before CUDA 12: plain launches.
      }
    }
  }
  ~CudaContext() {
    for (CUstream S : BodyStreams)
      D.StreamDestroy(S);
    D.DevicePrimaryCtxRelease(Dev);
  }
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  CUcontext place() const { return Ctx; }

  /// Whether F's code begins with griddepcontrol.wait (an entry of a task
  /// flagged QDRT_TASK_GRID_WAIT): the driver compiled it from PTX for
  /// compute capability 9.0 or later, whose number it gives as the
  /// function's PTX version (an image of sm_80 PTX that the driver compiled
  /// for this GPU gives 80, and has no wait).
  bool waitsForGrids(CUfunction F) const {
    int Version = 0;
    return Overlap &&
           Overlap->FuncGetAttribute(&Version, CU_FUNC_ATTRIBUTE_PTX_VERSION,
                                     F) == CudaDriver::Vendor.Success &&
           Version >= 90;
  }
  /// Launches F (waitsForGrids) so that it may start before the kernel
  /// ahead of it on S has ended: its wait keeps the order.
  void launchOverlapping(CUfunction F, const unsigned Grid[3], unsigned Block,
                         CUstream S, void **Params) const {
    LaunchAttribute Attribute{};
    Attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    Attribute.value.programmaticStreamSerializationAllowed = 1;
    LaunchConfig Config{Grid[0], Grid[1], Grid[2], Block,      1,
                        1,       0,       S,       &Attribute, 1};
    D.call(Overlap->LaunchKernelEx, &Config, F, Params, nullptr);
  }

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
  int capability() const { return SmVersion; }
  /// Lets this context (current) reach Peer's memory; enabling it twice is
  /// no error.
  void enablePeer(const CudaContext &Peer) const {
    constexpr int AlreadyEnabled =
        704; // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
    auto R = D.CtxEnablePeerAccess(Peer.Ctx, 0u);
    if (int(R) != AlreadyEnabled)
      D.check(R, D.CtxEnablePeerAccess.Name);
  }

  /// Loads the best image of M for this GPU into Out: its module, or a
  /// module a part (QDRT_IMAGE_FATBIN_PARTS), all or none.
  void load(const qdrt_module_desc &M, LoadedImage<CUmodule> &Out) const {
    const qdrt_image *Image = pickImage(M);
    if (Image->kind != QDRT_IMAGE_FATBIN_PARTS) {
      Out.Modules = {load(M, *Image, Image->data)};
      return;
    }
    const auto &Parts = *static_cast<const qdrt_image_parts *>(Image->data);
    try {
      for (uint32_t P = 0; P < Parts.num_parts; ++P)
        Out.Modules.push_back(load(M, *Image, Parts.parts[P].data));
    } catch (const qd::Error &) {
      for (CUmodule Mod : Out.Modules)
        D.ModuleUnload(Mod);
      throw;
    }
    Out.index(Parts);
  }

  /// Data, an image of M (or a part of one), as a module; the error of a
  /// failed load carries the JIT's log.
  CUmodule load(const qdrt_module_desc &M, const qdrt_image &Image,
                const void *Data) const {
    char Log[8192] = {};
    int Options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Values[] = {Log, reinterpret_cast<void *>(uintptr_t(sizeof(Log)))};
    CUmodule Mod = nullptr;
    CUresult R = D.ModuleLoad(&Mod, Data, 2, Options, Values);
    if (R != CudaDriver::Vendor.Success)
      throw qd::Error(D.message(R, D.ModuleLoad.Name) + " loading module '" +
                      M.name + "' (" +
                      (Image.kind == QDRT_IMAGE_FATBIN ? "a fat binary for "
                       : Image.kind == QDRT_IMAGE_FATBIN_PARTS
                           ? "a part's fat binary for "
                           : "") +
                      Image.arch + ") on sm_" + std::to_string(SmVersion) +
                      (Log[0] ? std::string(":\n") + Log : ""));
    return Mod;
  }

  /// Queues FillPtx's kernel on S, a grid for Multiprocessors
  /// (Device::fillWords); false when its module does not load here.
  bool fillWords(void *Dst, const uint32_t *Pattern, unsigned Period,
                 size_t Count, int Multiprocessors, CUstream S) {
    prepareFill();
    if (!Fill)
      return false;
    auto Address = CUdeviceptr(reinterpret_cast<uintptr_t>(Dst));
    uint64_t Words = Count;
    uint32_t Pairs = Address % 8 == 0 && Count % 2 == 0;
    uint32_t W[16] = {};
    std::memcpy(W, Pattern, Period * sizeof(uint32_t));
    void *Params[20] = {&Address, &Words, &Period, &Pairs};
    for (unsigned I = 0; I < 16; ++I)
      Params[4 + I] = &W[I];
    unsigned Grid =
        gridBlocks(Pairs ? Count / 2 : Count, FillBlock, Multiprocessors);
    D.check(D.LaunchKernel(Fill, Grid, 1, 1, FillBlock, 1, 1, 0, S, Params,
                           nullptr),
            D.LaunchKernel.Name, "qdrt_fill_words");
    return true;
  }
  /// The fill kernel's block: its first 16 threads load the pattern.
  static constexpr unsigned FillBlock = 256;
  /// Loads the fill kernel's module, once; before a capture begins too
  /// (GpuDevice::beginCapture), as loading a module is no work a capture
  /// records.
  void prepareFill() {
    std::call_once(FillOnce, [&] {
      CUmodule Mod = nullptr;
      if (D.ModuleLoad(&Mod, static_cast<const void *>(FillPtx), 0u, nullptr,
                       nullptr) != CudaDriver::Vendor.Success)
        return;
      if (D.ModuleGetFunction(&Fill, Mod, "qdrt_fill_words") !=
          CudaDriver::Vendor.Success)
        Fill = nullptr;
    });
  }

  /// Whether qd::graph::do_while loops can be while nodes here: sm_90 or
  /// newer, a driver with conditional nodes, libcudadevrt.a to link the
  /// node that sets the condition, and QD_GRAPH_LOOPS not `host`. Decided
  /// once; why not is kept in NoGraphLoops.
  bool hasGraphLoops() {
    std::call_once(LoopsOnce, [&] {
      try {
        setUpGraphLoops();
      } catch (const qd::Error &E) {
        NoGraphLoops = E.what();
        Loops.reset();
      }
    });
    return Loops.has_value() && SetWhile;
  }

  /// During a capture on S: a while node after what S has recorded, its
  /// body recorded by the returned stream until endGraphLoop. Loops nest:
  /// S may be the body stream of a loop being recorded.
  CUstream beginGraphLoop(CUstream S, const void *Flag,
                          const void *AssertRecord) {
    const GraphLoopDriver &L = *Loops;
    int Status = 0;
    unsigned long long Id = 0;
    CUgraph G = nullptr;
    const CUgraphNode *Deps = nullptr;
    const void *Edges = nullptr;
    size_t N = 0;
    D.call(L.GetCaptureInfo, S, &Status, &Id, &G, &Deps, &Edges, &N);
    unsigned long long Handle = 0;
    // The condition starts at 1 on each launch of the graph: the body runs
    // once first. A nested loop's condition is 0 after its last run, so a
    // node before it sets it to 1 again for each run of the outer body.
    D.call(L.ConditionalHandleCreate, &Handle, G, Ctx, 1u,
           CU_GRAPH_COND_ASSIGN_DEFAULT);
    if (!Pending.empty()) {
      void *Params[] = {&Handle};
      D.check(D.LaunchKernel(SetOne, 1, 1, 1, 1, 1, 1, 0, S, Params, nullptr),
              D.LaunchKernel.Name, "qdrt_set_one");
      D.call(L.GetCaptureInfo, S, &Status, &Id, &G, &Deps, &Edges, &N);
    }
    if (Pending.size() == BodyStreams.size()) {
      CUstream Body = nullptr;
      D.call(D.StreamCreate, &Body, CudaDriver::Vendor.StreamNonBlocking);
      BodyStreams.push_back(Body);
    }
    CUstream BodyStream = BodyStreams[Pending.size()];
    GraphNodeParams P{};
    P.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    P.conditional = {Handle, CU_GRAPH_COND_TYPE_WHILE, 1, nullptr, Ctx};
    CUgraphNode Node = nullptr;
    D.call(L.AddNode, &Node, G, Deps, Edges, N, &P);
    D.call(L.UpdateCaptureDependencies, S, &Node, nullptr, size_t(1),
           CU_STREAM_SET_CAPTURE_DEPENDENCIES);
    D.call(L.BeginCaptureToGraph, BodyStream, P.conditional.phGraph_out[0],
           nullptr, nullptr, size_t(0), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    Pending.push_back({Handle, Flag, AssertRecord});
    return BodyStream;
  }

  /// Ends the body of the innermost loop being recorded: the node that
  /// sets the condition, then the capture.
  void endGraphLoop(CUstream Body) {
    PendingLoop Loop = Pending.back();
    Pending.pop_back();
    void *Params[] = {&Loop.Handle, &Loop.Flag, &Loop.AssertRecord};
    CUresult R =
        D.LaunchKernel(SetWhile, 1, 1, 1, 1, 1, 1, 0, Body, Params, nullptr);
    CUgraph G = nullptr; // the while node's body, which the node owns
    CUresult End = D.StreamEndCapture(Body, &G);
    D.check(R, D.LaunchKernel.Name, "qdrt_set_while");
    D.check(End, D.StreamEndCapture.Name);
  }

private:
  void setUpGraphLoops() {
    if (const char *Env = std::getenv("QD_GRAPH_LOOPS");
        Env && std::strcmp(Env, "host") == 0)
      throw qd::Error("QD_GRAPH_LOOPS=host asks for host loops");
    if (SmVersion < 90)
      throw qd::Error("device-side loops need sm_90 or newer");
    Loops.emplace(D.Library);
    std::string DeviceRuntime = findDeviceRuntime();
    if (DeviceRuntime.empty())
      throw qd::Error("libcudadevrt.a (of a CUDA toolkit) was not found; "
                      "set CUDA_PATH");
    const GraphLoopDriver &L = *Loops;
    CUlinkState Link = nullptr;
    D.call(L.LinkCreate, 0u, nullptr, nullptr, &Link);
    struct Destroy {
      const GraphLoopDriver &L;
      CUlinkState Link;
      ~Destroy() { L.LinkDestroy(Link); }
    } Guard{L, Link};
    D.call(L.LinkAddData, Link, CU_JIT_INPUT_PTX,
           const_cast<char *>(SetWhilePtx), sizeof(SetWhilePtx),
           "qdrt_set_while", 0u, nullptr, nullptr);
    D.call(L.LinkAddFile, Link, CU_JIT_INPUT_LIBRARY, DeviceRuntime.c_str(), 0u,
           nullptr, nullptr);
    void *Cubin = nullptr;
    size_t Size = 0;
    D.call(L.LinkComplete, Link, &Cubin, &Size);
    D.call(D.ModuleLoad, &Helper, static_cast<const void *>(Cubin), 0u, nullptr,
           nullptr);
    D.check(D.ModuleGetFunction(&SetWhile, Helper, "qdrt_set_while"),
            D.ModuleGetFunction.Name, "qdrt_set_while");
    D.check(D.ModuleGetFunction(&SetOne, Helper, "qdrt_set_one"),
            D.ModuleGetFunction.Name, "qdrt_set_one");
  }

  /// A fat binary (or one a part), from which the driver picks the SASS for
  /// this GPU or JITs the newest PTX it can; else SASS for exactly this GPU,
  /// then the PTX of the newest arch not newer than it (the driver JITs it).
  const qdrt_image *pickImage(const qdrt_module_desc &M) const {
    const qdrt_image *Best = nullptr;
    int BestSm = -1;
    std::string Have;
    for (uint32_t I = 0; I < M.num_images; ++I) {
      const qdrt_image &Img = M.images[I];
      if (Img.kind == QDRT_IMAGE_FATBIN || Img.kind == QDRT_IMAGE_FATBIN_PARTS)
        return &Img;
      if (Img.kind != QDRT_IMAGE_PTX && Img.kind != QDRT_IMAGE_CUBIN)
        continue;
      Have += (Have.empty() ? "" : ", ") + std::string(Img.arch);
      int Sm = static_cast<int>(Img.arch_number);
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

  // The fill kernel, loaded when first used.
  std::once_flag FillOnce;
  CUfunction Fill = nullptr;

  // Device-side loops.
  std::once_flag LoopsOnce;
  std::optional<GraphLoopDriver> Loops;
  /// Overlapping launches, on GPUs of compute capability 9.0 and later.
  std::optional<OverlapDriver> Overlap;
  std::string NoGraphLoops;
  CUmodule Helper = nullptr;
  CUfunction SetWhile = nullptr;
  CUfunction SetOne = nullptr;
  /// Record loop bodies, one per level of nesting.
  std::vector<CUstream> BodyStreams;
  struct PendingLoop {
    unsigned long long Handle;
    const void *Flag;
    const void *AssertRecord;
  };
  /// The loops being recorded, outermost first (recordings hold a lock).
  std::vector<PendingLoop> Pending;
};

} // namespace

std::unique_ptr<Device> qd::rt::createCudaDevice(int Ordinal) {
  return std::make_unique<GpuDevice<CudaDriver, CudaContext>>(Ordinal);
}
