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
  /// by position. Indices are affine in the function's parameters (an
  /// Index's Dim is a parameter's position), so that a call substitutes its
  /// arguments; Conditional when not done on every call.
  struct Summary {
    std::vector<kir::MemoryAccess> Fields;
    struct ParamUse {
      unsigned Index;
      kir::MemoryAccess Access; ///< Name unused
    };
    std::vector<ParamUse> Params;
  };

  /// The array an element access is made on (a field, or a parameter of
  /// the function it is in), and its indices. Exact: the array is the
  /// variable itself or an alias of all of it (a reference, a copy of an
  /// ndarray); not when it is reached through a pointer moved from it.
  struct Element {
    const clang::ValueDecl *Array = nullptr;
    llvm::SmallVector<const clang::Expr *, 2> Indices;
    bool Exact = true;
  };
  static std::optional<Element> getElement(const clang::Stmt *S);
  /// The field or parameter whose memory E designates, following local
  /// references, copies and pointers derived from one; Exact as above.
  static const clang::ValueDecl *resolveArray(const clang::Expr *E,
                                              bool &Exact, unsigned Depth = 0);
  /// Whether Parent writes the element S (and whether atomically).
  static std::pair<bool, bool> classify(const clang::Stmt *S,
                                        const clang::Stmt *Parent);
  /// The struct members of the element S that Parent uses ("pos.x"), or
  /// empty for the whole element.
  static std::string getMemberPath(const clang::Stmt *S,
                                   const clang::Stmt *Parent);
  /// E as Coef * Vars[Dim] + Offset, or a constant (Dim -1).
  std::optional<kir::MemoryAccess::Index>
  getAffine(const clang::Expr *E,
            llvm::ArrayRef<const clang::ValueDecl *> Vars) const;
  /// An element access of S under Parent, its indices in terms of Vars.
  kir::MemoryAccess describe(const Element &E, const clang::Stmt *S,
                             const clang::Stmt *Parent, bool Conditional,
                             llvm::ArrayRef<const clang::ValueDecl *> Vars);
  /// A callee's access F, its indices (in the callee's parameters) made
  /// indices in Vars through Call's arguments.
  void substitute(kir::MemoryAccess &F, const clang::CallExpr *Call,
                  unsigned Shift, bool Conditional,
                  llvm::ArrayRef<const clang::ValueDecl *> Vars) const;
  /// The summary of a user function (memoized; a recursive call is taken
  /// as doing nothing more).
  const Summary &summarize(const clang::FunctionDecl *FD);
  void summarizeNode(const clang::Stmt *S, const clang::Stmt *Parent,
                     const clang::FunctionDecl *FD,
                     llvm::ArrayRef<const clang::ValueDecl *> Params,
                     Summary &Out, unsigned Branches, unsigned Depth);
  /// The accesses of Call's callee, seen from Caller whose index variables
  /// are Vars: Field for each field access, Param(argument position,
  /// access) for each access to an array passed to it.
  void addCallee(
      const clang::CallExpr *Call, const clang::FunctionDecl *Caller,
      bool Conditional, llvm::ArrayRef<const clang::ValueDecl *> Vars,
      const std::function<void(const kir::MemoryAccess &)> &Field,
      const std::function<void(unsigned, const kir::MemoryAccess &)> &Param);

  clang::ASTContext &Ctx;
  SourceInfo &Src;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<Summary>>
      Summaries;
};

} // namespace qdc::frontend

#endif // QDC_LIB_FRONTEND_MEMORYACCESSES_H
