//===- MockDevice.cpp - A recording device for runtime tests
//----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "MockDevice.h"

#include <cstring>

using namespace qd::rt;
using namespace qd::rt::test;

thread_local std::string qd::rt::test::ThreadTag;

void MockDevice::call(const std::string &What) {
  std::lock_guard<std::mutex> Lock(State->Mutex);
  ++State->CallCount;
  if (State->FailAt && (State->CallCount == State->FailAt ||
                        (State->FailOn && State->CallCount > State->FailAt))) {
    State->FailedCall = What;
    throw qd::Error("mock: injected failure in " + What);
  }
  std::string Call =
      Ordinal ? "d" + std::to_string(Ordinal) + ": " + What : What;
  State->Calls.push_back(ThreadTag.empty() ? Call : ThreadTag + " " + Call);
}

Handle MockDevice::make(char Kind) {
  std::lock_guard<std::mutex> Lock(State->Mutex);
  Objects.push_back(std::make_unique<char[]>(1));
  Handle H = Objects.back().get();
  Names[H] = Kind + std::to_string(++NextId[int(Kind)]);
  return H;
}

std::string MockDevice::name(Handle H) {
  if (!H)
    return "s0";
  std::lock_guard<std::mutex> Lock(State->Mutex);
  auto It = Names.find(H);
  return It == Names.end() ? "?" : It->second;
}

Handle MockDevice::createStream() {
  Handle S = make('s');
  call("createStream -> " + name(S));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  ++State->LiveStreams;
  return S;
}

void MockDevice::destroyStream(Handle S) {
  call("destroyStream " + name(S));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  --State->LiveStreams;
}

void MockDevice::synchronizeStream(Handle S) { call("synchronize " + name(S)); }

Handle MockDevice::createEvent(bool Timing) {
  Handle E = make('e');
  call(std::string(Timing ? "createEvent timing" : "createEvent") + " -> " +
       name(E));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  ++State->LiveEvents;
  return E;
}

void MockDevice::destroyEvent(Handle E) {
  call("destroyEvent " + name(E));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  --State->LiveEvents;
}

void MockDevice::recordEvent(Handle E, Handle S) {
  call("record " + name(E) + " " + name(S));
}

void MockDevice::streamWaitEvent(Handle S, Handle E) {
  call("wait " + name(S) + " " + name(E));
}

void MockDevice::synchronizeEvent(Handle E) {
  call("synchronizeEvent " + name(E));
}

bool MockDevice::queryEvent(Handle E) {
  call("query " + name(E));
  return true;
}

float MockDevice::elapsedMs(Handle A, Handle B) {
  call("elapsed " + name(A) + " " + name(B));
  return 1.5f;
}

Handle MockDevice::loadModule(const qdrt_module_desc &M) {
  call(std::string("loadModule ") + M.name);
  Handle H = make('m');
  std::lock_guard<std::mutex> Lock(State->Mutex);
  ++State->LiveModules;
  return H;
}

void MockDevice::unloadModule(Handle M) {
  call("unloadModule " + name(M));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  --State->LiveModules;
}

Handle MockDevice::getFunction(Handle, const qdrt_task_desc &T) {
  call(std::string("getFunction ") + T.name);
  return const_cast<qdrt_task_desc *>(&T);
}

Handle MockDevice::getLatencyFunction(Handle, const qdrt_task_desc &T) {
  call(std::string("getFunction ") + T.latency_name);
  // Not the task's own handle: launch names what it was given.
  return const_cast<char *>(T.latency_name);
}

Handle MockDevice::getNarrowFunction(Handle, const qdrt_task_desc &T) {
  call(std::string("getFunction ") + T.narrow_name);
  return const_cast<char *>(T.narrow_name);
}

void *MockDevice::getGlobal(Handle, const qdrt_field_desc &F) {
  call(std::string("getGlobal ") + F.name);
  return F.host_data;
}

std::vector<void *> MockDevice::getGlobals(Handle M, const qdrt_field_desc &F) {
  std::vector<void *> All = {getGlobal(M, F)};
  std::lock_guard<std::mutex> Lock(State->Mutex);
  auto Copies = State->PartCopies.find(F.name);
  if (Copies != State->PartCopies.end())
    All.insert(All.end(), Copies->second.begin(), Copies->second.end());
  return All;
}

