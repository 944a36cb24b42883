//===- GpuDeviceTest.cpp - The shared GPU device over a fake driver -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// GpuDevice<Traits> is what the CUDA and HIP backends run;
// here it runs over a fake driver table that records its calls, so the
// shared logic is tested without a GPU: opening a device, making its context
// current once per thread, errors that name the failed call, the size check
// of globals, the grid of a launch and the parameters it passes.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuDevice.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using namespace qd::rt;
using namespace qd::rt::gpu;

namespace {

using FakeStream = struct FakeStream_st *;
using FakeEvent = struct FakeEvent_st *;
using FakeModule = struct FakeModule_st *;
using FakeFunction = struct FakeFunction_st *;
using FakeGraph = struct FakeGraph_st *;
using FakeGraphExec = struct FakeGraphExec_st *;
using FakePtr = unsigned long long;

constexpr int FakeFailure = 7; ///< a code the fake driver has a name for
constexpr int FakeUnnamed = 8; ///< one it does not
constexpr int FakeNotReady = 600;

/// What the fake driver does and saw. One test at a time uses it.
struct FakeState {
  std::vector<std::string> Calls;
  int Devices = 1;
  int Multiprocessors = 4;
  size_t GlobalBytes = 4;
  std::string FailCall; ///< the call that returns FailCode
  int FailCode = FakeFailure;
  int QueryResult = 0; ///< what EventQuery returns
  size_t Allocated = 0;
  unsigned Grid = 0, Block = 0;
  std::vector<const void *> Params;
  std::vector<void *> Pinned;
  uint64_t Iterations = 0;
  FakeModule LastModule = nullptr; ///< the module of the last lookup
} Fake;

int record(const std::string &Call) {
  Fake.Calls.push_back(Call);
  return Fake.FailCall == Call ? Fake.FailCode : 0;
}

template <typename T> T handle(uintptr_t N) { return reinterpret_cast<T>(N); }

/// The fake driver: one entry per role the shared device calls, and the
/// facts GpuVendor holds.
struct FakeDriver {
  static constexpr GpuVendor Vendor = {
      qd::Arch::cuda,
      "fake",
      "FAKE",
      "libfake.so loaded, but there is no fake GPU",
      /*MultiprocessorCount=*/16,
      /*Success=*/0,
      FakeNotReady};

  std::pair<const char *, const char *> errorStrings(int R) const {
    if (R == FakeUnnamed)
      return {nullptr, nullptr};
    return {"FAKE_ERROR", "fake failure"};
  }

