//===- MemoryAccesses.h - What a statement reads and writes -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Finds the elements of fields, ndarray parameters and pointer
// parameters a kernel's top-level statement reads and writes, with each
// index as an affine function of the statement's loop indices when it is
// one, and the accesses of the functions it calls. The race check between
// stream-parallel groups (lib/Transforms/CheckStreamRaces.cpp) and the
// stream plan read them from the KIR. Private to lib/Frontend.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_FRONTEND_MEMORYACCESSES_H
#define QDC_LIB_FRONTEND_MEMORYACCESSES_H

#include "ASTHelpers.h"

#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <optional>
#include <vector>

namespace qdc::frontend {

class MemoryAccesses {
public:
  MemoryAccesses(clang::ASTContext &Ctx, SourceInfo &Src)
      : Ctx(Ctx), Src(Src) {}

  /// Notes node S of a top-level statement of Kernel (Parent: the
  /// expression around it), whose loop indices are LoopIndices (in
  /// dimension order; none for a serial statement). Conditional: S does
  /// not run on every run of the statement.
  void note(const clang::Stmt *S, const clang::Stmt *Parent, bool Conditional,
            const clang::FunctionDecl *Kernel,
            llvm::ArrayRef<const clang::ValueDecl *> LoopIndices,
            std::vector<kir::MemoryAccess> &Out);

private:
  /// What a function does to memory: fields by name, its own parameters
  /// by position.
  struct Summary {
    std::vector<kir::MemoryAccess> Fields;
    struct ParamUse {
      unsigned Index;
      bool Write, Atomic;
      SourceLoc Loc;
    };
    std::vector<ParamUse> Params;
  };

  /// The array an element access is made on, and its indices.
  struct Element {
    const clang::ValueDecl *Array = nullptr;
    llvm::SmallVector<const clang::Expr *, 2> Indices;
  };
  static std::optional<Element> getElement(const clang::Stmt *S);
  /// Whether Parent writes the element S (and whether atomically).
  static std::pair<bool, bool> classify(const clang::Stmt *S,
                                        const clang::Stmt *Parent);
  std::optional<kir::MemoryAccess::Index>
  getAffine(const clang::Expr *E,
            llvm::ArrayRef<const clang::ValueDecl *> LoopIndices) const;
  /// The summary of a user function (memoized; a recursive call is taken
  /// as doing nothing more).
  const Summary &summarize(const clang::FunctionDecl *FD);
  void summarizeNode(const clang::Stmt *S, const clang::Stmt *Parent,
                     const clang::FunctionDecl *FD, Summary &Out,
                     unsigned Depth);
  void addCallee(
      const clang::CallExpr *Call, const clang::FunctionDecl *Caller,
      const std::function<void(const kir::MemoryAccess &)> &Field,
      const std::function<void(unsigned, const Summary::ParamUse &)> &Param);

  clang::ASTContext &Ctx;
  SourceInfo &Src;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<Summary>>
      Summaries;
};

} // namespace qdc::frontend

#endif // QDC_LIB_FRONTEND_MEMORYACCESSES_H
