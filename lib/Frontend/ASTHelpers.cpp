//===- ASTHelpers.cpp - Reading the prelude's vocabulary in the AST -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "ASTHelpers.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

#include "llvm/ADT/StringExtras.h"

using namespace qdc;
using clang::dyn_cast;
using clang::dyn_cast_or_null;
using clang::isa;

namespace qdc::frontend {

bool hasAnnotation(const clang::Decl *D, llvm::StringRef Name) {
  for (const auto *A : D->specific_attrs<clang::AnnotateAttr>())
    if (A->getAnnotation() == Name)
      return true;
  return false;
}

/// True when DC is namespace `qd` (or `qd::<Inner>` when Inner is given) at
/// file scope.
bool isQdContext(const clang::DeclContext *DC, llvm::StringRef Inner) {
  DC = DC->getRedeclContext();
  const auto *NS = dyn_cast<clang::NamespaceDecl>(DC);
  if (!NS)
    return false;
  if (!Inner.empty()) {
    if (NS->getName() != Inner)
      return false;
    NS = dyn_cast<clang::NamespaceDecl>(NS->getParent()->getRedeclContext());
    if (!NS)
      return false;
  }
  return NS->getName() == "qd" &&
         NS->getParent()->getRedeclContext()->isTranslationUnit();
}

/// The specialization of class template qd::<Name> that T is, or null.
const clang::ClassTemplateSpecializationDecl *
getQdSpecialization(clang::QualType T, llvm::StringRef Name) {
  const auto *Spec = dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      T.getCanonicalType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getName() != Name || !isQdContext(Spec->getDeclContext()))
    return nullptr;
  return Spec;
}

bool isQdFunction(const clang::FunctionDecl *FD, llvm::StringRef Name) {
  return FD && !isa<clang::CXXMethodDecl>(FD) && FD->getIdentifier() &&
         FD->getName() == Name && isQdContext(FD->getDeclContext());
}

bool isGraphDoWhile(const clang::FunctionDecl *FD) {
  return FD && FD->getIdentifier() && FD->getName() == "do_while" &&
         isQdContext(FD->getDeclContext(), "graph");
}

const clang::CallExpr *getGraphDoWhile(const clang::Stmt *S) {
  const auto *W = dyn_cast_or_null<clang::WhileStmt>(S);
  if (!W || W->getConditionVariable())
    return nullptr;
  const auto *Call =
      dyn_cast<clang::CallExpr>(W->getCond()->IgnoreImplicit()->IgnoreParens());
  return Call && isGraphDoWhile(Call->getDirectCallee()) ? Call : nullptr;
}

/// qd::simt::block, at file scope.
static bool isSimtBlock(const clang::DeclContext *DC) {
  const auto *NS = dyn_cast<clang::NamespaceDecl>(DC);
  return NS && NS->getName() == "block" && isQdContext(NS->getParent(), "simt");
}

bool isBlockSync(const clang::FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier() || !isSimtBlock(FD->getDeclContext()))
    return false;
  // The block-wide operations wait at block barriers, as sync() does.
  return llvm::is_contained({"sync", "reduce_add", "reduce_min", "reduce_max",
                             "inclusive_add", "exclusive_add", "count", "any",
                             "all"},
                            FD->getName());
}

bool isComponentAccess(const clang::Stmt *S) {
  const auto *Op = dyn_cast<clang::CXXOperatorCallExpr>(S);
  if (!Op || Op->getNumArgs() == 0 ||
      (Op->getOperator() != clang::OO_Subscript &&
       Op->getOperator() != clang::OO_Call))
    return false;
  clang::QualType T = Op->getArg(0)->getType();
  return getQdSpecialization(T, "vec") || getQdSpecialization(T, "mat");
}

bool isSharedArrayType(clang::QualType T) {
  if (T.isNull())
    return false;
  const auto *Spec = dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      T.getCanonicalType()->getAsCXXRecordDecl());
  if (Spec)
    return Spec->getName() == "shared_array" &&
           isSimtBlock(Spec->getDeclContext());
  // In a template, `shared_array<T, N>` is a dependent specialization: it
  // is one all the same (each instantiation would be).
  if (const auto *TST = T->getAs<clang::TemplateSpecializationType>())
    if (const clang::TemplateDecl *TD =
            TST->getTemplateName().getAsTemplateDecl())
      return TD->getName() == "shared_array" &&
             isSimtBlock(TD->getDeclContext());
  return false;
}

/// The callee of a statement of the form `qd::<Name>(...)`, as a call.
const clang::CallExpr *getQdCall(const clang::Stmt *S, llvm::StringRef Name) {
  const auto *E = dyn_cast_or_null<clang::Expr>(S);
  if (!E)
    return nullptr;
  const auto *Call = dyn_cast<clang::CallExpr>(E->IgnoreImplicit());
  if (!Call || !isQdFunction(Call->getDirectCallee(), Name))
    return nullptr;
  return Call;
}

/// QD_STREAM_PARALLEL expands to `if (qd::detail::stream_parallel_block v{};
/// true)`: recognise it by the type of the variable in the init-statement.
bool isStreamParallelBlock(const clang::Stmt *S) {
  const auto *If = dyn_cast_or_null<clang::IfStmt>(S);
  if (!If)
    return false;
  const auto *DS = dyn_cast_or_null<clang::DeclStmt>(If->getInit());
  if (!DS || !DS->isSingleDecl())
    return false;
  const auto *V = dyn_cast<clang::VarDecl>(DS->getSingleDecl());
  if (!V)
    return false;
  const auto *RD = V->getType().getCanonicalType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         RD->getName() == "stream_parallel_block" &&
         isQdContext(RD->getDeclContext(), "detail");
}

std::optional<kir::ScalarType> getScalarType(clang::QualType T,
                                             const clang::ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  const auto *BT = dyn_cast<clang::BuiltinType>(T);
  if (!BT)
    return std::nullopt;
  unsigned Bytes = Ctx.getTypeSize(T) / 8;
  if (BT->getKind() == clang::BuiltinType::Bool)
    return kir::findScalarType(kir::ScalarKind::Bool, Bytes);
  if (BT->getKind() == clang::BuiltinType::Float ||
      BT->getKind() == clang::BuiltinType::Double)
    return kir::findScalarType(kir::ScalarKind::Float, Bytes);
  // Plain char is text, not a number; signed and unsigned char are
  // int8_t and uint8_t.
  if (!BT->isInteger() || BT->getKind() == clang::BuiltinType::Char_S ||
      BT->getKind() == clang::BuiltinType::Char_U || BT->isWideCharType() ||
      BT->isChar8Type() || BT->isChar16Type() || BT->isChar32Type())
    return std::nullopt;
  return kir::findScalarType(BT->isSignedInteger() ? kir::ScalarKind::Signed
                                                   : kir::ScalarKind::Unsigned,
                             Bytes);
}

/// The enclosing namespaces, qualified ("a::b"), unnamed ones left out.
std::string getScope(const clang::DeclContext *DC) {
  llvm::SmallVector<std::string, 2> Parts;
  for (DC = DC->getRedeclContext(); DC && !DC->isTranslationUnit();
       DC = DC->getParent()->getRedeclContext())
    if (const auto *NS = dyn_cast<clang::NamespaceDecl>(DC))
      if (!NS->isAnonymousNamespace())
        Parts.insert(Parts.begin(), NS->getNameAsString());
  return llvm::join(Parts, "::");
}

} // namespace qdc::frontend