  DriverFn<int(unsigned)> Init{[](unsigned) { return record("Init"); },
                               "fakeInit"};
  DriverFn<int(int *)> DeviceGetCount{[](int *N) {
                                        *N = Fake.Devices;
                                        return record("DeviceGetCount");
                                      },
                                      "fakeDeviceGetCount"};
  DriverFn<int(int *, int)> DeviceGet{[](int *D, int Ordinal) {
                                        *D = Ordinal;
                                        return record("DeviceGet");
                                      },
                                      "fakeDeviceGet"};
  DriverFn<int(char *, int, int)> DeviceGetName{
      [](char *Name, int Len, int D) {
        snprintf(Name, Len, "Fake GPU %d", D);
        return record("DeviceGetName");
      },
      "fakeDeviceGetName"};
  DriverFn<int(int *, int, int)> DeviceGetAttribute{
      [](int *Value, int Attribute, int) {
        *Value = Attribute == 16 ? Fake.Multiprocessors : -1;
        return record("DeviceGetAttribute");
      },
      "fakeDeviceGetAttribute"};
  DriverFn<int(size_t *, int)> DeviceTotalMem{[](size_t *Bytes, int) {
                                                *Bytes = size_t(80) << 30;
                                                return record("DeviceTotalMem");
                                              },
                                              "fakeDeviceTotalMem"};
  DriverFn<int(int)> SetCurrent{[](int) { return record("SetCurrent"); },
                                "fakeSetCurrent"};
  DriverFn<int()> Synchronize{[] { return record("Synchronize"); },
                              "fakeSynchronize"};
  DriverFn<int(FakeStream *, unsigned)> StreamCreate{
      [](FakeStream *S, unsigned) {
        *S = handle<FakeStream>(0x10);
        return record("StreamCreate");
      },
      "fakeStreamCreate"};
  DriverFn<int(FakeStream)> StreamDestroy{
      [](FakeStream) { return record("StreamDestroy"); }, "fakeStreamDestroy"};
  DriverFn<int(FakeStream)> StreamSynchronize{
      [](FakeStream) { return record("StreamSynchronize"); },
      "fakeStreamSynchronize"};
  DriverFn<int(FakeStream, FakeEvent, unsigned)> StreamWaitEvent{
      [](FakeStream, FakeEvent, unsigned) { return record("StreamWaitEvent"); },
      "fakeStreamWaitEvent"};
  DriverFn<int(FakeEvent *, unsigned)> EventCreate{
      [](FakeEvent *E, unsigned) {
        *E = handle<FakeEvent>(0x20);
        return record("EventCreate");
      },
      "fakeEventCreate"};
  DriverFn<int(FakeEvent)> EventDestroy{
      [](FakeEvent) { return record("EventDestroy"); }, "fakeEventDestroy"};
  DriverFn<int(FakeEvent, FakeStream)> EventRecord{
      [](FakeEvent, FakeStream) { return record("EventRecord"); },
      "fakeEventRecord"};
  DriverFn<int(FakeEvent)> EventSynchronize{
      [](FakeEvent) { return record("EventSynchronize"); },
      "fakeEventSynchronize"};
  DriverFn<int(FakeEvent)> EventQuery{[](FakeEvent) {
                                        record("EventQuery");
                                        return Fake.QueryResult;
                                      },
                                      "fakeEventQuery"};
  DriverFn<int(float *, FakeEvent, FakeEvent)> EventElapsedTime{
      [](float *Ms, FakeEvent, FakeEvent) {
        *Ms = 1.5f;
        return record("EventElapsedTime");
      },
      "fakeEventElapsedTime"};
  DriverFn<int(FakeModule)> ModuleUnload{
      [](FakeModule M) {
        return record("ModuleUnload " + std::to_string(uintptr_t(M)));
      },
      "fakeModuleUnload"};
  DriverFn<int(FakeFunction *, FakeModule, const char *)> ModuleGetFunction{
      [](FakeFunction *F, FakeModule M, const char *) {
        Fake.LastModule = M;
        *F = handle<FakeFunction>(0x30);
        return record("ModuleGetFunction");
      },
      "fakeModuleGetFunction"};
  DriverFn<int(FakePtr *, size_t *, FakeModule, const char *)> ModuleGetGlobal{
      [](FakePtr *P, size_t *Bytes, FakeModule M, const char *) {
        Fake.LastModule = M;
        *P = 0x2000;
        *Bytes = Fake.GlobalBytes;
        return record("ModuleGetGlobal");
      },
      "fakeModuleGetGlobal"};
  DriverFn<int(FakeFunction, unsigned, unsigned, unsigned, unsigned, unsigned,
               unsigned, unsigned, FakeStream, void **, void **)>
      LaunchKernel{[](FakeFunction, unsigned Grid, unsigned, unsigned,
                      unsigned Block, unsigned, unsigned, unsigned, FakeStream,
                      void **Params, void **) {
                     Fake.Grid = Grid;
                     Fake.Block = Block;
                     Fake.Params.assign(Params, Params + 2);
                     void *Count = Params[1] ? Params[1] : Params[0];
                     Fake.Iterations = *static_cast<uint64_t *>(Count);
                     return record("LaunchKernel");
                   },
                   "fakeLaunchKernel"};
  DriverFn<int(FakePtr *, size_t)> MemAlloc{[](FakePtr *P, size_t Bytes) {
                                              *P = 0x3000;
                                              Fake.Allocated = Bytes;
                                              return record("MemAlloc");
                                            },
                                            "fakeMemAlloc"};
  DriverFn<int(FakePtr)> MemFree{[](FakePtr) { return record("MemFree"); },
                                 "fakeMemFree"};
  DriverFn<int(FakePtr *, size_t, FakeStream)> MemAllocAsync{
      [](FakePtr *P, size_t Bytes, FakeStream) {
        *P = 0x4000;
        Fake.Allocated = Bytes;
        return record("MemAllocAsync");
      },
      "fakeMemAllocAsync"};
  DriverFn<int(FakePtr, FakeStream)> MemFreeAsync{
      [](FakePtr, FakeStream) { return record("MemFreeAsync"); },
      "fakeMemFreeAsync"};
  DriverFn<int(FakePtr, const void *, size_t, FakeStream)> MemcpyHtoDAsync{
      [](FakePtr, const void *, size_t, FakeStream) {
        return record("MemcpyHtoDAsync");
      },
      "fakeMemcpyHtoDAsync"};
  DriverFn<int(void *, FakePtr, size_t, FakeStream)> MemcpyDtoHAsync{
      [](void *Dst, FakePtr, size_t N, FakeStream) {
        std::memset(Dst, 0xab, N); // what the fake device holds
        return record("MemcpyDtoHAsync");
      },
      "fakeMemcpyDtoHAsync"};
  DriverFn<int(FakePtr, FakePtr, size_t, FakeStream)> MemcpyDtoDAsync{
      [](FakePtr, FakePtr, size_t, FakeStream) {
        return record("MemcpyDtoDAsync");
      },
      "fakeMemcpyDtoDAsync"};
  DriverFn<int(FakePtr, unsigned char, size_t, FakeStream)> MemsetD8Async{
      [](FakePtr, unsigned char, size_t N, FakeStream) {
        return record("MemsetD8Async " + std::to_string(N));
      },
      "fakeMemsetD8Async"};
  DriverFn<int(FakePtr, unsigned short, size_t, FakeStream)> MemsetD16Async{
      [](FakePtr, unsigned short, size_t N, FakeStream) {
        return record("MemsetD16Async " + std::to_string(N));
      },
      "fakeMemsetD16Async"};
  DriverFn<int(FakePtr, unsigned, size_t, FakeStream)> MemsetD32Async{
      [](FakePtr, unsigned, size_t N, FakeStream) {
        return record("MemsetD32Async " + std::to_string(N));
      },
      "fakeMemsetD32Async"};
  DriverFn<int(void **, size_t, unsigned)> MemHostAlloc{
      [](void **P, size_t N, unsigned) {
        *P = std::malloc(N);
        Fake.Pinned.push_back(*P);
        return record("MemHostAlloc " + std::to_string(N));
      },
      "fakeMemHostAlloc"};
  DriverFn<int(void *)> MemFreeHost{[](void *P) {
                                      std::free(P);
                                      return record("MemFreeHost");
                                    },
                                    "fakeMemFreeHost"};
  DriverFn<int(void *, size_t, unsigned)> MemHostRegister{
      [](void *P, size_t N, unsigned Flags) {
        Fake.Pinned.push_back(P);
        return record("MemHostRegister " + std::to_string(N) + " flags " +
                      std::to_string(Flags));
      },
      "fakeMemHostRegister"};
  DriverFn<int(void *)> MemHostUnregister{
      [](void *P) {
        Fake.Pinned.erase(
            std::remove(Fake.Pinned.begin(), Fake.Pinned.end(), P),
            Fake.Pinned.end());
        return record("MemHostUnregister");
      },
      "fakeMemHostUnregister"};
  /// Whether P is pinned, as the vendor's table answers it; the fake
  /// driver never fails the question (as cuPointerGetAttributes does not).
  bool isPinnedHost(const void *P) const {
    return std::count(Fake.Pinned.begin(), Fake.Pinned.end(), P) != 0;
  }
  DriverFn<int(FakeStream, int)> StreamBeginCapture{
      [](FakeStream, int) { return record("StreamBeginCapture"); },
      "fakeStreamBeginCapture"};
  DriverFn<int(FakeStream, FakeGraph *)> StreamEndCapture{
      [](FakeStream, FakeGraph *G) {
        *G = handle<FakeGraph>(0x70);
        return record("StreamEndCapture");
      },
      "fakeStreamEndCapture"};
  DriverFn<int(FakeGraphExec *, FakeGraph, unsigned long long)>
      GraphInstantiate{[](FakeGraphExec *E, FakeGraph, unsigned long long) {
                         *E = handle<FakeGraphExec>(0x71);
                         return record("GraphInstantiate");
                       },
                       "fakeGraphInstantiate"};
  DriverFn<int(FakeGraph)> GraphDestroy{
      [](FakeGraph) { return record("GraphDestroy"); }, "fakeGraphDestroy"};
  DriverFn<int(FakeGraphExec, FakeStream)> GraphLaunch{
      [](FakeGraphExec, FakeStream) { return record("GraphLaunch"); },
      "fakeGraphLaunch"};
  DriverFn<int(FakeGraphExec)> GraphExecDestroy{
      [](FakeGraphExec) { return record("GraphExecDestroy"); },
      "fakeGraphExecDestroy"};
  /// Runs the function at once: the fake stream has nothing before it.
  DriverFn<int(FakeStream, void (*)(void *), void *)> LaunchHostFunc{
      [](FakeStream, void (*Fn)(void *), void *Data) {
        Fn(Data);
        return record("LaunchHostFunc");
      },
      "fakeLaunchHostFunc"};
};

class FakeContext {
public:
  FakeContext(const GpuDriver<FakeDriver> &, const GpuInfo<FakeDriver> &Gpu)
      : Gpu(Gpu) {
    record("Context");
  }
  ~FakeContext() { record("~Context"); }

