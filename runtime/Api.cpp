//===- Api.cpp - The public C++ API of libqdrt
//-------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::Stream, qd::Event, memory and the init/reset/sync calls, over the
// Runtime's devices. Objects remember the runtime generation and the device
// that made them: after qd::reset() their handles belong to a device that
// is gone, so they are forgotten, never passed to the driver.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace qd;
using namespace qd::rt;

const char *qd::arch_name(Arch A) {
  switch (A) {
  case Arch::best:
    return "best";
  case Arch::cuda:
    return "cuda";
  case Arch::amdgpu:
    return "amdgpu";
  case Arch::cpu:
    return "cpu";
  }
  return "unknown";
}

void qd::init(Arch A, InitOptions Options) {
  bool Running = currentIfRunning() != nullptr;
  start(A, Options);
  if (!Running)
    set_random_seed(Options.random_seed);
}

// qd::random's keys: the seed and a count of the kernel calls that took a
// key since it was set, mixed (SplitMix64's finalizer) so that neighbouring
// calls get unrelated keys.
static std::atomic<uint64_t> RandomSeed{0}, RandomCalls{0};

void qd::set_random_seed(uint64_t Seed) {
  RandomSeed = Seed;
  RandomCalls = 0;
}

void *qd::detail::allocate_host(size_t Bytes, uint64_t &Generation,
                                int &Ordinal) {
  CallGuard Guard;
  DeviceContext &R = currentDevice();
  Generation = R.generation();
  Ordinal = R.ordinal();
  if (!Bytes)
    return nullptr;
  // Whole pages: a registration pins pages, and two arrays never share one.
  constexpr size_t Page = 4096;
  if (Bytes > size_t(PTRDIFF_MAX) - Page)
    throw Error("qd::HostArray: " + std::to_string(Bytes) +
                " bytes is more than memory can hold");
  size_t Size = (Bytes + Page - 1) / Page * Page;
  void *P = std::aligned_alloc(Page, Size);
  if (!P)
    throw Error("qd::HostArray: cannot allocate " + std::to_string(Bytes) +
                " bytes of host memory");
  std::memset(P, 0, Size);
  try {
    R.device().registerHost(P, Size);
  } catch (const Error &E) {
    std::free(P);
    throw Error(std::string("qd::HostArray: ") + E.what());
  }
  return P;
}

void qd::detail::deallocate_host(void *P, uint64_t Generation,
                                 int Ordinal) noexcept {
  if (!P)
    return;
  {
    CallGuard Guard(CallGuard::Pins::keep);
    Runtime *R = currentIfRunning();
    if (R && R->generation() == Generation) {
      try {
        R->unregisterHost(P, Ordinal);
      } catch (const qd::Error &) {
        // The memory is freed either way; a registration that could not
        // be dropped goes with the context.
      }
    }
  }
  std::free(P);
}

// Declared in <qd/detail/launcher.h>, which only Clang compiles.
namespace qd::detail {
uint64_t next_random_key() {
  uint64_t Z = RandomSeed.load() + 0x9E3779B97F4A7C15ull * (RandomCalls++ + 1);
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}
} // namespace qd::detail
Arch qd::current_arch() {
  CallGuard Guard(CallGuard::Pins::keep);
  return currentDevice().device().arch();
}
int qd::current_device() {
  CallGuard Guard(CallGuard::Pins::keep);
  return currentDevice().ordinal();
}
qd::detail::CurrentContext qd::detail::current_context() {
  CallGuard Guard(CallGuard::Pins::keep);
  Runtime &R = current();
  DeviceContext &DC = R.currentDevice();
  return {DC.device().arch(), DC.ordinal(), R.generation()};
}
/// The device a public call names by ordinal (where -1 is no shorthand for
/// the current one, as it is in the C ABI).
static DeviceContext &namedDevice(int Ordinal, const char *What) {
  if (Ordinal < 0)
    throw Error(std::string(What) + ": no device " + std::to_string(Ordinal) +
                ": ordinals are 0 to " +
                std::to_string(current().deviceCount() - 1));
  return current().getDevice(Ordinal, What);
}

