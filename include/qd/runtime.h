//===- qd/runtime.h - The qdc runtime API (libqdrt) -------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What host programs use: pick a backend, create streams and
// events, own device memory, and pass a stream to a generated kernel with
// qd::on(stream). Every failure is a qd::Error naming the operation and,
// for driver calls, the driver's own error string.
//
//===----------------------------------------------------------------------===//

#ifndef QD_RUNTIME_H
#define QD_RUNTIME_H

#include "qd/abi.h"
#include "qd/error.h"
#include "qd/linalg.h"
#include "qd/memory.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace qd {

struct InitOptions {
  int device = 0; ///< ordinal of the GPU to use on machines with several
  /// The seed of qd::random and qd::randn, set when the runtime starts.
  uint64_t random_seed = 0;
};

/// Seeds qd::random and qd::randn: the kernel calls after it draw the same
/// numbers as after any other set_random_seed with this seed.
void set_random_seed(uint64_t seed);

/// Starts the runtime on `arch`. Calling it again with the same arch and
/// device does nothing; with another one, it is an error until reset().
/// A program that never calls init gets init() on its first runtime call.
/// A value that is none of Arch's enumerators is a qd::Error.
void init(Arch arch = Arch::best, InitOptions options = {});

/// The backend the runtime runs on (initializing it if needed).
Arch current_arch();
/// The calling host thread's current device (set_device; at first
/// InitOptions::device); 0 on the CPU backend.
int current_device();

namespace detail {
/// current_arch(), current_device() and the generation of the running
/// runtime in one runtime call: what a Python binding asks once per call.
struct CurrentContext {
  Arch arch;
  int device;
  uint64_t generation;
};
CurrentContext current_context();
} // namespace detail

/// How many devices the runtime's backend has on this machine (1 on the
/// CPU backend).
int device_count();
/// Device `ordinal`, opened for use; a qd::Error when the backend has no
/// such device.
Device device(int ordinal);
/// Makes `ordinal` the calling host thread's current device: kernel calls
/// without qd::on, create_stream(), create_event() and new arrays use it.
void set_device(int ordinal);
/// Lets kernels and copies on `a` use memory of `b`, and on `b` memory of
/// `a` (peer access over NVLink or PCIe); a qd::Error when the GPUs cannot.
void enable_peer_access(const Device &a, const Device &b);
/// Whether qd::graph::do_while loops run on the device without the host
/// (a conditional graph node: CUDA on sm_90 and newer, with the CUDA
/// toolkit's libcudadevrt.a found); elsewhere the host runs them, reading
/// the flag after each iteration.
bool graph_loops_on_device();

/// Waits for all work, releases every stream, event, module and buffer the
/// runtime owns, and returns to the uninitialized state.
void reset();

/// Waits for the default stream only; explicit streams have synchronize().
void sync();

/// A stream: work on one stream runs in order, work on different streams
/// may overlap. Non-blocking (it does not synchronize with the default
/// stream). Move-only; the destructor calls destroy().
class Stream {
public:
  Stream() = default;
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  /// Adopts a native CUstream / hipStream_t of device `device` (the current
  /// one by default) without owning it.
  static Stream wrap(void *native, int device = QDRT_CURRENT_DEVICE);

  /// Blocks the host until the stream's work is done.
  void synchronize() const;
  /// Waits for the stream's work, then destroys it; handle() becomes 0.
  /// Idempotent. A wrapped stream is only forgotten, never destroyed.
  void destroy();
  /// The native handle; 0 means the default stream (and every stream on
  /// CPU).
  void *handle() const { return handle_; }
  /// The driver's stream, for libraries that run on it (NCCL, cuBLAS): the
  /// same as handle().
  void *native() const { return handle_; }
  bool owned() const { return owned_; }
  /// The ordinal of the device the stream belongs to (and its kernel calls
  /// run on); QDRT_CURRENT_DEVICE for the default Stream().
  int device() const { return device_; }

private:
  friend Stream create_stream();
  friend Stream create_stream(const Device &);
  friend void *detail::stream_handle(const Stream &, const char *);
  Stream(void *handle, void *id, bool owned, int device, uint64_t generation)
      : handle_(handle), id_(id), owned_(owned), device_(device),
        generation_(generation) {}

  void *handle_ = nullptr;
  /// The runtime's handle: handle_ on GPUs, a token of the stream on the
  /// CPU (whose handle_ is 0); what qd::on passes to a launch.
  void *id_ = nullptr;
  bool owned_ = false;
  bool live_ = false;
  int device_ = QDRT_CURRENT_DEVICE;
  uint64_t generation_ = 0;
};

Stream create_stream();
/// A stream of `device` (its work runs there).
Stream create_stream(const Device &device);

struct EventOptions {
  bool timing = false; ///< allows elapsed_ms
};

/// A point in a stream's work that other streams and the host can wait for.
class Event {
public:
  Event() = default;
  ~Event();
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Captures the work submitted to `stream` so far.
  void record(const Stream &stream);
  /// Captures the work submitted to the default stream so far.
  void record();
  /// Makes `stream` wait (on the device, not the host) for the captured
  /// work.
  void wait(const Stream &stream) const;
  /// Makes the default stream wait for the captured work.
  void wait() const;
  /// Blocks the host until the captured work is done.
  void synchronize() const;
  /// True when the captured work is done.
  bool query() const;
  /// Destroys the event; handle() becomes 0. Idempotent.
  void destroy();
  /// The driver's event (CUevent, hipEvent_t); 0 on the CPU backend.
  void *handle() const { return native_; }

private:
  friend Event create_event(EventOptions);
  friend float elapsed_ms(const Event &, const Event &);
  void *native_ = nullptr; ///< what handle() shows
  void *handle_ = nullptr; ///< the runtime's own
  bool live_ = false;
  bool timing_ = false;
  int device_ = 0; ///< the device it was created on
  uint64_t generation_ = 0;
};

Event create_event(EventOptions options = {});

/// Milliseconds between two recorded timing events.
float elapsed_ms(const Event &start, const Event &end);

/// Recorded work that replays with one call (a CUDA or HIP graph): made by
/// qd::capture. Move-only; destroyed with the runtime's device at the
/// latest.
class Graph {
public:
  Graph() = default;
  ~Graph();
  Graph(Graph &&other) noexcept;
  Graph &operator=(Graph &&other) noexcept;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  /// Enqueues the recorded work on `stream` (the default stream without
  /// one) and returns at once. The arrays and scalars are those of the
  /// capture.
  void launch(const Stream &stream) const;
  void launch() const;
  void destroy();

private:
  friend Graph capture(const Stream &, const std::function<void()> &);
  void *handle_ = nullptr;
  bool live_ = false;
  int device_ = 0; ///< the device of its capture stream
  uint64_t generation_ = 0;
};

/// Records the kernel calls (and fills, copies) that `fn` enqueues on
/// `stream`, without running them, as a Graph to launch any number of
/// times: the fork and join of stream-parallel kernels become the graph's
/// branches. `stream` comes from qd::create_stream (the default stream
/// cannot be captured), and `fn` must not wait on the host (no qd::sync,
/// no kernel returning a value): that is a qd::Error. On the CPU backend
/// launching calls `fn` again.
Graph capture(const Stream &stream, const std::function<void()> &fn);

/// Launches on `stream`, on its device; a stream made before qd::reset()
/// is a qd::Error.
inline Launch on(const Stream &stream) {
  return Launch{detail::stream_handle(stream, "qd::on"), stream.device()};
}

} // namespace qd

#endif // QD_RUNTIME_H