  int place() const { return Gpu.Id; }
  std::string checkUsable(const void *P, size_t) const {
    return P ? "" : "a null pointer";
  }
  int capability() const { return 0; }
  void enablePeer(const FakeContext &) const { record("EnablePeer"); }
  std::string describe() const {
    return Gpu.Name + ", " + std::to_string(Gpu.Multiprocessors) +
           " processors";
  }
  /// Module 64, or with an image in parts, 64, 65, ... a part.
  void load(const qdrt_module_desc &M, LoadedImage<FakeModule> &Out) const {
    for (uint32_t I = 0; I < M.num_images; ++I)
      if (M.images[I].kind == QDRT_IMAGE_FATBIN_PARTS) {
        const auto &Parts =
            *static_cast<const qdrt_image_parts *>(M.images[I].data);
        for (uint32_t P = 0; P < Parts.num_parts; ++P) {
          record("ModuleLoad");
          Out.Modules.push_back(handle<FakeModule>(0x40 + P));
        }
        Out.index(Parts);
        return;
      }
    record("ModuleLoad");
    Out.Modules = {handle<FakeModule>(0x40)};
  }
  bool fillWords(void *, const uint32_t *, unsigned Period, size_t Count,
                 int Multiprocessors, FakeStream) const {
    record("FillWords " + std::to_string(Count) + "x" + std::to_string(Period) +
           " on " + std::to_string(Multiprocessors));
    return true;
  }
  void prepareFill() const { record("PrepareFill"); }

private:
  GpuInfo<FakeDriver> Gpu;
};

using FakeDevice = GpuDevice<FakeDriver, FakeContext>;

/// A context that launches overlapping the grid ahead (as CUDA's on compute
/// capability 9.0): function 0x90's code waits for grids, others' not.
class OverlapContext : public FakeContext {
public:
  using FakeContext::FakeContext;
  bool waitsForGrids(FakeFunction F) const {
    return F == handle<FakeFunction>(0x90);
  }
  void launchOverlapping(FakeFunction, const unsigned Grid[3], unsigned Block,
                         FakeStream, void **Params) const {
    Fake.Grid = Grid[0];
    Fake.Block = Block;
    Fake.Params.assign(Params, Params + 2);
    record("LaunchOverlapping");
  }
};

class GpuDeviceTest : public ::testing::Test {
protected:
  void SetUp() override { Fake = FakeState(); }

