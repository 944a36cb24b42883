//===- ASTHelpers.h - The prelude's vocabulary in the AST -------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the frontend's builder and checks share: recognising
// the prelude's constructs (QD_KERNEL, qd::field, qd::range,
// QD_STREAM_PARALLEL...) in Clang's AST, and turning Clang's positions and
// ranges into the KIR's. Private to lib/Frontend.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_FRONTEND_ASTHELPERS_H
#define QDC_LIB_FRONTEND_ASTHELPERS_H

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/SourceLoc.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace qdc::frontend {

/// Whether D carries `[[clang::annotate(Name)]]` (QD_KERNEL, QD_FUNC).
bool hasAnnotation(const clang::Decl *D, llvm::StringRef Name);
/// True when DC is namespace `qd` (or `qd::<Inner>` when Inner is given) at
/// file scope.
bool isQdContext(const clang::DeclContext *DC, llvm::StringRef Inner = {});
/// The specialization of class template qd::<Name> that T is, or null.
const clang::ClassTemplateSpecializationDecl *
getQdSpecialization(clang::QualType T, llvm::StringRef Name);

/// A component of a qd::vec or qd::mat value, `v[i]` or `m(i, j)`: used as
/// the value it is part of is (like `v.x`).
bool isComponentAccess(const clang::Stmt *S);
/// Whether FD is the free function qd::<Name>.
bool isQdFunction(const clang::FunctionDecl *FD, llvm::StringRef Name);
/// The callee of a statement of the form `qd::<Name>(...)`, as a call.
const clang::CallExpr *getQdCall(const clang::Stmt *S, llvm::StringRef Name);
/// Whether FD is qd::simt::block::sync or a block-wide operation that waits
/// at the block's barriers (reduce_*, the scans, the votes).
bool isBlockSync(const clang::FunctionDecl *FD);
/// Whether T is a qd::simt::block::shared_array<...>.
bool isSharedArrayType(clang::QualType T);
/// Whether S is a QD_STREAM_PARALLEL block.
bool isStreamParallelBlock(const clang::Stmt *S);

/// qd::graph::do_while.
bool isGraphDoWhile(const clang::FunctionDecl *FD);
/// The qd::graph::do_while call that is S's whole condition, when S is
/// `while (qd::graph::do_while(flag))`; else null.
const clang::CallExpr *getGraphDoWhile(const clang::Stmt *S);
/// The KIR scalar type of T, if it is one.
std::optional<kir::ScalarType> getScalarType(clang::QualType T,
                                             const clang::ASTContext &Ctx);
/// The enclosing namespaces, qualified ("a::b"), unnamed ones left out.
std::string getScope(const clang::DeclContext *DC);

/// Positions and source text, as the KIR records them.
class SourceInfo {
public:
  explicit SourceInfo(clang::ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  /// Where the user wrote it: a macro use is reported at the macro's name.
  SourceLoc getLoc(clang::SourceLocation L) {
    if (L.isInvalid())
      return {};
    L = SM.getExpansionLoc(L);
    SourceLoc Loc;
    clang::FileID FID = SM.getFileID(L);
    auto [It, Inserted] = FileNames.try_emplace(FID);
    if (Inserted) {
      if (clang::OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID))
        It->second = FE->getName().str();
      else
        It->second = "<built-in>";
    }
    Loc.File = It->second;
    Loc.Line = SM.getSpellingLineNumber(L);
    Loc.Column = SM.getSpellingColumnNumber(L);
    return Loc;
  }

  /// The main-file bytes from the first token of R to the end of its last
  /// token; invalid unless both ends are spelled in the main file.
  kir::TextRange getRange(clang::SourceRange R) {
    clang::CharSourceRange C = clang::Lexer::makeFileCharRange(
        clang::CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
    if (C.isInvalid() || !SM.isWrittenInMainFile(C.getBegin()) ||
        !SM.isWrittenInMainFile(C.getEnd()))
      return {};
    return {SM.getFileOffset(C.getBegin()), SM.getFileOffset(C.getEnd())};
  }

  /// Whether R is spelled in a file (possibly through macro arguments or
  /// names), not inside a macro's body.
  bool isSpelledInFile(clang::SourceRange R) {
    return clang::Lexer::makeFileCharRange(
               clang::CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts())
        .isValid();
  }

  /// The expression as the user wrote it.
  std::string getText(const clang::Expr *E) {
    clang::CharSourceRange R = clang::Lexer::makeFileCharRange(
        clang::CharSourceRange::getTokenRange(E->getSourceRange()), SM,
        Ctx.getLangOpts());
    if (R.isInvalid())
      R = SM.getExpansionRange(E->getSourceRange());
    llvm::StringRef Text =
        clang::Lexer::getSourceText(R, SM, Ctx.getLangOpts());
    return Text.empty() ? std::string("<expr>") : Text.str();
  }

  kir::Bound getBound(const clang::Expr *E) {
    kir::Bound B;
    B.Text = getText(E);
    clang::Expr::EvalResult R;
    if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx))
      B.Value = R.Val.getInt().getExtValue();
    return B;
  }

  kir::Bound getConstantBound(int64_t V) { return {std::to_string(V), V}; }

private:
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  llvm::DenseMap<clang::FileID, std::string> FileNames;
};

} // namespace qdc::frontend

#endif // QDC_LIB_FRONTEND_ASTHELPERS_H