void qd::enable_peer_access(const Device &A, const Device &B) {
  CallGuard Guard(CallGuard::Pins::keep);
  namedDevice(A.ordinal, "qd::enable_peer_access");
  namedDevice(B.ordinal, "qd::enable_peer_access");
  current().enablePeerAccess(A.ordinal, B.ordinal, "qd::enable_peer_access");
}

int qd::device_count() {
  CallGuard Guard(CallGuard::Pins::keep);
  return current().deviceCount();
}
qd::Device qd::device(int Ordinal) {
  CallGuard Guard(CallGuard::Pins::keep);
  DeviceContext &R = namedDevice(Ordinal, "qd::device");
  rt::Device::Properties P = R.device().properties();
  return qd::Device{R.ordinal(), P.Name, P.Capability, P.Memory};
}
void qd::set_device(int Ordinal) {
  CallGuard Guard(CallGuard::Pins::keep);
  current().setCurrent(namedDevice(Ordinal, "qd::set_device").ordinal(),
                       "qd::set_device");
}
bool qd::graph_loops_on_device() {
  CallGuard Guard;
  rt::Device &D = currentDevice().device();
  return D.canUpdateGraphs() && D.hasGraphLoops();
}
void qd::reset() { shutdown(); }
void qd::sync() {
  CaptureScope::checkNoWait("qd::sync");
  CallGuard Guard;
  DeviceContext &R = currentDevice();
  uint64_t Mark = R.launchMark();
  R.device().synchronizeStream(nullptr);
  R.checkAsserts("qd::sync", nullptr, Mark);
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

Stream qd::create_stream() {
  CallGuard Guard;
  return create_stream(Device{currentDevice().ordinal(), {}, 0});
}

Stream qd::create_stream(const Device &On) {
  CallGuard Guard;
  DeviceContext &R = namedDevice(On.ordinal, "qd::create_stream");
  rt::Device &D = R.device();
  void *H = D.createStream();
  Stream S(D.getNativeStream(H), H, /*owned=*/true, R.ordinal(),
           R.generation());
  S.live_ = true;
  return S;
}

Stream Stream::wrap(void *Native, int Ordinal) {
  CallGuard Guard;
  DeviceContext &R = current().getDevice(Ordinal, "qd::Stream::wrap");
  Stream S(Native, Native, /*owned=*/false, R.ordinal(), R.generation());
  S.live_ = true;
  return S;
}

Stream::~Stream() {
  try {
    destroy();
  } catch (const qd::Error &) {
    // A destructor cannot report; destroy() explicitly to see the error.
  }
}

Stream::Stream(Stream &&O) noexcept
    : handle_(O.handle_), id_(O.id_), owned_(O.owned_), live_(O.live_),
      device_(O.device_), generation_(O.generation_) {
  O.handle_ = nullptr;
  O.id_ = nullptr;
  O.live_ = false;
}

Stream &Stream::operator=(Stream &&O) noexcept {
  if (this != &O) {
    this->~Stream();
    new (this) Stream(std::move(O));
  }
  return *this;
}

void Stream::synchronize() const {
  if (!live_)
    return qd::sync();
  CaptureScope::checkNoWait("qd::Stream::synchronize");
  {
    CallGuard Guard;
    if (DeviceContext *R = contextOf(generation_, device_)) {
      uint64_t Mark = R->launchMark();
      R->device().synchronizeStream(id_);
      R->checkAsserts("qd::Stream::synchronize", id_, Mark);
      return;
    }
  }
  // The reset runs what the stream still had queued: wait for that, as
  // the caller may free what it uses once this fails.
  waitUntilRetired(generation_);
  throw Error("qd::Stream::synchronize: the stream belongs to a runtime "
              "that was reset");
}

/// Stream::destroy of the stream H of R.
static void destroyStream(DeviceContext &R, void *H) {
  rt::Device &D = R.device();
  uint64_t Mark = R.launchMark();
  try {
    D.synchronizeStream(H);
  } catch (...) {
    // Still give the stream back; report the first failure.
    try {
      D.destroyStream(H);
    } catch (const qd::Error &) {
    }
    try {
      R.checkAsserts("qd::Stream::destroy", H, Mark, /*Forget=*/true);
    } catch (const qd::Error &) {
    }
    throw;
  }
  try {
    D.destroyStream(H);
  } catch (...) {
    try {
      R.checkAsserts("qd::Stream::destroy", H, Mark, /*Forget=*/true);
    } catch (const qd::Error &) {
    }
    throw;
  }
  // Its work's failure is reported here, once; nothing stays for a later
  // stream that gets the same handle.
  R.checkAsserts("qd::Stream::destroy", H, Mark, /*Forget=*/true);
}

void Stream::destroy() {
  if (!live_)
    return;
  void *H = id_;
  live_ = false;
  handle_ = nullptr;
  id_ = nullptr;
  if (!owned_)
    return;
  {
    CallGuard Guard;
    if (DeviceContext *R = contextOf(generation_, device_))
      return destroyStream(*R, H);
  }
  // A reset runs what the stream had queued, and destroys it.
  waitUntilRetired(generation_);
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

Event qd::create_event(EventOptions Options) {
  CallGuard Guard;
  DeviceContext &R = currentDevice();
  Event E;
  E.handle_ = R.device().createEvent(Options.timing);
  E.native_ = R.device().getNativeEvent(E.handle_);
  E.live_ = true;
  E.timing_ = Options.timing;
  E.device_ = R.ordinal();
  E.generation_ = R.generation();
  return E;
}

Event::~Event() {
  try {
    destroy();
  } catch (const qd::Error &) {
  }
}

Event::Event(Event &&O) noexcept
    : native_(O.native_), handle_(O.handle_), live_(O.live_),
      timing_(O.timing_), device_(O.device_), generation_(O.generation_) {
  O.native_ = O.handle_ = nullptr;
  O.live_ = false;
}

Event &Event::operator=(Event &&O) noexcept {
  if (this != &O) {
    this->~Event();
    new (this) Event(std::move(O));
  }
  return *this;
}

static rt::Device &eventDevice(bool Live, uint64_t Generation, int Ordinal,
                               const char *Op) {
  if (!Live)
    throw Error(std::string("qd::Event::") + Op +
                ": the event was destroyed or never created");
  DeviceContext *DC = contextOf(Generation, Ordinal);
  if (!DC)
    throw Error(std::string("qd::Event::") + Op +
                ": the event belongs to a runtime that was reset");
  return DC->device();
}

void Event::record(const Stream &S) {
  CallGuard Guard;
  rt::Device &D = eventDevice(live_, generation_, device_, "record");
  // An event records work of its own device (the default stream: that
  // device's).
  if (S.device() != QDRT_CURRENT_DEVICE && S.device() != device_)
    throw Error("qd::Event::record: the stream is on device " +
                std::to_string(S.device()) + ", the event on device " +
                std::to_string(device_) +
                "; record it on a stream of its device (any device's stream "
                "may wait for it)");
  D.recordEvent(handle_, detail::stream_handle(S, "qd::Event::record"));
}

void Event::record() { record(Stream()); }

void Event::wait(const Stream &S) const {
  CallGuard Guard;
  eventDevice(live_, generation_, device_, "wait");
  // The stream's device waits, for an event of any device.
  DeviceContext &On = current().getDevice(S.device(), "qd::Event::wait");
  On.device().streamWaitEvent(detail::stream_handle(S, "qd::Event::wait"),
                              handle_);
}

void Event::wait() const { wait(Stream()); }

void Event::synchronize() const {
  if (live_) {
    CallGuard Guard;
    if (DeviceContext *DC = contextOf(generation_, device_)) {
      DC->device().synchronizeEvent(handle_);
      return;
    }
  }
  // As Stream::synchronize: a reset's queued work has run when this fails.
  if (live_)
    waitUntilRetired(generation_);
  CallGuard Guard;
  eventDevice(live_, generation_, device_, "synchronize");
}

bool Event::query() const {
  CallGuard Guard;
  return eventDevice(live_, generation_, device_, "query").queryEvent(handle_);
}

void Event::destroy() {
  if (!live_)
    return;
  CallGuard Guard;
  DeviceContext *DC = contextOf(generation_, device_);
  void *H = handle_;
  live_ = false;
  native_ = handle_ = nullptr;
  if (DC)
    DC->device().destroyEvent(H);
}

float qd::elapsed_ms(const Event &Start, const Event &End) {
  if (!Start.timing_ || !End.timing_)
    throw Error("qd::elapsed_ms: both events need "
                "qd::create_event({.timing = true})");
  CallGuard Guard;
  rt::Device &D =
      eventDevice(Start.live_, Start.generation_, Start.device_, "elapsed_ms");
  if (&eventDevice(End.live_, End.generation_, End.device_, "elapsed_ms") != &D)
    throw Error("qd::elapsed_ms: the events were created on different "
                "devices");
  return D.elapsedMs(Start.handle_, End.handle_);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *qd::detail::allocate(size_t Bytes) {
  CallGuard Guard;
  return currentDevice().allocate(Bytes);
}

void *qd::detail::allocate(size_t Bytes, uint64_t &Generation) {
  CallGuard Guard;
  DeviceContext &R = currentDevice();
  void *P = Bytes ? R.allocate(Bytes) : nullptr;
  Generation = R.generation();
  return P;
}

void *qd::detail::allocate_on(size_t Bytes, int Device, uint64_t &Generation,
                              int &Ordinal) {
  CallGuard Guard;
  DeviceContext &R = Device == QDRT_CURRENT_DEVICE
                         ? currentDevice()
                         : namedDevice(Device, "qd::Ndarray");
  void *P = Bytes ? R.allocate(Bytes) : nullptr;
  Generation = R.generation();
  Ordinal = P ? R.ordinal() : QDRT_CURRENT_DEVICE;
  return P;
}

// Declared in <qd/detail/launcher.h>, which only Clang compiles.
namespace qd::detail {
int launch_device(const qd::Launch &L) {
  if (L.device != QDRT_CURRENT_DEVICE)
    return L.device;
  CallGuard Guard(CallGuard::Pins::keep);
  return currentDevice().ordinal();
}

void check_peer_device(int Array, int Call, const char *Kernel,
                       const char *Param) {
  {
    CallGuard Guard(CallGuard::Pins::keep);
    if (current().canAccess(Call, Array))
      return;
  }
  CallGuard::forgetPins();
  throw Error(std::string("kernel '") + (Kernel ? Kernel : "?") +
              "': argument '" + (Param ? Param : "?") + "' is on device " +
              std::to_string(Array) + ", but the call runs on device " +
              std::to_string(Call));
}
} // namespace qd::detail

void qd::detail::deallocate(void *P, uint64_t Generation) noexcept {
  if (!P)
    return;
  CallGuard Guard(CallGuard::Pins::keep);
  Runtime *R = currentIfRunning();
  if (!P || !R || R->generation() != Generation)
    return; // the runtime that owned it freed it on reset
  try {
    R->deallocate(P);
  } catch (const qd::Error &) {
  }
}

uint64_t qd::detail::generation() {
  CallGuard Guard(CallGuard::Pins::keep);
  return current().generation();
}

/// A copy between the host and the current device's memory, on Stream;
/// waits for it when Wait.
template <typename Sync, typename Async>
static void copyWithHost(void *Dst, const void *Src, size_t Bytes, void *Stream,
                         bool Wait, const char *What, Sync Copy,
                         Async CopyAsync) {
  CallGuard Guard(CallGuard::Pins::consume);
  Runtime &R = current();
  CallGuard::checkPins(R.generation(), What);
  if (!Bytes)
    return;
  rt::Device &D = R.currentDevice().device();
  if (!Wait)
    return (D.*CopyAsync)(Dst, Src, Bytes, Stream);
  (D.*Copy)(Dst, Src, Bytes, Stream);
  D.synchronizeStream(Stream);
}

void qd::detail::copy_to_device(void *Dst, const void *Src, size_t Bytes,
                                void *Stream, bool Wait) {
  copyWithHost(Dst, Src, Bytes, Stream, Wait,
               "qd::Ndarray: a copy to the device", &rt::Device::copyToDevice,
               &rt::Device::copyToDeviceAsync);
}

void qd::detail::copy_to_host(void *Dst, const void *Src, size_t Bytes,
                              void *Stream, bool Wait) {
  copyWithHost(Dst, Src, Bytes, Stream, Wait, "qd::Ndarray: a copy to the host",
               &rt::Device::copyToHost, &rt::Device::copyToHostAsync);
}

void *qd::detail::stream_handle(const Stream &S, const char *What) {
  if (!S.live_)
    return S.id_;
  CallGuard Guard(CallGuard::Pins::keep);
  if (!contextOf(S.generation_, S.device_))
    throw Error(std::string(What) +
                ": the stream belongs to a runtime that was reset");
  // The call that uses the handle checks that no reset came in between.
  CallGuard::pin(S.generation_);
  return S.id_;
}

void qd::detail::check_generation(uint64_t Generation, const char *What) {
  CallGuard Guard(CallGuard::Pins::keep);
  // 0: a default-constructed or moved-from array, which owns nothing.
  if (Generation && Generation != currentGeneration())
    throw Error(std::string(What) + ": the array was created before "
                                    "qd::reset(); its memory was freed");
}

void qd::detail::check_host_pointer(const void *Host, size_t Bytes,
                                    const char *What) {
  if (!Host && Bytes)
    CallGuard::forgetPins();
  if (!Host && Bytes)
    throw Error(std::string(What) + ": the host pointer is null, with " +
                std::to_string(Bytes) + " bytes to copy");
}

size_t qd::detail::checked_size(const int64_t *Shape, int Dims,
                                size_t ElementBytes) {
  bool Empty = false;
  for (int D = 0; D < Dims; ++D) {
    if (Shape[D] < 0)
      throw_shape_error(static_cast<size_t>(Dims), Dims, Shape[D]);
    Empty |= Shape[D] == 0;
  }
  if (Empty)
    return 0; // however large the other extents
  size_t Elements = 1, Bytes = 0;
  bool Overflow = false;
  for (int D = 0; D < Dims && !Overflow; ++D)
    Overflow = __builtin_mul_overflow(Elements, Shape[D], &Elements);
  Overflow = Overflow || __builtin_mul_overflow(Elements, ElementBytes, &Bytes);
  if (!Overflow && Bytes <= static_cast<size_t>(PTRDIFF_MAX))
    return Elements;
  std::string Text;
  for (int D = 0; D < Dims; ++D)
    Text += (D ? ", " : "") + std::to_string(Shape[D]);
  throw Error("qd::Ndarray: shape [" + Text + "] is too large: with " +
              std::to_string(ElementBytes) +
              "-byte elements it needs more than " +
              std::to_string(PTRDIFF_MAX) + " bytes");
}

void qd::detail::throw_dimension_error(int D, int Dims) {
  throw Error("qd::Ndarray::shape: no dimension " + std::to_string(D) +
              " in a " + std::to_string(Dims) + "-dimensional array");
}

// Declared in <qd/detail/launcher.h>, which only Clang compiles.
namespace qd::detail {
void check_launch_array(const void *Data, const char *Kernel, const char *Param,
                        const uint64_t *Iterations, size_t NumTasks) {
  if (Data || !Iterations)
    return;
  for (size_t I = 0; I < NumTasks; ++I)
    if (Iterations[I] > 0)
      CallGuard::forgetPins();
  for (size_t I = 0; I < NumTasks; ++I)
    if (Iterations[I] > 0)
      throw Error(std::string("kernel '") + (Kernel ? Kernel : "?") +
                  "': argument '" + (Param ? Param : "?") +
                  "' is an empty qd::Ndarray (default-constructed, "
                  "moved-from or of size 0), but the kernel has iterations "
                  "to run");
}
} // namespace qd::detail

void qd::detail::throw_size_error(const char *What, size_t Got, size_t Want) {
  CallGuard::forgetPins();
  throw Error(std::string(What) + ": " + std::to_string(Got) +
              " values for one of " + std::to_string(Want));
}

void qd::detail::throw_shape_error(size_t Extents, int Dims, int64_t Negative) {
  if (Negative < 0)
    throw Error("qd::Ndarray: negative extent " + std::to_string(Negative));
  throw Error("qd::Ndarray: shape has " + std::to_string(Extents) +
              " extents, expected " + std::to_string(Dims));
}

void qd::detail::check(int Status) {
  if (Status != QDRT_SUCCESS)
    throw Error(qdrt_last_error());
}