  /// The calls since the last look.
  std::vector<std::string> calls() {
    std::vector<std::string> Out;
    Out.swap(Fake.Calls);
    return Out;
  }
  static std::string errorOf(const std::function<void()> &Fn) {
    try {
      Fn();
    } catch (const qd::Error &E) {
      return E.what();
    }
    return "no error";
  }
};

TEST_F(GpuDeviceTest, OpensTheDevice) {
  Fake.Devices = 2;
  FakeDevice D(1);
  EXPECT_EQ(calls(), (std::vector<std::string>{
                         "Init", "DeviceGetCount", "DeviceGet", "DeviceGetName",
                         "DeviceGetAttribute", "DeviceTotalMem", "Context"}));
  EXPECT_EQ(D.describe(), "Fake GPU 1, 4 processors");
  Device::Properties P = D.properties();
  EXPECT_EQ(P.Name, "Fake GPU 1");
  EXPECT_EQ(P.Count, 2);
  EXPECT_EQ(P.Memory, size_t(80) << 30);
  EXPECT_EQ(D.arch(), qd::Arch::cuda);
}

TEST_F(GpuDeviceTest, MissingDevicesAreErrorsSayingSo) {
  Fake.Devices = 0;
  EXPECT_EQ(errorOf([] { FakeDevice D(0); }),
            "fake: libfake.so loaded, but there is no fake GPU");
  Fake.Devices = 1;
  EXPECT_EQ(errorOf([] { FakeDevice D(2); }),
            "fake: no device 2; this machine has 1");
}

TEST_F(GpuDeviceTest, ContextIsMadeCurrentOncePerThread) {
  FakeDevice D(0);
  D.createStream();
  D.createEvent(/*Timing=*/true);
  std::thread([&] { D.createStream(); }).join();
  std::vector<std::string> C = calls();
  EXPECT_EQ(std::count(C.begin(), C.end(), "SetCurrent"), 2);
}

TEST_F(GpuDeviceTest, FailedCallsNameTheOperation) {
  FakeDevice D(0);
  Fake.FailCall = "StreamCreate";
  EXPECT_EQ(errorOf([&] { D.createStream(); }),
            "fakeStreamCreate: FAKE_ERROR (fake failure)");
  Fake.FailCall = "ModuleGetFunction";
  qdrt_task_desc Task{};
  Task.name = "k_t0";
  qdrt_module_desc Desc{};
  Handle M = D.loadModule(Desc);
  EXPECT_EQ(errorOf([&] { D.getFunction(M, Task); }),
            "fakeModuleGetFunction('k_t0'): FAKE_ERROR (fake failure)");
  Fake.FailCall = "ModuleUnload 64";
  EXPECT_EQ(errorOf([&] { D.unloadModule(M); }),
            "fakeModuleUnload: FAKE_ERROR (fake failure)");
  Fake.FailCall = "MemFree";
  Fake.FailCode = FakeUnnamed;
  EXPECT_EQ(errorOf([&] { D.deallocate(nullptr); }),
            "fakeMemFree: FAKE error 8 (no description)");
}

TEST_F(GpuDeviceTest, QueryEventTellsNotReadyFromFailure) {
  FakeDevice D(0);
  Handle E = D.createEvent(/*Timing=*/false);
  EXPECT_TRUE(D.queryEvent(E));
  Fake.QueryResult = FakeNotReady;
  EXPECT_FALSE(D.queryEvent(E));
  Fake.QueryResult = FakeFailure;
  EXPECT_EQ(errorOf([&] { D.queryEvent(E); }),
            "fakeEventQuery: FAKE_ERROR (fake failure)");
}

TEST_F(GpuDeviceTest, GlobalsMustHaveTheirModulesSize) {
  FakeDevice D(0);
  qdrt_field_desc Field{};
  Field.name = "counter";
  Field.bytes = 4;
  qdrt_module_desc Desc{};
  Handle M = D.loadModule(Desc);
  EXPECT_EQ(D.getGlobal(M, Field), reinterpret_cast<void *>(0x2000));
  Fake.GlobalBytes = 8;
  EXPECT_EQ(errorOf([&] { D.getGlobal(M, Field); }),
            "field 'counter' has 8 bytes on the device, 4 in its module");
  D.unloadModule(M);
}

TEST_F(GpuDeviceTest, ModuleInPartsFindsEachNameInItsPart) {
  FakeDevice D(0);
  // Two parts: one defines a_t0 and field f, the other b_t0 and its latency
  // version.
  static const char First[] = "a_t0\0f\0rec\0",
                    Second[] = "b_t0\0b_t0_lat\0rec\0";
  const qdrt_image_part Parts[] = {{"fatbin 0", 8, First},
                                   {"fatbin 1", 8, Second}};
  const qdrt_image_parts All = {2, Parts};
  const qdrt_image Image = {QDRT_IMAGE_FATBIN_PARTS, 0, "sm_80,sm_90", &All,
                            sizeof(All)};
  qdrt_module_desc Desc{};
  Desc.images = &Image;
  Desc.num_images = 1;
  calls();
  Handle M = D.loadModule(Desc);
  EXPECT_EQ(calls(), (std::vector<std::string>{"SetCurrent", "ModuleLoad",
                                               "ModuleLoad"}));
  qdrt_task_desc A{}, B{};
  A.name = "a_t0";
  B.name = "b_t0";
  B.latency_name = "b_t0_lat";
  D.getFunction(M, B);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x41));
  D.getFunction(M, A);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x40));
  D.getLatencyFunction(M, B);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x41));
  qdrt_field_desc F{};
  F.name = "f";
  F.bytes = 4;
  D.getGlobal(M, F);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x40));
  // A field that one part defines is one copy; the assert record, which
  // each part defines for itself, is one a part, in their order.
  EXPECT_EQ(D.getGlobals(M, F).size(), 1u);
  qdrt_field_desc Rec{};
  Rec.name = "rec";
  Rec.bytes = 4;
  calls();
  EXPECT_EQ(D.getGlobals(M, Rec).size(), 2u);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x41));
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"ModuleGetGlobal", "ModuleGetGlobal"}));
  // A name no part defines is looked up in the first, where the driver
  // reports it missing.
  qdrt_task_desc Missing{};
  Missing.name = "c_t0";
  D.getFunction(M, Missing);
  EXPECT_EQ(Fake.LastModule, handle<FakeModule>(0x40));
  calls();
  D.unloadModule(M);
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"ModuleUnload 64", "ModuleUnload 65"}));
}

