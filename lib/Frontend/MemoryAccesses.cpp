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
using clang::dyn_cast_or_null;
using clang::isa;

namespace {

/// E without parentheses, the `.member` of a struct value and the
/// component of a qd::vec or qd::mat around it: `a[i].x = 1` and
/// `a[i][2] = 1` write a[i].
const clang::Expr *getBase(const clang::Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (isComponentAccess(E)) {
      E = cast<clang::CXXOperatorCallExpr>(E)->getArg(0);
      continue;
    }
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
  Element Out;
  const clang::Expr *Object = nullptr;
  if (const auto *Op = dyn_cast<clang::CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() != clang::OO_Subscript &&
        Op->getOperator() != clang::OO_Call)
      return std::nullopt;
    Object = Op->getArg(0);
    clang::QualType T = Object->IgnoreParenImpCasts()->getType();
    if (!getQdSpecialization(T, "field") && !getQdSpecialization(T, "ndarray"))
      return std::nullopt;
    for (unsigned I = 1; I < Op->getNumArgs(); ++I)
      Out.Indices.push_back(Op->getArg(I));
  } else if (const auto *AS = dyn_cast<clang::ArraySubscriptExpr>(S)) {
    Object = AS->getBase();
    if (!Object->IgnoreParenImpCasts()->getType()->isPointerType())
      return std::nullopt;
    Out.Indices.push_back(AS->getIdx());
  } else {
    return std::nullopt;
  }
  Out.Array = resolveArray(Object, Out.Exact);
  if (!Out.Array)
    return std::nullopt;
  return Out;
}

