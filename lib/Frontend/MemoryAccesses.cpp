//===- MemoryAccesses.cpp - What a statement reads and writes -------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "MemoryAccesses.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace qdc;
using namespace qdc::frontend;
using clang::cast;
using clang::dyn_cast;
using clang::isa;

namespace {

/// E without parentheses and the `.member` of a struct value around it:
/// `a[i].x = 1` writes a[i].
const clang::Expr *getBase(const clang::Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    const auto *M = dyn_cast<clang::MemberExpr>(E);
    if (!M || M->isArrow())
      return E;
    E = M->getBase();
  }
}

bool isNonConstReference(clang::QualType T) {
  return T->isReferenceType() && !T->getPointeeType().isConstQualified();
}

/// The array types whose elements are shared between tasks.
bool isArrayType(clang::QualType T) {
  return getQdSpecialization(T, "field") || getQdSpecialization(T, "ndarray") ||
         T->isPointerType();
}

constexpr unsigned MaxDepth = 4000;

} // namespace

std::optional<MemoryAccesses::Element>
MemoryAccesses::getElement(const clang::Stmt *S) {
  if (const auto *Op = dyn_cast<clang::CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() != clang::OO_Subscript &&
        Op->getOperator() != clang::OO_Call)
      return std::nullopt;
    const clang::Expr *Object = Op->getArg(0)->IgnoreParenImpCasts();
    clang::QualType T = Object->getType();
    if (!getQdSpecialization(T, "field") && !getQdSpecialization(T, "ndarray"))
      return std::nullopt;
    const auto *Ref = dyn_cast<clang::DeclRefExpr>(Object);
    if (!Ref)
      return std::nullopt;
    Element E{Ref->getDecl(), {}};
    for (unsigned I = 1; I < Op->getNumArgs(); ++I)
      E.Indices.push_back(Op->getArg(I));
    return E;
  }
  if (const auto *AS = dyn_cast<clang::ArraySubscriptExpr>(S)) {
    const auto *Ref =
        dyn_cast<clang::DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts());
    if (!Ref || !isa<clang::ParmVarDecl>(Ref->getDecl()) ||
        !Ref->getType()->isPointerType())
      return std::nullopt;
    return Element{Ref->getDecl(), {AS->getIdx()}};
  }
  return std::nullopt;
}

std::pair<bool, bool> MemoryAccesses::classify(const clang::Stmt *S,
                                               const clang::Stmt *Parent) {
  if (!Parent)
    return {false, false};
  if (const auto *BO = dyn_cast<clang::BinaryOperator>(Parent))
    return {BO->isAssignmentOp() && getBase(BO->getLHS()) == S, false};
  if (const auto *UO = dyn_cast<clang::UnaryOperator>(Parent))
    return {UO->isIncrementDecrementOp() || UO->getOpcode() == clang::UO_AddrOf,
            false};
  if (const auto *DS = dyn_cast<clang::DeclStmt>(Parent)) {
    // `auto &r = a[i];`: written through r, as far as qdc knows.
    for (const clang::Decl *D : DS->decls())
      if (const auto *V = dyn_cast<clang::VarDecl>(D))
        if (V->getInit() && V->getInit()->IgnoreParens() == S &&
            isNonConstReference(V->getType()))
          return {true, false};
    return {false, false};
  }
  if (const auto *Member = dyn_cast<clang::CXXMemberCallExpr>(Parent)) {
    const clang::CXXMethodDecl *M = Member->getMethodDecl();
    bool OnS = Member->getImplicitObjectArgument() &&
               getBase(Member->getImplicitObjectArgument()) == S;
    return {OnS && M && !M->isConst(), false};
  }
  const auto *Call = dyn_cast<clang::CallExpr>(Parent);
  if (!Call)
    return {false, false};
  const clang::FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return {true, false}; // through a function pointer: anything
  bool First = Call->getNumArgs() > 0 && getBase(Call->getArg(0)) == S;
  if (First && FD->getIdentifier() && FD->getName().starts_with("atomic_") &&
      isQdContext(FD->getDeclContext()))
    return {true, true};
  const auto *Op = dyn_cast<clang::CXXOperatorCallExpr>(Call);
  if (First && Op && Op->isAssignmentOp())
    return {true, false};
  // An argument bound to a reference to non-const.
  unsigned Shift = Op && isa<clang::CXXMethodDecl>(FD) ? 1 : 0;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (getBase(Call->getArg(I)) != S)
      continue;
    if (I < Shift) // the object of a member operator
      return {!cast<clang::CXXMethodDecl>(FD)->isConst(), false};
    if (I - Shift < FD->getNumParams() &&
        isNonConstReference(FD->getParamDecl(I - Shift)->getType()))
      return {true, false};
  }
  return {false, false};
}