TEST_F(GpuDeviceTest, GridFillsTheDeviceAndGridStrideLoopsDoTheRest) {
  // Enough blocks for the iterations, rounded up...
  EXPECT_EQ(gridBlocks(1000, 128, 4), 8u);
  EXPECT_EQ(gridBlocks(1024, 128, 4), 8u);
  EXPECT_EQ(gridBlocks(1025, 128, 4), 9u);
  // ...at most 32 per multiprocessor...
  EXPECT_EQ(gridBlocks(1000000000, 128, 4), 128u);
  EXPECT_EQ(gridBlocks(UINT64_MAX, 128, 4), 128u);
  // ...never more than 65535 in all, and never none.
  EXPECT_EQ(gridBlocks(1000000000, 128, 1000000), 65535u);
  EXPECT_EQ(gridBlocks(0, 128, 4), 1u);
  EXPECT_EQ(gridBlocks(1000, 128, 0), 8u);
  // A tiled task's ceiling is its own.
  EXPECT_EQ(gridBlocks(1000000000, 128, 4, TiledBlocksPerMultiprocessor),
            256u);
  EXPECT_EQ(gridBlocks(1000, 128, 4, TiledBlocksPerMultiprocessor), 8u);
}

TEST_F(GpuDeviceTest, LaunchPassesTheArgumentsThenTheCount) {
  FakeDevice D(0);
  qdrt_task_desc Task{};
  int Args = 0;
  D.launch(nullptr, Task, 100000, &Args, sizeof(Args), nullptr);
  EXPECT_EQ(Fake.Block, DefaultBlock);
  EXPECT_EQ(Fake.Grid, 128u);
  EXPECT_EQ(Fake.Params[0], &Args);
  EXPECT_EQ(Fake.Iterations, 100000u);

  Task.block_dim = 256;
  D.launch(nullptr, Task, 1000, nullptr, 0, nullptr);
  EXPECT_EQ(Fake.Block, 256u);
  EXPECT_EQ(Fake.Grid, 4u);
  EXPECT_EQ(Fake.Params[1], nullptr) << "no argument struct to pass";
  EXPECT_EQ(Fake.Iterations, 1000u);

  // A tiled task gets twice the grid of a grid-stride loop on a full device.
  Task.block_dim = 128;
  D.launch(nullptr, Task, 100000000, nullptr, 0, nullptr);
  EXPECT_EQ(Fake.Grid, 128u);
  Task.flags = QDRT_TASK_TILED;
  D.launch(nullptr, Task, 100000000, nullptr, 0, nullptr);
  EXPECT_EQ(Fake.Grid, 256u);
}

