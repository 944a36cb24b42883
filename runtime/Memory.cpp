//===- Memory.cpp - Fills, device copies and views ------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The memory operations of DESIGN section 3.1 that run on the
// device: fill (a memset when the element repeats a short pattern, else a
// kernel repeating its words where the device has one, else the first
// element copied in and doubled by device-to-device copies: no host buffer
// of the array's size), copies between device arrays, and the
// checks a view of memory the program owns gets.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <cstring>
#include <string>

using namespace qd;
using namespace qd::rt;

namespace {

/// The shortest period, among 1, 2 and 4 bytes, that the element's bytes
/// repeat with, or 0 when none does.
unsigned findPeriod(const unsigned char *Value, size_t Bytes) {
  for (unsigned P : {1u, 2u, 4u}) {
    if (Bytes % P)
      continue;
    bool Repeats = true;
    for (size_t I = P; I < Bytes && Repeats; ++I)
      Repeats = Value[I] == Value[I - P];
    if (Repeats)
      return P;
  }
  return 0;
}

/// A kernel that repeats the element's 32-bit words (a double of 1.0 / 3,
/// a qd::vec3), where the device has one and the element is 4 to 64 bytes
/// in whole words at an address aligned to 4; false when not.
bool fillByWords(rt::Device &D, void *Dst, const unsigned char *Value,
                 size_t ElemBytes, size_t Total, void *Stream) {
  if (ElemBytes % 4 || ElemBytes > 64 || reinterpret_cast<uintptr_t>(Dst) % 4)
    return false;
  uint32_t Words[16];
  std::memcpy(Words, Value, ElemBytes);
  return D.fillWords(Dst, Words, unsigned(ElemBytes / 4), Total / 4, Stream);
}

} // namespace

void qd::detail::fill(void *Dst, const void *Value, size_t ElemBytes,
                      size_t Count, void *Stream, bool Wait) {
  CallGuard Guard(CallGuard::Pins::consume);
  Runtime &R = current();
  CallGuard::checkPins(R.generation(), "qd::Ndarray::fill");
  if (!Count || !ElemBytes)
    return;
  rt::Device &D = R.currentDevice().device();
  const auto *Bytes = static_cast<const unsigned char *>(Value);
  size_t Total = ElemBytes * Count;
  unsigned Period = findPeriod(Bytes, ElemBytes);
  if (Period && reinterpret_cast<uintptr_t>(Dst) % Period == 0) {
    uint32_t Word = 0;
    std::memcpy(&Word, Bytes, Period);
    D.memset(Dst, Word, Period, Total / Period, Stream);
  } else if (!fillByWords(D, Dst, Bytes, ElemBytes, Total, Stream)) {
    // One element from the host (the driver stages it before returning),
    // then doubling copies on the device: 1 + log2(Count) calls.
    auto *Out = static_cast<unsigned char *>(Dst);
    D.copyToDevice(Out, Value, ElemBytes, Stream);
    for (size_t Done = ElemBytes; Done < Total;) {
      size_t Chunk = std::min(Done, Total - Done);
      D.copyOnDevice(Out + Done, Out, Chunk, Stream);
      Done += Chunk;
    }
  }
  if (Wait)
    D.synchronizeStream(Stream);
}

int qd::detail::stream_device(const Stream &S) { return S.device(); }

void qd::detail::copy_on_device(void *Dst, const void *Src, size_t Bytes,
                                void *Stream, bool Wait, const char *What,
                                int Device) {
  CallGuard Guard(CallGuard::Pins::consume);
  Runtime &R = current();
  CallGuard::checkPins(R.generation(), What);
  if (!Bytes || Dst == Src)
    return;
  auto D0 = reinterpret_cast<uintptr_t>(Dst);
  auto S0 = reinterpret_cast<uintptr_t>(Src);
  if (D0 < S0 + Bytes && S0 < D0 + Bytes)
    throw Error(std::string(What) + ": the source and the destination " +
                "overlap (" + std::to_string(Bytes) + " bytes " +
                std::to_string(D0 > S0 ? D0 - S0 : S0 - D0) + " bytes apart)");
  rt::Device &D = R.getDevice(Device, What).device();
  D.copyOnDevice(Dst, Src, Bytes, Stream);
  if (Wait)
    D.synchronizeStream(Stream);
}

// Declared in <qd/detail/launcher.h>, which only Clang compiles.
namespace qd::detail {
static bool overlaps(const void *A, size_t ABytes, const void *B,
                     size_t BBytes) {
  auto A0 = reinterpret_cast<uintptr_t>(A), B0 = reinterpret_cast<uintptr_t>(B);
  return ABytes && BBytes && A0 + ABytes > B0 && B0 + BBytes > A0;
}
void check_overlap_(const void *A, size_t ABytes, const void *B, size_t BBytes,
                    const char *Kernel, const char *What) {
  if (!overlaps(A, ABytes, B, BBytes))
    return;
  CallGuard::forgetPins();
  throw Error(std::string("kernel '") + Kernel + "': " + What +
              " share memory, and stream-parallel groups would race on it");
}
void check_noalias_(const void *A, size_t ABytes, const void *B, size_t BBytes,
                    const char *Kernel, const char *AName, const char *BName) {
  if (!overlaps(A, ABytes, B, BBytes))
    return;
  CallGuard::forgetPins();
  throw Error(std::string("kernel '") + Kernel +
              "' is QD_NOALIAS, but its parameters '" + AName + "' and '" +
              BName + "' share memory");
}
} // namespace qd::detail

void qd::detail::check_view(const void *Data, size_t Bytes, const char *What) {
  if (!Bytes)
    return;
  if (!Data)
    throw Error(std::string(What) + ": a null pointer with " +
                std::to_string(Bytes) + " bytes of elements");
  CallGuard Guard(CallGuard::Pins::keep);
  rt::Device &D = currentDevice().device();
  std::string Why = D.checkUsable(Data, Bytes);
  if (!Why.empty())
    throw Error(std::string(What) + ": the " + arch_name(D.arch()) +
                " backend's kernels cannot use this memory: " + Why);
}

std::string qd::detail::call_name(const char *Kind, const char *Op) {
  if (!Op || !*Op) // the whole name given as Kind
    return Kind;
  return std::string(Kind) + "::" + Op;
}

void qd::detail::check_array(uint64_t Generation, bool Released,
                             const char *Kind, const char *Op) {
  if (Released) {
    CallGuard::forgetPins();
    throw Error(call_name(Kind, Op) +
                ": the memory was released: the array this view was made "
                "from is gone");
  }
  if (!Generation)
    return; // memory the program owns
  CallGuard Guard(CallGuard::Pins::keep);
  // Every array argument of every kernel call comes here: the name is
  // built only when the check fails.
  if (Generation != rt::currentGeneration()) {
    CallGuard::forgetPins();
    check_generation(Generation, call_name(Kind, Op).c_str());
  }
  // The call that uses the memory checks that no reset came in between.
  CallGuard::pin(Generation);
}

void qd::detail::throw_shape_mismatch(const char *What, const int64_t *Dst,
                                      const int64_t *Src, int Dims) {
  CallGuard::forgetPins();
  auto Text = [&](const int64_t *Shape) {
    std::string Out = "[";
    for (int I = 0; I < Dims; ++I)
      Out += (I ? ", " : "") + std::to_string(Shape[I]);
    return Out + "]";
  };
  throw Error(std::string(What) + ": the shapes differ: the destination is " +
              Text(Dst) + ", the source " + Text(Src));
}
