//===- Kernel.cpp - The kernel IR -----------------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <iterator>

using namespace qdc::kir;

std::vector<std::optional<IndexRange>>
qdc::kir::getIndexRanges(const MemoryAccess &A, const Stmt &S) {
  std::vector<std::optional<IndexRange>> Out;
  if (!A.IndicesKnown)
    return Out;
  for (const MemoryAccess::Index &I : A.Indices) {
    if (I.Dim < 0) {
      Out.push_back(IndexRange{I.Offset, I.Offset});
      continue;
    }
    const Extent *E =
        S.Kind == StmtKind::Loop && size_t(I.Dim) < S.Extents.size()
            ? &S.Extents[size_t(I.Dim)]
            : nullptr;
    if (!E || !E->Begin.Value || !E->End.Value ||
        *E->End.Value <= *E->Begin.Value) {
      Out.push_back(std::nullopt);
      continue;
    }
    int64_t A0 = I.Coef * *E->Begin.Value + I.Offset;
    int64_t A1 = I.Coef * (*E->End.Value - 1) + I.Offset;
    Out.push_back(IndexRange{std::min(A0, A1), std::max(A0, A1)});
  }
  return Out;
}

namespace {
struct ScalarTypeInfo {
  ScalarType Type;
  llvm::StringLiteral Name, Spelling;
  ScalarKind Kind;
  unsigned Bytes;
};
constexpr ScalarTypeInfo ScalarTypes[] = {
#define QDC_SCALAR_TYPE(ENUM, NAME, SPELLING, KIND, BYTES)                     \
  {ScalarType::ENUM, NAME, SPELLING, ScalarKind::KIND, BYTES},
#include "qdc/KIR/ScalarTypes.def"
};

const ScalarTypeInfo &getInfo(ScalarType T) {
  for (const ScalarTypeInfo &I : ScalarTypes)
    if (I.Type == T)
      return I;
  llvm_unreachable("unknown ScalarType");
}
} // namespace

llvm::StringRef qdc::kir::getScalarTypeName(ScalarType T) {
  return getInfo(T).Name;
}

llvm::StringRef qdc::kir::getScalarTypeSpelling(ScalarType T) {
  return getInfo(T).Spelling;
}

unsigned qdc::kir::getScalarTypeSize(ScalarType T) { return getInfo(T).Bytes; }

std::string qdc::kir::getElemSpelling(ScalarType Elem,
                                      const std::string &Record) {
  return Record.empty() ? getScalarTypeSpelling(Elem).str() : Record;
}

std::optional<ScalarType> qdc::kir::findScalarType(ScalarKind Kind,
                                                   unsigned Bytes) {
  for (const ScalarTypeInfo &I : ScalarTypes)
    if (I.Kind == Kind && I.Bytes == Bytes)
      return I.Type;
  return std::nullopt;
}

std::string qdc::kir::getScalarTypeSpellingList(bool OrLast) {
  std::string Out;
  size_t N = std::size(ScalarTypes);
  for (size_t I = 0; I < N; ++I) {
    if (I)
      Out += OrLast && I + 1 == N ? " or " : ", ";
    Out += ScalarTypes[I].Spelling;
  }
  return Out;
}

llvm::StringRef qdc::kir::getReduceOpSpelling(ReduceOp Op) {
  switch (Op) {
#define QDC_REDUCE_OP(ENUM, SPELLING, FUNCTOR)                                 \
  case ReduceOp::ENUM:                                                         \
    return SPELLING;
#include "qdc/KIR/ReduceOps.def"
  }
  llvm_unreachable("unknown ReduceOp");
}

llvm::StringRef qdc::kir::getReduceOpFunctor(ReduceOp Op) {
  switch (Op) {
#define QDC_REDUCE_OP(ENUM, SPELLING, FUNCTOR)                                 \
  case ReduceOp::ENUM:                                                         \
    return FUNCTOR;
#include "qdc/KIR/ReduceOps.def"
  }
  llvm_unreachable("unknown ReduceOp");
}

const LoopAccess *Stmt::findReduction(unsigned DeclId,
                                      unsigned VarIndex) const {
  for (const LoopAccess &A : Accesses)
    if (A.What == LoopAccess::Reduce && A.DeclId == DeclId &&
        A.VarIndex == VarIndex)
      return &A;
  return nullptr;
}

