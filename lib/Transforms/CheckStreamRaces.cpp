//===- CheckStreamRaces.cpp - Groups that touch the same memory -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rule 6 of DESIGN section 2: the groups of a stream-parallel
// kernel run concurrently, so a field, ndarray or pointer parameter that
// one group writes and another reads or writes is a data race unless they
// touch different elements. Each top-level statement carries its accesses
// (the frontend's MemoryAccesses), with indices affine in its loop indices
// where they are. For two accesses in different groups, one a plain write:
// - elements provably apart (the index ranges over the loops' constant
//   bounds are disjoint in some dimension, or the indices interleave
//   without meeting, as 2i and 2j + 1 do) or distinct members of one
//   struct element are fine;
// - elements provably shared (every index known and contiguous, both
//   accesses made on every run, non-empty loops) are an error at the write
//   with a note at the other access;
// - anything else is a -Wstream-race warning at the write.
// Atomics against atomics are not races.
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

using namespace qdc;
using namespace qdc::kir;

namespace {

enum class Overlap { Apart, Shared, Unknown };

/// Whether two member paths of one element name different storage: neither
/// is the other or inside it ("pos" and "pos.x" share, "pos" and "vel" do
/// not; empty is the whole element).
bool disjointMembers(llvm::StringRef A, llvm::StringRef B) {
  if (A.empty() || B.empty())
    return false;
  auto Within = [](llvm::StringRef Inner, llvm::StringRef Outer) {
    return Inner == Outer ||
           (Inner.starts_with(Outer) && Inner[Outer.size()] == '.');
  };
  return !Within(A, B) && !Within(B, A);
}

/// Coef1 * i + Off1 == Coef2 * j + Off2 has no integer solution: the GCD
/// of the coefficients does not divide the offsets' difference (2i and
/// 2j + 1 interleave without meeting).
bool neverEqual(const MemoryAccess::Index &X, const MemoryAccess::Index &Y) {
  int64_t G = std::gcd(std::abs(X.Coef), std::abs(Y.Coef));
  return G > 1 && (Y.Offset - X.Offset) % G != 0;
}

Overlap compare(const MemoryAccess &A, const Stmt &SA, const MemoryAccess &B,
                const Stmt &SB) {
  if (disjointMembers(A.Member, B.Member))
    return Overlap::Apart;
  std::vector<std::optional<IndexRange>> RA = getIndexRanges(A, SA),
                                         RB = getIndexRanges(B, SB);
  bool Known = A.IndicesKnown && B.IndicesKnown && RA.size() == RB.size();
  bool Exact = Known && !A.Conditional && !B.Conditional;
  for (size_t D = 0; Known && D < RA.size(); ++D) {
    if (neverEqual(A.Indices[D], B.Indices[D]))
      return Overlap::Apart;
    if (!RA[D] || !RB[D]) {
      Exact = false;
      continue;
    }
    if (RA[D]->Hi < RB[D]->Lo || RB[D]->Hi < RA[D]->Lo)
      return Overlap::Apart;
    // A strided index may interleave with the other without meeting it.
    if (std::abs(A.Indices[D].Coef) > 1 || std::abs(B.Indices[D].Coef) > 1)
      Exact = false;
  }
  return Exact ? Overlap::Shared : Overlap::Unknown;
}

const char *describe(const MemoryAccess &A) {
  if (A.Atomic)
    return "updates atomically";
  return A.Write ? "writes" : "reads";
}

std::string target(const MemoryAccess &A) {
  return (A.On == MemoryAccess::Field ? "field '" : "parameter '") + A.Name +
         "'";
}

/// The top-level statements of each group, in order.
void collect(const std::vector<Stmt> &List, unsigned Group,
             std::vector<std::pair<unsigned, const Stmt *>> &Out) {
  for (const Stmt &S : List) {
    if (S.Kind == StmtKind::Block)
      collect(S.Body, S.Group, Out);
    else if (Group)
      Out.push_back({Group, &S});
  }
}

void checkKernel(const Kernel &K, DiagEngine &Diags) {
  std::vector<std::pair<unsigned, const Stmt *>> Items;
  collect(K.Body, 0, Items);
  // One report per (write, other group, array): the first pair found.
  std::set<std::tuple<unsigned, unsigned, std::string, int>> Reported;
  for (size_t I = 0; I < Items.size(); ++I)
    for (size_t J = 0; J < Items.size(); ++J) {
      auto [GA, SA] = Items[I];
      auto [GB, SB] = Items[J];
      if (GA == GB)
        continue;
      for (const MemoryAccess &A : SA->Memory) {
        if (!A.Write || A.Atomic)
          continue; // races are reported at a plain write
        for (const MemoryAccess &B : SB->Memory) {
          if (B.On != A.On || B.Name != A.Name)
            continue;
          if (B.Write && !B.Atomic && GB < GA)
            continue; // two writes: reported once, from the first group
          Overlap O = compare(A, *SA, B, *SB);
          if (O == Overlap::Apart ||
              !Reported.insert({GA, GB, A.Name, int(A.On)}).second)
            continue;
          if (O == Overlap::Shared) {
            Diags.report(DiagID::err_stream_race, A.Loc)
                << int64_t(GA) << target(A) << int64_t(GB) << describe(B);
            Diags.report(DiagID::note_stream_race_other, B.Loc)
                << int64_t(GB) << describe(B) << target(B);
          } else {
            Diags.report(DiagID::warn_stream_race, A.Loc)
                << int64_t(GA) << target(A) << int64_t(GB) << describe(B);
          }
        }
      }
    }
}

} // namespace

void qdc::checkStreamRaces(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels)
    if (K.NumGroups > 1)
      checkKernel(K, Diags);
}