std::optional<kir::MemoryAccess::Index> MemoryAccesses::getAffine(
    const clang::Expr *E,
    llvm::ArrayRef<const clang::ValueDecl *> LoopIndices) const {
  using Index = kir::MemoryAccess::Index;
  E = E->IgnoreParenCasts();
  if (!E->isValueDependent()) {
    clang::Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx))
      return Index{-1, 0, R.Val.getInt().getExtValue()};
  }
  if (const auto *Ref = dyn_cast<clang::DeclRefExpr>(E)) {
    for (size_t D = 0; D < LoopIndices.size(); ++D)
      if (Ref->getDecl() == LoopIndices[D])
        return Index{int(D), 1, 0};
    return std::nullopt;
  }
  if (const auto *UO = dyn_cast<clang::UnaryOperator>(E))
    if (UO->getOpcode() == clang::UO_Minus)
      if (std::optional<Index> A = getAffine(UO->getSubExpr(), LoopIndices))
        return Index{A->Dim, -A->Coef, -A->Offset};
  const auto *BO = dyn_cast<clang::BinaryOperator>(E);
  if (!BO)
    return std::nullopt;
  std::optional<Index> L = getAffine(BO->getLHS(), LoopIndices);
  std::optional<Index> R = getAffine(BO->getRHS(), LoopIndices);
  if (!L || !R)
    return std::nullopt;
  switch (BO->getOpcode()) {
  case clang::BO_Add:
  case clang::BO_Sub: {
    int64_t Sign = BO->getOpcode() == clang::BO_Add ? 1 : -1;
    if (L->Dim >= 0 && R->Dim >= 0 && L->Dim != R->Dim)
      return std::nullopt; // two loop indices: not followed
    int Dim = L->Dim >= 0 ? L->Dim : R->Dim;
    return Index{Dim, L->Coef + Sign * R->Coef, L->Offset + Sign * R->Offset};
  }
  case clang::BO_Mul:
    if (L->Dim < 0)
      return Index{R->Dim, R->Coef * L->Offset, R->Offset * L->Offset};
    if (R->Dim < 0)
      return Index{L->Dim, L->Coef * R->Offset, L->Offset * R->Offset};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

void MemoryAccesses::note(const clang::Stmt *S, const clang::Stmt *Parent,
                          bool Conditional, const clang::FunctionDecl *Kernel,
                          llvm::ArrayRef<const clang::ValueDecl *> LoopIndices,
                          std::vector<kir::MemoryAccess> &Out) {
  if (std::optional<Element> E = getElement(S)) {
    kir::MemoryAccess A;
    const auto *V = dyn_cast<clang::VarDecl>(E->Array);
    if (V && V->hasGlobalStorage() &&
        getQdSpecialization(V->getType(), "field")) {
      A.On = kir::MemoryAccess::Field;
      A.Name = V->getQualifiedNameAsString();
    } else if (const auto *P = dyn_cast<clang::ParmVarDecl>(E->Array);
               P && P->getDeclContext() == Kernel) {
      A.On = kir::MemoryAccess::Param;
      A.Name = P->getNameAsString();
    } else {
      return;
    }
    std::tie(A.Write, A.Atomic) = classify(S, Parent);
    A.Conditional = Conditional;
    A.Loc = Src.getLoc(S->getBeginLoc());
    A.IndicesKnown = true;
    for (const clang::Expr *I : E->Indices) {
      std::optional<kir::MemoryAccess::Index> X = getAffine(I, LoopIndices);
      if (!X) {
        A.IndicesKnown = false;
        A.Indices.clear();
        break;
      }
      A.Indices.push_back(*X);
    }
    Out.push_back(std::move(A));
    return;
  }
  const auto *Call = dyn_cast<clang::CallExpr>(S);
  if (!Call)
    return;
  SourceLoc At = Src.getLoc(Call->getBeginLoc());
  addCallee(
      Call, Kernel, [&](const kir::MemoryAccess &F) { Out.push_back(F); },
      [&](unsigned Arg, const Summary::ParamUse &Use) {
        const auto *Ref = dyn_cast<clang::DeclRefExpr>(
            Call->getArg(Arg)->IgnoreParenImpCasts());
        const auto *P =
            Ref ? dyn_cast<clang::ParmVarDecl>(Ref->getDecl()) : nullptr;
        if (!P || P->getDeclContext() != Kernel)
          return;
        kir::MemoryAccess A;
        A.On = kir::MemoryAccess::Param;
        A.Name = P->getNameAsString();
        A.Write = Use.Write;
        A.Atomic = Use.Atomic;
        A.Conditional = true;
        A.Loc = At;
        Out.push_back(std::move(A));
      });
}

void MemoryAccesses::addCallee(
    const clang::CallExpr *Call, const clang::FunctionDecl *Caller,
    const std::function<void(const kir::MemoryAccess &)> &Field,
    const std::function<void(unsigned, const Summary::ParamUse &)> &Param) {
  const clang::FunctionDecl *FD = Call->getDirectCallee();
  const clang::FunctionDecl *Def = nullptr;
  if (!FD || FD == Caller || !FD->hasBody(Def) ||
      Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return;
  const Summary &Sum = summarize(Def);
  for (kir::MemoryAccess F : Sum.Fields) {
    F.Loc = Src.getLoc(Call->getBeginLoc()); // at the call, in the kernel
    Field(F);
  }
  unsigned Shift =
      isa<clang::CXXOperatorCallExpr>(Call) && isa<clang::CXXMethodDecl>(Def)
          ? 1
          : 0;
  for (const Summary::ParamUse &Use : Sum.Params)
    if (Use.Index + Shift < Call->getNumArgs())
      Param(Use.Index + Shift, Use);
}

const MemoryAccesses::Summary &
MemoryAccesses::summarize(const clang::FunctionDecl *FD) {
  auto [It, Inserted] = Summaries.try_emplace(FD);
  if (!Inserted)
    return *It->second; // done, or being done (recursion)
  It->second = std::make_unique<Summary>();
  Summary Out;
  summarizeNode(FD->getBody(), nullptr, FD, Out, 0);
  *Summaries[FD] = std::move(Out);
  return *Summaries[FD];
}

void MemoryAccesses::summarizeNode(const clang::Stmt *S,
                                   const clang::Stmt *Parent,
                                   const clang::FunctionDecl *FD, Summary &Out,
                                   unsigned Depth) {
  if (!S || Depth > MaxDepth)
    return;
  if (std::optional<Element> E = getElement(S)) {
    auto [Write, Atomic] = classify(S, Parent);
    const auto *V = dyn_cast<clang::VarDecl>(E->Array);
    if (V && V->hasGlobalStorage() &&
        getQdSpecialization(V->getType(), "field")) {
      kir::MemoryAccess A;
      A.Name = V->getQualifiedNameAsString();
      A.Write = Write;
      A.Atomic = Atomic;
      A.Conditional = true;
      Out.Fields.push_back(std::move(A));
    } else if (const auto *P = dyn_cast<clang::ParmVarDecl>(E->Array);
               P && P->getDeclContext() == FD) {
      Out.Params.push_back({P->getFunctionScopeIndex(), Write, Atomic, {}});
    }
  } else if (const auto *Call = dyn_cast<clang::CallExpr>(S)) {
    addCallee(
        Call, FD, [&](const kir::MemoryAccess &F) { Out.Fields.push_back(F); },
        [&](unsigned Arg, const Summary::ParamUse &Use) {
          const auto *Ref = dyn_cast<clang::DeclRefExpr>(
              Call->getArg(Arg)->IgnoreParenImpCasts());
          const auto *P =
              Ref ? dyn_cast<clang::ParmVarDecl>(Ref->getDecl()) : nullptr;
          if (P && P->getDeclContext() == FD && isArrayType(P->getType()))
            Out.Params.push_back(
                {P->getFunctionScopeIndex(), Use.Write, Use.Atomic, {}});
        });
  }
  const auto *Member = dyn_cast<clang::MemberExpr>(S);
  const clang::Stmt *ChildParent =
      isa<clang::ParenExpr>(S) || (Member && !Member->isArrow()) ? Parent : S;
  for (const clang::Stmt *Child : S->children())
    summarizeNode(Child, ChildParent, FD, Out, Depth + 1);
}