bool Stmt::hasAtomic(unsigned DeclId, unsigned VarIndex) const {
  return llvm::any_of(Accesses, [&](const LoopAccess &A) {
    return A.What == LoopAccess::Atomic && A.DeclId == DeclId &&
           A.VarIndex == VarIndex;
  });
}

std::string qdc::kir::formatBlockDim(unsigned BlockDim,
                                     llvm::ArrayRef<unsigned> Shape) {
  if (Shape.empty())
    return std::to_string(BlockDim);
  std::string Out;
  for (unsigned N : Shape)
    Out += (Out.empty() ? "" : "x") + std::to_string(N);
  return Out;
}

llvm::StringRef qdc::kir::getTaskKindName(TaskKind K) {
  switch (K) {
  case TaskKind::Range:
    return "range";
  case TaskKind::NdRange:
    return "ndrange";
  case TaskKind::Serial:
    return "serial";
  case TaskKind::Fused:
    return "fused";
  }
  llvm_unreachable("unknown TaskKind");
}

llvm::SmallVector<std::pair<unsigned, unsigned>, 2>
qdc::kir::getScalarFills(const Kernel &K, const Task &T) {
  llvm::SmallVector<std::pair<unsigned, unsigned>, 2> Out;
  if (T.Kind != TaskKind::Serial || T.EvaluatesBounds)
    return {};
  for (unsigned Id : T.StmtIds) {
    const Stmt *S = K.findStmt(Id);
    if (!S || S->Kind != StmtKind::Local || S->Vars.empty() ||
        (K.ReturnStmt && *K.ReturnStmt == Id))
      return {};
    for (unsigned I = 0; I < S->Vars.size(); ++I) {
      const LocalVar &V = S->Vars[I];
      if (!V.Scalar || V.FromParam || !V.ConstantBits)
        return {};
      Out.push_back({Id, I});
    }
  }
  return Out;
}

std::optional<int64_t> qdc::kir::getConstantTripCount(const Task &T,
                                                      int64_t Limit) {
  if (T.Kind == TaskKind::Serial)
    return 1;
  if (T.Kind == TaskKind::Fused || T.DeviceBounds)
    return std::nullopt;
  int64_t Trip = 1;
  for (const Extent &X : T.Extents) {
    if (!X.Begin.Value || !X.End.Value)
      return std::nullopt;
    int64_t B = *X.Begin.Value, E = *X.End.Value;
    // The difference in unsigned arithmetic, which cannot overflow.
    uint64_t N = E > B ? uint64_t(E) - uint64_t(B) : 0;
    if (N > uint64_t(Limit))
      return std::nullopt;
    Trip *= int64_t(N); // both at most Limit: no overflow
    if (Trip > Limit)
      return std::nullopt;
  }
  return Trip;
}

size_t qdc::kir::getLoopNestEnd(llvm::ArrayRef<GraphLoop> Loops, size_t I) {
  // A nested loop has a task, so it starts before its outer loop's end; a
  // later sibling starts at that end or after.
  size_t J = I + 1;
  while (J < Loops.size() && Loops[J].FirstTask < Loops[I].getEndTask())
    ++J;
  return J;
}

static const Stmt *findIn(const std::vector<Stmt> &Stmts, unsigned Id) {
  for (const Stmt &S : Stmts) {
    if (S.Id == Id)
      return &S;
    if (const Stmt *Found = findIn(S.Body, Id))
      return Found;
  }
  return nullptr;
}

/// Ids are pre-order numbers: in a list, the statement holding Id is the
/// last one whose Id is not greater (it, or a block around it). Code
/// generation looks statements up per task, so this is logarithmic, not
/// linear in the kernel's length.
static const Stmt *searchIn(const std::vector<Stmt> &Stmts, unsigned Id) {
  auto It =
      std::upper_bound(Stmts.begin(), Stmts.end(), Id,
                       [](unsigned Id, const Stmt &S) { return Id < S.Id; });
  if (It == Stmts.begin())
    return nullptr;
  const Stmt &S = *std::prev(It);
  return S.Id == Id ? &S : searchIn(S.Body, Id);
}

bool Kernel::hasBoundSlots() const {
  for (const Task &T : Tasks)
    if (T.BoundsInScalars)
      return true;
  return false;
}

const Stmt *Kernel::findStmt(unsigned Id) const {
  if (const Stmt *S = searchIn(Body, Id))
    return S;
  return findIn(Body, Id); // a hand-built kernel not in pre-order
}