TEST_F(GpuDeviceTest, OnlyAContextThatOverlapsLaunchesOverlapping) {
  // A context without overlapping launches (HIP's): plain launches, and no
  // code that waits for grids.
  {
    FakeDevice D(0);
    calls();
    EXPECT_FALSE(D.waitsForGrids(handle<FakeFunction>(0x90)));
    qdrt_task_desc Task{};
    D.launch(nullptr, Task, 1000, nullptr, 0, nullptr, nullptr, true);
    EXPECT_EQ(calls(),
              (std::vector<std::string>{"SetCurrent", "LaunchKernel"}));
  }
  GpuDevice<FakeDriver, OverlapContext> D(0);
  calls();
  EXPECT_TRUE(D.waitsForGrids(handle<FakeFunction>(0x90)));
  EXPECT_FALSE(D.waitsForGrids(handle<FakeFunction>(0x80)));
  qdrt_task_desc Task{};
  Task.block_dim = 256;
  int Args = 0;
  D.launch(nullptr, Task, 1000, &Args, sizeof(Args), nullptr, nullptr, true);
  EXPECT_EQ(Fake.Grid, 4u);
  EXPECT_EQ(Fake.Block, 256u);
  EXPECT_EQ(Fake.Params[0], &Args);
  uint32_t Narrow[3] = {7, 1, 1};
  D.launch(nullptr, Task, 1000, &Args, sizeof(Args), nullptr, Narrow, true);
  EXPECT_EQ(Fake.Grid, 7u);
  D.launch(nullptr, Task, 1000, &Args, sizeof(Args), nullptr);
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"SetCurrent", "LaunchOverlapping",
                                      "LaunchOverlapping", "LaunchKernel"}));
}