const clang::ValueDecl *MemoryAccesses::resolveArray(const clang::Expr *E,
                                                     bool &Exact,
                                                     unsigned Depth) {
  if (!E || Depth > 64)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  // A copy of an ndarray (by value to a function, or `auto y = x;`) is a
  // view of the same memory.
  if (const auto *C = dyn_cast<clang::CXXConstructExpr>(E))
    return C->getNumArgs() == 1 ? resolveArray(C->getArg(0), Exact, Depth + 1)
                                : nullptr;
  if (const auto *B = dyn_cast<clang::BinaryOperator>(E))
    if (B->isAdditiveOp() && B->getType()->isPointerType()) {
      Exact = false;
      const clang::Expr *Ptr =
          B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
      return resolveArray(Ptr, Exact, Depth + 1);
    }
  if (const auto *U = dyn_cast<clang::UnaryOperator>(E))
    if (U->getOpcode() == clang::UO_AddrOf) {
      // `&p[k]` and `&a[k]`: a pointer into the array.
      Exact = false;
      std::optional<Element> Inner = getElement(U->getSubExpr()->IgnoreParens());
      return Inner ? Inner->Array : nullptr;
    }
  const auto *Ref = dyn_cast<clang::DeclRefExpr>(E);
  if (!Ref)
    return nullptr;
  const auto *V = dyn_cast<clang::VarDecl>(Ref->getDecl());
  if (!V)
    return nullptr;
  if (isa<clang::ParmVarDecl>(V))
    return V;
  if (V->hasGlobalStorage())
    return getQdSpecialization(V->getType(), "field") ? V : nullptr;
  // A local reference, copy or pointer: what it was initialized from.
  return resolveArray(V->getInit(), Exact, Depth + 1);
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

std::string MemoryAccesses::getMemberPath(const clang::Stmt *S,
                                          const clang::Stmt *Parent) {
  if (!Parent)
    return "";
  for (const clang::Stmt *Child : Parent->children()) {
    const auto *E = dyn_cast_or_null<clang::Expr>(Child);
    if (!E || getBase(E) != S)
      continue;
    std::string Path;
    for (E = E->IgnoreParens(); E != S; E = E->IgnoreParens()) {
      // A component `[k]` of a member: that member, whole.
      if (isComponentAccess(E)) {
        Path.clear();
        E = cast<clang::CXXOperatorCallExpr>(E)->getArg(0);
        continue;
      }
      const auto *M = dyn_cast<clang::MemberExpr>(E);
      if (!M)
        return "";
      std::string Name = M->getMemberDecl()->getNameAsString();
      Path = Path.empty() ? Name : Name + "." + Path;
      E = M->getBase();
    }
    return Path;
  }
  return "";
}

std::optional<kir::MemoryAccess::Index>
MemoryAccesses::getAffine(const clang::Expr *E,
                          llvm::ArrayRef<const clang::ValueDecl *> Vars) const {
  using Index = kir::MemoryAccess::Index;
  E = E->IgnoreParenCasts();
  if (const auto *Default = dyn_cast<clang::CXXDefaultArgExpr>(E))
    E = Default->getExpr()->IgnoreParenCasts();
  if (!E->isValueDependent()) {
    clang::Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx))
      return Index{-1, 0, R.Val.getInt().getExtValue()};
  }
  if (const auto *Ref = dyn_cast<clang::DeclRefExpr>(E)) {
    for (size_t D = 0; D < Vars.size(); ++D)
      if (Ref->getDecl() == Vars[D])
        return Index{int(D), 1, 0};
    return std::nullopt;
  }
  if (const auto *UO = dyn_cast<clang::UnaryOperator>(E))
    if (UO->getOpcode() == clang::UO_Minus)
      if (std::optional<Index> A = getAffine(UO->getSubExpr(), Vars))
        return Index{A->Dim, -A->Coef, -A->Offset};
  const auto *BO = dyn_cast<clang::BinaryOperator>(E);
  if (!BO)
    return std::nullopt;
  std::optional<Index> L = getAffine(BO->getLHS(), Vars);
  std::optional<Index> R = getAffine(BO->getRHS(), Vars);
  if (!L || !R)
    return std::nullopt;
  switch (BO->getOpcode()) {
  case clang::BO_Add:
  case clang::BO_Sub: {
    int64_t Sign = BO->getOpcode() == clang::BO_Add ? 1 : -1;
    if (L->Dim >= 0 && R->Dim >= 0 && L->Dim != R->Dim)
      return std::nullopt; // two index variables: not followed
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

kir::MemoryAccess
MemoryAccesses::describe(const Element &E, const clang::Stmt *S,
                         const clang::Stmt *Parent, bool Conditional,
                         llvm::ArrayRef<const clang::ValueDecl *> Vars) {
  kir::MemoryAccess A;
  std::tie(A.Write, A.Atomic) = classify(S, Parent);
  A.Member = getMemberPath(S, Parent);
  A.Conditional = Conditional;
  A.Loc = Src.getLoc(S->getBeginLoc());
  A.IndicesKnown = E.Exact;
  for (const clang::Expr *I : E.Indices) {
    std::optional<kir::MemoryAccess::Index> X;
    if (A.IndicesKnown)
      X = getAffine(I, Vars);
    if (!X) {
      A.IndicesKnown = false;
      A.Indices.clear();
      break;
    }
    A.Indices.push_back(*X);
  }
  return A;
}

void MemoryAccesses::substitute(
    kir::MemoryAccess &F, const clang::CallExpr *Call, unsigned Shift,
    bool Conditional, llvm::ArrayRef<const clang::ValueDecl *> Vars) const {
  F.Conditional = F.Conditional || Conditional;
  for (kir::MemoryAccess::Index &X : F.Indices) {
    if (!F.IndicesKnown || X.Dim < 0)
      continue;
    std::optional<kir::MemoryAccess::Index> Arg;
    if (unsigned(X.Dim) + Shift < Call->getNumArgs())
      Arg = getAffine(Call->getArg(X.Dim + Shift), Vars);
    if (!Arg) {
      F.IndicesKnown = false;
      break;
    }
    X = {Arg->Dim, X.Coef * Arg->Coef, X.Coef * Arg->Offset + X.Offset};
    if (X.Coef == 0)
      X.Dim = -1;
  }
  if (!F.IndicesKnown)
    F.Indices.clear();
}

void MemoryAccesses::note(const clang::Stmt *S, const clang::Stmt *Parent,
                          bool Conditional, const clang::FunctionDecl *Kernel,
                          llvm::ArrayRef<const clang::ValueDecl *> LoopIndices,
                          std::vector<kir::MemoryAccess> &Out) {
  if (std::optional<Element> E = getElement(S)) {
    const auto *V = dyn_cast<clang::VarDecl>(E->Array);
    const auto *P = dyn_cast<clang::ParmVarDecl>(E->Array);
    kir::MemoryAccess A;
    if (P && P->getDeclContext() == Kernel) {
      A = describe(*E, S, Parent, Conditional, LoopIndices);
      A.On = kir::MemoryAccess::Param;
      A.Name = P->getNameAsString();
    } else if (V && !P && V->hasGlobalStorage()) {
      A = describe(*E, S, Parent, Conditional, LoopIndices);
      A.On = kir::MemoryAccess::Field;
      A.Name = V->getQualifiedNameAsString();
    } else {
      return;
    }
    Out.push_back(std::move(A));
    return;
  }
  const auto *Call = dyn_cast<clang::CallExpr>(S);
  if (!Call)
    return;
  SourceLoc At = Src.getLoc(Call->getBeginLoc());
  addCallee(
      Call, Kernel, Conditional, LoopIndices,
      [&](const kir::MemoryAccess &F) {
        kir::MemoryAccess A = F;
        A.Loc = At; // at the call, in the kernel
        Out.push_back(std::move(A));
      },
      [&](unsigned Arg, const kir::MemoryAccess &Use) {
        bool Exact = true;
        const auto *P = dyn_cast_or_null<clang::ParmVarDecl>(
            resolveArray(Call->getArg(Arg), Exact));
        if (!P || P->getDeclContext() != Kernel)
          return;
        kir::MemoryAccess A = Use;
        A.On = kir::MemoryAccess::Param;
        A.Name = P->getNameAsString();
        A.Loc = At;
        if (!Exact) {
          A.IndicesKnown = false;
          A.Indices.clear();
        }
        Out.push_back(std::move(A));
      });
}

void MemoryAccesses::addCallee(
    const clang::CallExpr *Call, const clang::FunctionDecl *Caller,
    bool Conditional, llvm::ArrayRef<const clang::ValueDecl *> Vars,
    const std::function<void(const kir::MemoryAccess &)> &Field,
    const std::function<void(unsigned, const kir::MemoryAccess &)> &Param) {
  const clang::FunctionDecl *FD = Call->getDirectCallee();
  const clang::FunctionDecl *Def = nullptr;
  if (!FD || FD == Caller || !FD->hasBody(Def) ||
      Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return;
  const Summary &Sum = summarize(Def);
  unsigned Shift =
      isa<clang::CXXOperatorCallExpr>(Call) && isa<clang::CXXMethodDecl>(Def)
          ? 1
          : 0;
  for (kir::MemoryAccess F : Sum.Fields) {
    substitute(F, Call, Shift, Conditional, Vars);
    Field(F);
  }
  for (const Summary::ParamUse &Use : Sum.Params)
    if (Use.Index + Shift < Call->getNumArgs()) {
      kir::MemoryAccess A = Use.Access;
      substitute(A, Call, Shift, Conditional, Vars);
      Param(Use.Index + Shift, A);
    }
}

/// Whether a `return` (outside lambdas) may end Body before its last
/// statement.
static bool hasEarlyReturn(const clang::Stmt *Body) {
  const auto *CS = dyn_cast_or_null<clang::CompoundStmt>(Body);
  const clang::Stmt *Last = CS && !CS->body_empty() ? CS->body_back() : nullptr;
  std::vector<std::pair<const clang::Stmt *, unsigned>> Work = {{Body, 0}};
  while (!Work.empty()) {
    auto [S, Depth] = Work.back();
    Work.pop_back();
    if (!S || isa<clang::LambdaExpr>(S))
      continue;
    if (isa<clang::ReturnStmt>(S) && S != Last)
      return true;
    if (Depth > MaxDepth)
      return true;
    for (const clang::Stmt *Child : S->children())
      Work.push_back({Child, Depth + 1});
  }
  return false;
}

/// Whether S may run its children fewer times than it runs (or more):
/// a branch, a loop, a lambda.
static bool isBranch(const clang::Stmt *S) {
  const auto *Logic = dyn_cast<clang::BinaryOperator>(S);
  return isa<clang::IfStmt>(S) || isa<clang::SwitchStmt>(S) ||
         isa<clang::ConditionalOperator>(S) || isa<clang::LambdaExpr>(S) ||
         isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
         isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S) ||
         (Logic && Logic->isLogicalOp());
}

const MemoryAccesses::Summary &
MemoryAccesses::summarize(const clang::FunctionDecl *FD) {
  auto [It, Inserted] = Summaries.try_emplace(FD);
  if (!Inserted)
    return *It->second; // done, or being done (recursion)
  It->second = std::make_unique<Summary>();
  Summary Out;
  std::vector<const clang::ValueDecl *> Params(FD->param_begin(),
                                               FD->param_end());
  // A return before the end may skip what follows: then nothing of the
  // function is done on every call.
  unsigned Branches = hasEarlyReturn(FD->getBody()) ? 1 : 0;
  summarizeNode(FD->getBody(), nullptr, FD, Params, Out, Branches, 0);
  *Summaries[FD] = std::move(Out);
  return *Summaries[FD];
}

void MemoryAccesses::summarizeNode(
    const clang::Stmt *S, const clang::Stmt *Parent,
    const clang::FunctionDecl *FD,
    llvm::ArrayRef<const clang::ValueDecl *> Params, Summary &Out,
    unsigned Branches, unsigned Depth) {
  if (!S || Depth > MaxDepth)
    return;
  bool Conditional = Branches > 0;
  if (std::optional<Element> E = getElement(S)) {
    const auto *V = dyn_cast<clang::VarDecl>(E->Array);
    const auto *P = dyn_cast<clang::ParmVarDecl>(E->Array);
    if (P && P->getDeclContext() == FD) {
      Out.Params.push_back({P->getFunctionScopeIndex(),
                            describe(*E, S, Parent, Conditional, Params)});
    } else if (V && !P && V->hasGlobalStorage()) {
      kir::MemoryAccess A = describe(*E, S, Parent, Conditional, Params);
      A.Name = V->getQualifiedNameAsString();
      Out.Fields.push_back(std::move(A));
    }
  } else if (const auto *Call = dyn_cast<clang::CallExpr>(S)) {
    addCallee(
        Call, FD, Conditional, Params,
        [&](const kir::MemoryAccess &F) { Out.Fields.push_back(F); },
        [&](unsigned Arg, const kir::MemoryAccess &Use) {
          bool Exact = true;
          const auto *P = dyn_cast_or_null<clang::ParmVarDecl>(
              resolveArray(Call->getArg(Arg), Exact));
          if (!P || P->getDeclContext() != FD || !isArrayType(P->getType()))
            return;
          kir::MemoryAccess A = Use;
          if (!Exact) {
            A.IndicesKnown = false;
            A.Indices.clear();
          }
          Out.Params.push_back({P->getFunctionScopeIndex(), std::move(A)});
        });
  }
  const auto *Member = dyn_cast<clang::MemberExpr>(S);
  const clang::Stmt *ChildParent = isa<clang::ParenExpr>(S) ||
                                           (Member && !Member->isArrow()) ||
                                           isComponentAccess(S)
                                       ? Parent
                                       : S;
  unsigned Inner = Branches + isBranch(S);
  for (const clang::Stmt *Child : S->children())
    summarizeNode(Child, ChildParent, FD, Params, Out, Inner, Depth + 1);
}
