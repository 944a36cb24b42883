//===- Graph.cpp - Recorded work replayed with one call -------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::capture and qd::Graph (DESIGN section 3.2) over the
// device's stream capture: everything the captured function enqueues on
// the stream, including the fork and join of stream-parallel kernels
// (their worker streams wait on events of the captured stream, so the
// capture follows them), becomes one executable graph. The CPU backend has
// no graphs: its Graph keeps the function and calls it again.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

using namespace qd;
using namespace qd::rt;

namespace {
thread_local unsigned CaptureDepth = 0;
} // namespace

CaptureScope::CaptureScope() { ++CaptureDepth; }
CaptureScope::~CaptureScope() { --CaptureDepth; }

void CaptureScope::checkNoWait(const char *What) {
  if (CaptureDepth)
    throw Error(std::string(What) +
                ": waits on the host inside a function given to qd::capture, "
                "which records work without running it");
}

Graph qd::capture(const Stream &S, const std::function<void()> &Fn) {
  CallGuard Guard;
  Runtime &RT = current();
  DeviceContext &R = RT.getDevice(S.device(), "qd::capture");
  rt::Device &D = R.device();
  void *H = detail::stream_handle(S, "qd::capture");
  // Checked on every backend, so that what works on the CPU works on GPUs.
  if (!H)
    throw Error("qd::capture: the default stream cannot be captured; "
                "capture on a stream from qd::create_stream()");
  Graph G;
  G.generation_ = R.generation();
  G.device_ = R.ordinal();
  G.live_ = true;
  if (!D.hasGraphs()) {
    G.handle_ = R.keepReplay(Fn);
    return G;
  }
  D.beginCapture(H);
  // The modules whose kernels Fn records: a replay launches them.
  R.captureBegin(H);
  try {
    CaptureScope Scope;
    Fn();
  } catch (...) {
    R.captureEnd(H, nullptr);
    // End the capture, whose graph is invalid, so the stream works again.
    try {
      D.destroyGraph(D.endCapture(H));
    } catch (const Error &) {
    }
    throw;
  }
  try {
    G.handle_ = D.endCapture(H);
  } catch (...) {
    R.captureEnd(H, nullptr);
    throw;
  }
  R.captureEnd(H, G.handle_);
  return G;
}

Graph::~Graph() { destroy(); }

Graph::Graph(Graph &&O) noexcept
    : handle_(O.handle_), live_(O.live_), device_(O.device_),
      generation_(O.generation_) {
  O.handle_ = nullptr;
  O.live_ = false;
}

Graph &Graph::operator=(Graph &&O) noexcept {
  if (this != &O) {
    destroy();
    handle_ = O.handle_;
    live_ = O.live_;
    device_ = O.device_;
    generation_ = O.generation_;
    O.handle_ = nullptr;
    O.live_ = false;
  }
  return *this;
}

void Graph::launch(const Stream &S) const {
  if (!live_)
    throw Error("qd::Graph::launch: the graph is empty (default-constructed, "
                "moved-from or destroyed)");
  CallGuard Guard;
  DeviceContext *R = contextOf(generation_, device_);
  if (!R)
    throw Error("qd::Graph::launch: the graph belongs to a runtime that was "
                "reset");
  void *H = detail::stream_handle(S, "qd::Graph::launch");
  if (S.device() != QDRT_CURRENT_DEVICE && S.device() != device_)
    throw Error("qd::Graph::launch: the stream is on device " +
                std::to_string(S.device()) + ", the graph on device " +
                std::to_string(device_));
  if (const std::function<void()> *Replay = R->findReplay(handle_)) {
    CaptureScope Scope;
    return (*Replay)();
  }
  R->noteGraphLaunch(handle_, H);
  R->device().launchGraph(handle_, H);
}

void Graph::launch() const { launch(Stream()); }

void Graph::destroy() {
  if (!live_)
    return;
  live_ = false;
  CallGuard Guard;
  DeviceContext *R = contextOf(generation_, device_);
  if (R && handle_ && !R->dropReplay(handle_)) {
    R->forgetGraph(handle_);
    try {
      R->device().destroyGraph(handle_);
    } catch (const Error &) {
    }
  }
  handle_ = nullptr;
}