TEST_F(GpuDeviceTest, FillKernelsAreSizedForTheDeviceAndLoadBeforeACapture) {
  FakeDevice D(0);
  uint32_t Pattern[2] = {1, 2};
  calls();
  EXPECT_TRUE(D.fillWords(nullptr, Pattern, 2, 1000, nullptr));
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"SetCurrent", "FillWords 1000x2 on 4"}));
  // Its module is loaded before a capture begins, not inside it.
  Handle S = D.createStream();
  calls();
  D.beginCapture(S);
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"PrepareFill", "StreamBeginCapture"}));
}

TEST_F(GpuDeviceTest, MemoryAddressesRoundTrip) {
  FakeDevice D(0);
  void *P = D.allocate(0);
  EXPECT_EQ(P, reinterpret_cast<void *>(0x3000));
  EXPECT_EQ(Fake.Allocated, 1u) << "a zero-byte buffer still gets an address";
  calls();
  char Host[4] = {};
  D.copyToDevice(P, Host, sizeof(Host), nullptr);
  D.copyToHost(Host, P, sizeof(Host), nullptr);
  D.deallocate(P);
  EXPECT_EQ(calls(), (std::vector<std::string>{"MemcpyHtoDAsync",
                                               "MemcpyDtoHAsync", "MemFree"}));
}