void MockDevice::launch(Handle Fn, const qdrt_task_desc &T, uint64_t Iterations,
                        const void *Args, size_t, Handle S,
                        const uint32_t *Grid, bool Overlap) {
  const char *Entry = Fn && Fn == T.latency_name  ? T.latency_name
                      : Fn && Fn == T.narrow_name ? T.narrow_name
                                                  : T.name;
  call(std::string("launch ") + Entry + " n=" + std::to_string(Iterations) +
       " " + name(S) +
       (Grid ? " grid=" + std::to_string(Grid[0]) + "x" +
                   std::to_string(Grid[1]) + "x" + std::to_string(Grid[2])
             : std::string()) +
       (Overlap ? " overlap" : ""));
  bool Run;
  {
    std::lock_guard<std::mutex> Lock(State->Mutex);
    Run = State->RunCpuTasks && !Capturing;
    if (Capturing)
      Captured.push_back(&T);
  }
  auto *Task = static_cast<const qdrt_task_desc *>(Fn);
  if (Run && Task->cpu_fn)
    Task->cpu_fn(Args, 0, Iterations);
}

void MockDevice::registerHost(void *P, size_t Bytes) {
  call("registerHost " + std::to_string(Bytes) +
       (reinterpret_cast<uintptr_t>(P) % 4096 ? " unaligned" : ""));
}

void MockDevice::unregisterHost(void *) { call("unregisterHost"); }

void *MockDevice::allocate(size_t Bytes) {
  call("allocate " + std::to_string(Bytes));
  auto Buffer = std::make_unique<char[]>(Bytes ? Bytes : 1);
  void *P = Buffer.get();
  std::lock_guard<std::mutex> Lock(State->Mutex);
  Buffers[P] = std::move(Buffer);
  ++State->LiveBuffers;
  return P;
}

void MockDevice::deallocate(void *P) {
  call("deallocate");
  std::lock_guard<std::mutex> Lock(State->Mutex);
  Buffers.erase(P);
  --State->LiveBuffers;
}

void MockDevice::copyToDevice(void *Dst, const void *Src, size_t Bytes,
                              Handle S) {
  call("copyToDevice " + std::to_string(Bytes) + " " + name(S));
  std::memcpy(Dst, Src, Bytes);
}

void MockDevice::copyToHost(void *Dst, const void *Src, size_t Bytes,
                            Handle S) {
  call("copyToHost " + std::to_string(Bytes) + " " + name(S));
  std::memcpy(Dst, Src, Bytes);
}

void MockDevice::beginCapture(Handle S) {
  call("beginCapture " + name(S));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  Capturing = true;
  Captured.clear();
}

Handle MockDevice::endCaptureForUpdate(Handle S, Handle &Recorded,
                                       std::vector<KernelNode> &Nodes) {
  call("endCaptureForUpdate " + name(S));
  std::lock_guard<std::mutex> Lock(State->Mutex);
  Capturing = false;
  for (const qdrt_task_desc *T : Captured)
    Nodes.push_back({const_cast<qdrt_task_desc *>(T), nullptr, 1, 1});
  Recorded = reinterpret_cast<Handle>(uintptr_t(0x6001));
  return reinterpret_cast<Handle>(uintptr_t(0x6000));
}

void MockDevice::setKernelArgs(Handle, const KernelNode &N, const void *,
                               uint64_t Iterations) {
  call(std::string("setKernelArgs ") +
       static_cast<const qdrt_task_desc *>(N.Function)->name +
       " n=" + std::to_string(Iterations));
}

Handle MockDevice::endCapture(Handle S) {
  call("endCapture " + name(S));
  {
    std::lock_guard<std::mutex> Lock(State->Mutex);
    Capturing = false;
  }
  return reinterpret_cast<Handle>(uintptr_t(0x6000));
}

void MockDevice::launchGraph(Handle, Handle S) {
  call("launchGraph " + name(S));
}

void MockDevice::destroyGraph(Handle) { call("destroyGraph"); }

void MockDevice::copyOnDevice(void *Dst, const void *Src, size_t Bytes,
                              Handle S) {
  call("copyOnDevice " + std::to_string(Bytes) + " " + name(S));
  std::memcpy(Dst, Src, Bytes);
}

bool MockDevice::fillWords(void *Dst, const uint32_t *Pattern, unsigned Period,
                           size_t Count, Handle S) {
  call("fillWords " + std::to_string(Count) + "x" + std::to_string(Period) +
       " " + name(S));
  auto *Words = static_cast<uint32_t *>(Dst);
  for (size_t I = 0; I < Count; ++I)
    Words[I] = Pattern[I % Period];
  return true;
}

void MockDevice::memset(void *Dst, uint32_t Word, unsigned WordBytes,
                        size_t Count, Handle S) {
  call("memset" + std::to_string(8 * WordBytes) + " " + std::to_string(Count) +
       " " + name(S));
  memsetHost(Dst, Word, WordBytes, Count);
}