TEST_F(GpuDeviceTest, AsyncCopiesOfPageableMemoryGoThroughPinnedBlocks) {
  {
    FakeDevice D(0);
    void *P = D.allocate(64);
    calls();
    std::vector<char> Host(3 << 20, 1), Back(64, 0);
    D.copyToDeviceAsync(P, Host.data(), Host.size(), nullptr);
    D.copyToDeviceAsync(P, Host.data(), 100, nullptr); // reuses the block
    D.copyToHostAsync(Back.data(), P, Back.size(), nullptr);
    EXPECT_EQ(calls(),
              (std::vector<std::string>{"MemHostAlloc 4194304",
                                        "MemcpyHtoDAsync", "LaunchHostFunc",
                                        "MemcpyHtoDAsync", "LaunchHostFunc",
                                        "MemcpyDtoHAsync", "LaunchHostFunc"}));
    EXPECT_EQ(Back, std::vector<char>(64, char(0xab)))
        << "the host function delivers the block to the user's buffer";
    // Pinned memory is copied directly.
    char Pinned[16] = {};
    Fake.Pinned.push_back(Pinned); // as if the program had pinned it
    D.copyToDeviceAsync(P, Pinned, sizeof(Pinned), nullptr);
    EXPECT_EQ(calls(), (std::vector<std::string>{"MemcpyHtoDAsync"}));
    D.deallocate(P);
    calls();
  }
  std::vector<std::string> Closing = calls();
  EXPECT_EQ(std::count(Closing.begin(), Closing.end(), "MemFreeHost"), 1)
      << "the staging block is freed with the device";
}

// A HostArray's memory is registered for every context (portable), copied
// directly while registered, and unregistered only after the device's
// queued work (which may still copy from or to it) is done.
TEST_F(GpuDeviceTest, RegisteredHostMemoryIsCopiedDirectlyUntilUnregistered) {
  FakeDevice D(0);
  void *P = D.allocate(64);
  std::vector<char> Host(64, 1);
  calls();
  D.registerHost(Host.data(), Host.size());
  D.copyToDeviceAsync(P, Host.data(), Host.size(), nullptr);
  D.unregisterHost(Host.data());
  EXPECT_EQ(calls(), (std::vector<std::string>{"MemHostRegister 64 flags 1",
                                               "MemcpyHtoDAsync", "Synchronize",
                                               "MemHostUnregister"}));
  D.copyToDeviceAsync(P, Host.data(), Host.size(), nullptr);
  std::vector<std::string> Staged = calls();
  EXPECT_NE(std::find(Staged.begin(), Staged.end(), "LaunchHostFunc"),
            Staged.end())
      << "once unregistered, the memory is pageable again: staged";
  D.deallocate(P);
}

TEST_F(GpuDeviceTest, ClosingWaitsForTheDeviceThenReleasesTheContext) {
  {
    FakeDevice D(0);
    D.createStream();
    calls();
  }
  EXPECT_EQ(calls(), (std::vector<std::string>{"Synchronize", "~Context"}));
}

} // namespace
