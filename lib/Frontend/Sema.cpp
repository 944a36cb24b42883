//===- Sema.cpp - The AST-level rules of the kernel language --------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "Sema.h"

#include "qd/detail/math_list.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <optional>
#include <utility>

using namespace qdc;
using namespace qdc::frontend;
using clang::isa;

/// Whether Name has a byte outside ASCII.
static bool isNonAscii(llvm::StringRef Name) {
  return llvm::any_of(Name, [](char C) { return (unsigned char)C >= 0x80; });
}

bool Sema::checkSymbolName(const clang::NamedDecl *D, llvm::StringRef What) {
  std::string Name = D->getNameAsString();
  if (!isNonAscii(Name) && !isNonAscii(getScope(D->getDeclContext())))
    return true;
  Diags.report(DiagID::err_non_ascii_symbol, Src.getLoc(D->getLocation()))
      << What << D->getQualifiedNameAsString();
  return false;
}

bool Sema::checkKernelUnique(const clang::FunctionDecl *FD) {
  auto [It, Inserted] = Kernels.try_emplace(FD->getQualifiedNameAsString(), FD);
  if (Inserted)
    return true;
  Diags.report(DiagID::err_kernel_overloaded, Src.getLoc(FD->getLocation()))
      << FD->getNameAsString();
  Diags.report(DiagID::note_kernel_first, Src.getLoc(It->second->getLocation()))
      << FD->getNameAsString();
  return false;
}

/// Whether a function of the C++ library (a system header) can run on the
/// device: qd's own, builtins and constexpr functions (which Clang's CUDA
/// mode makes host and device) and what the compiler writes itself.
static bool isLibraryDeviceCallable(const clang::FunctionDecl *F) {
  if (F->isConstexpr() || F->isImplicit() || F->isDefaulted())
    return true;
  const clang::NamespaceDecl *Outermost = nullptr;
  for (const clang::DeclContext *DC = F->getDeclContext(); DC;
       DC = DC->getParent())
    if (const auto *NS = llvm::dyn_cast<clang::NamespaceDecl>(DC))
      Outermost = NS;
  if (Outermost && Outermost->getName() == "qd")
    return true;
  if (const clang::FunctionDecl *Pattern = F->getTemplateInstantiationPattern())
    return isLibraryDeviceCallable(Pattern);
  return false;
}

/// The C library's math function Name (or its `f`/`l` variant) that the
/// GPU code generators lower without a math library; the others need
/// qd::'s versions (libdevice, the ROCm device libraries).
static bool isNativeMath(llvm::StringRef Name) {
  static const llvm::StringSet<> Native = {
      "sqrt", "fabs",  "abs",  "floor",     "ceil",     "trunc", "fmin",
      "fmax", "round", "rint", "nearbyint", "copysign", "fma",   "fmod"};
  return Native.contains(Name) ||
         ((Name.ends_with("f") || Name.ends_with("l")) &&
          Native.contains(Name.drop_back()));
}

static bool isMathLibraryName(llvm::StringRef Name) {
  static const llvm::StringSet<> Math = {
      "acos",    "acosh",     "asin",       "asinh",  "atan",      "atan2",
      "atanh",   "cbrt",      "cos",        "cosh",   "erf",       "erfc",
      "exp",     "exp2",      "expm1",      "fdim",   "frexp",     "hypot",
      "ilogb",   "ldexp",     "lgamma",     "llrint", "llround",   "log",
      "log10",   "log1p",     "log2",       "logb",   "lrint",     "lround",
      "modf",    "nextafter", "nexttoward", "pow",    "remainder", "remquo",
      "scalbln", "scalbn",    "sin",        "sinh",   "tan",       "tanh",
      "tgamma"};
  return Math.contains(Name) || ((Name.ends_with("f") || Name.ends_with("l")) &&
                                 Math.contains(Name.drop_back()));
}

/// Whether qd/detail/device_cmath.h gives Callee, a C math function, a
/// device version: `expf`, `exp` and `std::exp(float)` of the functions
/// with a qd:: version and of those the compiler does itself, on float
/// and double (not long double, and not libstdc++'s templates for integer
/// arguments).
static bool hasDeviceCMath(const clang::FunctionDecl *Callee) {
  // The lists qd/detail/device_cmath.h defines them from.
#define QD_NAME_(name) #name,
  static const llvm::StringSet<> Promoted = {
      QD_MATH_LIBRARY_1_(QD_NAME_) QD_MATH_LIBRARY_2_(QD_NAME_)};
  static const llvm::StringSet<> Builtin = {"sqrt", "floor", "ceil", "trunc",
                                            "fabs", "fmin",  "fmax", "fma"};
#undef QD_NAME_
  auto Has = [](llvm::StringRef N) {
    return Promoted.contains(N) || Builtin.contains(N);
  };
  if (Callee->isVariadic())
    return false;
  llvm::StringRef Name = Callee->getName();
  // libstdc++'s templates for integer and mixed arguments (`std::exp(int)`,
  // `std::pow(float, int)`), of the functions with a qd:: version.
  if (Callee->getPrimaryTemplate()) {
    const auto *R =
        Callee->getReturnType().getCanonicalType()->getAs<clang::BuiltinType>();
    return Callee->isInStdNamespace() && Promoted.contains(Name) && R &&
           R->getKind() == clang::BuiltinType::Double &&
           llvm::all_of(Callee->parameters(), [](const clang::ParmVarDecl *P) {
             const auto *B =
                 P->getType().getCanonicalType()->getAs<clang::BuiltinType>();
             return B && B->getKind() != clang::BuiltinType::LongDouble &&
                    (B->isInteger() || B->isFloatingPoint());
           });
  }
  bool Float = !Has(Name) && Name.ends_with("f") && Has(Name.drop_back());
  if (!Float && !Has(Name))
    return false;
  auto IsFloating = [](clang::QualType T) {
    const auto *B = T.getCanonicalType()->getAs<clang::BuiltinType>();
    return B && (B->getKind() == clang::BuiltinType::Float ||
                 B->getKind() == clang::BuiltinType::Double);
  };
  if (!IsFloating(Callee->getReturnType()))
    return false;
  return llvm::all_of(Callee->parameters(), [&](const clang::ParmVarDecl *P) {
    return IsFloating(P->getType());
  });
}

/// C library functions (Clang builtins) that device code may call: memory
/// copies and fills become LLVM intrinsics, printf the GPU's own.
static bool isDeviceLibraryBuiltin(llvm::StringRef Name) {
  return isNativeMath(Name) ||
         llvm::is_contained(
             {"printf", "memcpy", "memset", "memmove", "labs", "llabs"}, Name);
}

/// The index of `a[i, j]`, a comma expression written as the subscript
/// (C++20 reads it as the comma operator, `a[j]`); null for anything else,
/// including the explicit `a[(i, j)]`.
static const clang::Expr *getCommaSubscript(const clang::Stmt *S) {
  const clang::Expr *Index = nullptr;
  if (const auto *AS = clang::dyn_cast<clang::ArraySubscriptExpr>(S))
    Index = AS->getIdx();
  else if (const auto *Op = clang::dyn_cast<clang::CXXOperatorCallExpr>(S))
    if (Op->getOperator() == clang::OO_Subscript && Op->getNumArgs() == 2)
      Index = Op->getArg(1);
  if (!Index)
    return nullptr;
  const auto *Comma =
      clang::dyn_cast<clang::BinaryOperator>(Index->IgnoreImplicit());
  return Comma && Comma->getOpcode() == clang::BO_Comma ? Comma : nullptr;
}

/// The subscripted variable's name, for the message; "a" otherwise.
static std::string getSubscriptBaseName(const clang::Stmt *S) {
  const clang::Expr *Base = nullptr;
  if (const auto *AS = clang::dyn_cast<clang::ArraySubscriptExpr>(S))
    Base = AS->getBase();
  else
    Base = clang::cast<clang::CXXOperatorCallExpr>(S)->getArg(0);
  if (const auto *Ref =
          clang::dyn_cast<clang::DeclRefExpr>(Base->IgnoreParenImpCasts()))
    return Ref->getDecl()->getNameAsString();
  return "a";
}

void Sema::checkDeviceNode(const clang::Stmt *S) {
  if (!CheckDeviceCode)
    return;
  if (isa<clang::CXXNewExpr>(S) || isa<clang::CXXDeleteExpr>(S)) {
    Diags.report(DiagID::err_device_new, Src.getLoc(S->getBeginLoc()))
        << (isa<clang::CXXNewExpr>(S) ? "new" : "delete");
    return;
  }
  if (isa<clang::AsmStmt>(S)) {
    Diags.report(DiagID::err_device_asm, Src.getLoc(S->getBeginLoc()));
    return;
  }
  if (isa<clang::CXXThrowExpr>(S) || isa<clang::CXXTryStmt>(S)) {
    Diags.report(DiagID::err_device_throw, Src.getLoc(S->getBeginLoc()));
    return;
  }
  if (const auto *Ref = clang::dyn_cast<clang::DeclRefExpr>(S)) {
    checkDeviceVariable(Ref);
    return;
  }
  if (const clang::Expr *Index = getCommaSubscript(S)) {
    Diags.report(DiagID::err_comma_subscript, Src.getLoc(Index->getExprLoc()))
        << getSubscriptBaseName(S);
    return;
  }
  // Only calls and constructions go further: a node's begin location
  // walks down to its leftmost leaf, which is quadratic on a long chain
  // like `1 + 1 + ...` if asked of every node.
  const clang::FunctionDecl *Callee = nullptr;
  if (const auto *Call = clang::dyn_cast<clang::CallExpr>(S))
    Callee = Call->getDirectCallee();
  else if (const auto *Construct = clang::dyn_cast<clang::CXXConstructExpr>(S))
    Callee = Construct->getConstructor();
  if (!Callee || Callee->isDeleted())
    return;
  bool InLibrary =
      Ctx.getSourceManager().isInSystemHeader(Callee->getLocation());
  llvm::StringRef Name =
      Callee->getIdentifier() ? Callee->getName() : llvm::StringRef();
  bool Std = Callee->isInStdNamespace() ||
             Callee->getDeclContext()->getRedeclContext()->isTranslationUnit();
  if (InLibrary && Std && (isMathLibraryName(Name) || isNativeMath(Name))) {
    if (hasDeviceCMath(Callee)) {
      UsesCMath = true;
      return;
    }
    if (isMathLibraryName(Name)) {
      Diags.report(DiagID::err_device_libm, Src.getLoc(S->getBeginLoc()))
          << Callee->getQualifiedNameAsString();
      return;
    }
  }
  if (unsigned ID = Callee->getBuiltinID()) {
    if (Ctx.BuiltinInfo.isPredefinedLibFunction(ID) &&
        !isDeviceLibraryBuiltin(Name))
      Diags.report(DiagID::err_device_host_call, Src.getLoc(S->getBeginLoc()))
          << Callee->getQualifiedNameAsString();
    return;
  }
  // assert: qd/detail/kernel.h has its device version.
  if (InLibrary && Name == "__assert_fail")
    return;
  if (InLibrary) {
    if (!isLibraryDeviceCallable(Callee))
      Diags.report(DiagID::err_device_host_call, Src.getLoc(S->getBeginLoc()))
          << Callee->getQualifiedNameAsString();
    return;
  }
  // The user's own functions are host and device (as under Clang's
  // `#pragma clang force_cuda_host_device`): they follow the rules of
  // device code too, checked once each.
  const clang::FunctionDecl *Def = Callee->getDefinition();
  if (!Def) {
    // A template whose pattern is defined is instantiated where it is used.
    if (const clang::FunctionDecl *Pattern =
            Callee->getTemplateInstantiationPattern())
      if (Pattern->isDefined())
        return;
    Diags.report(DiagID::err_device_undefined, Src.getLoc(S->getBeginLoc()))
        << Callee->getQualifiedNameAsString();
    return;
  }
  if (!hasAnnotation(Def, "qd.func") && CheckedCallees.insert(Def))
    checkDeviceBody(Def->getBody());
}

std::vector<unsigned> Sema::getImplicitDeviceFunctionStarts() const {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  std::vector<unsigned> Starts;
  for (const clang::FunctionDecl *F : CheckedCallees) {
    // Clang's CUDA and HIP modes make a lambda without attributes host and
    // device by themselves (and the attributes would go after its `[]`).
    if (const auto *M = clang::dyn_cast<clang::CXXMethodDecl>(F);
        M && M->getParent()->isLambda())
      continue;
    // A template's instantiation is declared where its pattern is.
    if (const clang::FunctionDecl *Pattern =
            F->getTemplateInstantiationPattern())
      F = Pattern;
    for (const clang::FunctionDecl *R : F->redecls()) {
      clang::SourceLocation Loc = R->getInnerLocStart();
      if (Loc.isFileID() && SM.isWrittenInMainFile(Loc) && !R->isImplicit() &&
          !hasAnnotation(R, "qd.func"))
        Starts.push_back(SM.getFileOffset(Loc));
    }
  }
  llvm::sort(Starts);
  Starts.erase(std::unique(Starts.begin(), Starts.end()), Starts.end());
  return Starts;
}

/// A variable with static storage that device code names must exist on the
/// device: a field, a constant (constexpr, or const with a constant
/// initializer, which Clang's CUDA mode copies to the device) or the C++
/// library's own.
void Sema::checkDeviceVariable(const clang::DeclRefExpr *Ref) {
  const auto *V = clang::dyn_cast<clang::VarDecl>(Ref->getDecl());
  if (!V || !V->hasGlobalStorage() || V->isConstexpr() ||
      getQdSpecialization(V->getType(), "field") ||
      Ctx.getSourceManager().isInSystemHeader(V->getLocation()))
    return;
  if (V->getType().isConstQualified() && V->hasInit() &&
      V->hasConstantInitialization())
    return;
  Diags.report(DiagID::err_device_host_variable, Src.getLoc(Ref->getLocation()))
      << V->getNameAsString();
}

/// Every node of a function that device code calls, iteratively (a long
/// chain of calls must not exhaust the stack).
void Sema::checkDeviceBody(const clang::Stmt *Body) {
  std::vector<std::pair<const clang::Stmt *, unsigned>> Work = {{Body, 0}};
  while (!Work.empty()) {
    auto [S, Depth] = Work.back();
    Work.pop_back();
    if (!S || !checkNesting(S, Depth))
      continue;
    checkDeviceNode(S);
    for (const clang::Stmt *Child : S->children())
      Work.push_back({Child, Depth + 1});
  }
}

void Sema::checkNotLoopConfig(const clang::Stmt *S) {
  if (getQdCall(S, "loop_config"))
    Diags.report(DiagID::err_loop_config_not_before_loop,
                 Src.getLoc(S->getBeginLoc()));
}

/// Whether evaluating E may read device memory: a field, an ndarray
/// element, anything through a pointer (`p[i]`, `*p`, `s->m`), a global
/// that is not a constant, or a call that is not a constexpr function of
/// values (a QD_FUNC, or a function given a pointer, may read anything).
/// Such a loop bound is evaluated on the device when its task starts, after
/// every earlier task of the call. Depth bounds the walk.
static bool readsMemory(const clang::Stmt *E, clang::ASTContext &Ctx,
                        unsigned Depth = 0) {
  if (!E || Depth > Sema::MaxNesting)
    return true; // too deep to tell: the device evaluates it
  if (const auto *Ref = clang::dyn_cast<clang::DeclRefExpr>(E)) {
    if (getQdSpecialization(Ref->getType(), "field"))
      return true;
    if (const auto *V = clang::dyn_cast<clang::VarDecl>(Ref->getDecl()))
      if (V->hasGlobalStorage() && !V->isUsableInConstantExpressions(Ctx))
        return true;
  }
  if (const auto *Op = clang::dyn_cast<clang::CXXOperatorCallExpr>(E))
    if ((Op->getOperator() == clang::OO_Subscript ||
         Op->getOperator() == clang::OO_Call) &&
        Op->getNumArgs() > 0 &&
        getQdSpecialization(Op->getArg(0)->getType(), "ndarray"))
      return true;
  if (const auto *AS = clang::dyn_cast<clang::ArraySubscriptExpr>(E))
    if (AS->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
      return true;
  if (const auto *UO = clang::dyn_cast<clang::UnaryOperator>(E))
    if (UO->getOpcode() == clang::UO_Deref)
      return true;
  if (const auto *ME = clang::dyn_cast<clang::MemberExpr>(E))
    if (ME->isArrow())
      return true;
  if (const auto *Call = clang::dyn_cast<clang::CallExpr>(E)) {
    const clang::FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    const clang::DeclContext *Owner = Callee->getDeclContext();
    if (const auto *MD = clang::dyn_cast<clang::CXXMethodDecl>(Callee))
      Owner = MD->getParent()->getDeclContext();
    if (!Callee->isConstexpr() && !isQdContext(Owner))
      return true;
    for (const clang::Expr *Arg : Call->arguments())
      if (Arg->IgnoreParenImpCasts()->getType()->isPointerType())
        return true;
  }
  for (const clang::Stmt *Child : E->children())
    if (readsMemory(Child, Ctx, Depth + 1))
      return true;
  return false;
}

bool Sema::checkLoopBounds(const clang::Stmt *Loop,
                           llvm::ArrayRef<const clang::Expr *> Bounds) {
  for (const clang::Expr *E : Bounds)
    if (E && !Src.isSpelledInFile(E->getSourceRange())) {
      Diags.report(DiagID::err_loop_bounds_in_macro,
                   Src.getLoc(Loop->getBeginLoc()));
      return false;
    }
  for (const clang::Expr *E : Bounds)
    if (readsMemory(E, Ctx))
      return true;
  return false;
}

/// Reports a `break` in S that leaves the loop whose body S is: one not
/// inside a nested loop, switch or lambda.
/// Reports each `break` of S that would leave the top-level loop, and each
/// `return` in it (which would leave the whole task). Nested loops and
/// switches own their breaks; lambdas own their returns.
static void findOuterJumps(const clang::Stmt *S, SourceInfo &Src,
                           DiagEngine &Diags, bool BreaksOwned = false,
                           unsigned Depth = 0) {
  if (!S || Depth > Sema::MaxNesting || isa<clang::LambdaExpr>(S))
    return;
  if (isa<clang::BreakStmt>(S) && !BreaksOwned) {
    Diags.report(DiagID::err_break_outermost, Src.getLoc(S->getBeginLoc()));
    return;
  }
  if (isa<clang::ReturnStmt>(S)) {
    Diags.report(DiagID::err_return_in_loop, Src.getLoc(S->getBeginLoc()));
    return;
  }
  BreaksOwned |= isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
                 isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S) ||
                 isa<clang::SwitchStmt>(S);
  for (const clang::Stmt *Child : S->children())
    findOuterJumps(Child, Src, Diags, BreaksOwned, Depth + 1);
}

/// Reports `break` or `continue` that would leave a qd::graph::do_while
/// body, and every `return` in it (each statement of the body is a task of
/// its own). Nested loops own their jumps, switches their breaks, lambdas
/// their returns.
static void findGraphLoopJumps(const clang::Stmt *S, SourceInfo &Src,
                               DiagEngine &Diags, bool BreaksOwned = false,
                               bool ContinuesOwned = false,
                               unsigned Depth = 0) {
  if (!S || Depth > Sema::MaxNesting || isa<clang::LambdaExpr>(S))
    return;
  const char *Jump = nullptr;
  if (isa<clang::BreakStmt>(S) && !BreaksOwned)
    Jump = "break";
  else if (isa<clang::ContinueStmt>(S) && !ContinuesOwned)
    Jump = "continue";
  else if (isa<clang::ReturnStmt>(S))
    Jump = "return";
  if (Jump) {
    Diags.report(DiagID::err_do_while_jump, Src.getLoc(S->getBeginLoc()))
        << Jump;
    return;
  }
  bool Loop = isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
              isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S);
  BreaksOwned |= Loop || isa<clang::SwitchStmt>(S);
  ContinuesOwned |= Loop;
  for (const clang::Stmt *Child : S->children())
    findGraphLoopJumps(Child, Src, Diags, BreaksOwned, ContinuesOwned,
                       Depth + 1);
}

/// Whether S (in Body) may write memory that outlives Body: an assignment,
/// increment or decrement of anything but a variable declared in Body, or
/// any call (a function, an operator, a constructor, inline assembly) --
/// what it does is not followed.
static bool mayWrite(const clang::Stmt *S, const clang::Stmt *Body) {
  if (!S)
    return false;
  if (clang::isa<clang::CallExpr, clang::CXXConstructExpr, clang::AsmStmt,
                 clang::CXXNewExpr, clang::CXXDeleteExpr>(S))
    return true;
  const clang::Expr *Target = nullptr;
  if (const auto *B = clang::dyn_cast<clang::BinaryOperator>(S))
    Target = B->isAssignmentOp() ? B->getLHS() : nullptr;
  else if (const auto *U = clang::dyn_cast<clang::UnaryOperator>(S))
    Target = U->isIncrementDecrementOp() ? U->getSubExpr() : nullptr;
  if (Target) {
    const auto *Ref =
        clang::dyn_cast<clang::DeclRefExpr>(Target->IgnoreParenImpCasts());
    const auto *V =
        Ref ? clang::dyn_cast<clang::VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType() ||
        !Body->getSourceRange().fullyContains(V->getSourceRange()))
      return true;
  }
  for (const clang::Stmt *Child : S->children())
    if (mayWrite(Child, Body))
      return true;
  return false;
}

void Sema::checkGraphLoop(const clang::WhileStmt *W,
                          const clang::CallExpr *Call,
                          const clang::FunctionDecl *Kernel, bool IsGraph,
                          const char *Misplaced, unsigned Depth,
                          kir::Stmt &Built) {
  std::string Name = Kernel->getNameAsString();
  if (Misplaced)
    Diags.report(DiagID::err_do_while_nested, Built.Loc) << Name << Misplaced;
  else if (Depth >= kir::MaxGraphLoopDepth)
    Diags.report(DiagID::err_do_while_too_deep, Built.Loc)
        << std::to_string(kir::MaxGraphLoopDepth);
  else if (!IsGraph)
    Diags.report(DiagID::err_do_while_not_graph, Built.Loc) << Name;
  findGraphLoopJumps(W->getBody(), Src, Diags);
  Built.BodyMayWrite = mayWrite(W->getBody(), W->getBody());

  const clang::Expr *Arg = Call->getNumArgs() == 1
                               ? Call->getArg(0)->IgnoreParenImpCasts()
                               : nullptr;
  const auto *Ref = clang::dyn_cast_or_null<clang::DeclRefExpr>(Arg);
  const auto *P =
      Ref ? clang::dyn_cast<clang::ParmVarDecl>(Ref->getDecl()) : nullptr;
  const auto *V =
      Ref ? clang::dyn_cast<clang::VarDecl>(Ref->getDecl()) : nullptr;
  auto IsInt32 = [&](const clang::TemplateArgument &A) {
    return A.getKind() == clang::TemplateArgument::Type &&
           getScalarType(A.getAsType(), Ctx) == kir::ScalarType::I32;
  };
  if (P && P->getDeclContext() == Kernel) {
    const auto *Spec = getQdSpecialization(P->getType(), "ndarray");
    const clang::TemplateArgumentList *Args =
        Spec ? &Spec->getTemplateArgs() : nullptr;
    if (Args && Args->size() == 2 && IsInt32((*Args)[0]) &&
        (*Args)[1].getKind() == clang::TemplateArgument::Integral &&
        (*Args)[1].getAsIntegral() == 0) {
      Built.Flag = P->getNameAsString();
      return;
    }
  } else if (V && V->hasGlobalStorage()) {
    const auto *Spec = getQdSpecialization(V->getType(), "field");
    const clang::TemplateArgumentList *Args =
        Spec ? &Spec->getTemplateArgs() : nullptr;
    if (Args && Args->size() == 2 && IsInt32((*Args)[0]) &&
        (*Args)[1].getKind() == clang::TemplateArgument::Pack &&
        (*Args)[1].pack_size() == 0) {
      Built.Flag = V->getQualifiedNameAsString();
      Built.FlagIsField = true;
      return;
    }
  }
  SourceLoc Loc = Src.getLoc(Arg ? Arg->getBeginLoc() : Call->getBeginLoc());
  Diags.report(DiagID::err_do_while_flag, Loc) << Name;
}

void Sema::checkNoDoWhile(const clang::CallExpr *Call) {
  if (isGraphDoWhile(Call->getDirectCallee()))
    Diags.report(DiagID::err_do_while_place, Src.getLoc(Call->getBeginLoc()));
}

/// The bytes of a qd::simt::block::shared_array<T, N...>: sizeof(T) times
/// the extents (qd.h's declaration holds no storage); none while a
/// template argument is dependent.
std::optional<uint64_t> Sema::getSharedArrayBytes(clang::QualType T) const {
  const auto *Spec = clang::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      T.getCanonicalType()->getAsCXXRecordDecl());
  if (!Spec || Spec->getTemplateArgs().size() != 2)
    return std::nullopt;
  const clang::TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args[0].getKind() != clang::TemplateArgument::Type ||
      Args[0].getAsType()->isDependentType() ||
      Args[0].getAsType()->isIncompleteType() ||
      Args[1].getKind() != clang::TemplateArgument::Pack)
    return std::nullopt;
  uint64_t Bytes = Ctx.getTypeSizeInChars(Args[0].getAsType()).getQuantity();
  for (const clang::TemplateArgument &N : Args[1].pack_elements()) {
    if (N.getKind() != clang::TemplateArgument::Integral)
      return std::nullopt;
    int64_t Extent = N.getAsIntegral().getSExtValue();
    if (Extent <= 0)
      return std::nullopt;
    // Saturate: any product past the limit is too big.
    Bytes = Bytes > (uint64_t(1) << 40) / uint64_t(Extent)
                ? uint64_t(1) << 40
                : Bytes * uint64_t(Extent);
  }
  return Bytes;
}

/// A block's static shared memory: NVIDIA's static limit (AMD has 64 KiB).
static constexpr uint64_t SharedLimit = 48 * 1024;

std::optional<unsigned> Sema::checkSharedArrayDecl(const clang::DeclStmt *DS,
                                                   uint64_t &LoopBytes) {
  const auto *V = clang::dyn_cast<clang::VarDecl>(*DS->decl_begin());
  if (!V)
    return std::nullopt;
  SourceLoc Loc = Src.getLoc(V->getLocation());
  std::string Name = V->getNameAsString();
  // `__shared__` goes before the declaration: it must hold nothing else.
  kir::TextRange Range = Src.getRange(DS->getSourceRange());
  if (!DS->isSingleDecl() || !Range.isValid()) {
    Diags.report(DiagID::err_shared_array_declaration, Loc) << Name;
    return std::nullopt;
  }
  const auto *Init =
      clang::dyn_cast_or_null<clang::CXXConstructExpr>(V->getInit());
  bool Default = !V->getInit() || (Init && Init->getNumArgs() == 0 &&
                                   !Init->isListInitialization());
  if (!Default || V->getStorageClass() != clang::SC_None || V->isConstexpr() ||
      V->getType().isConstQualified()) {
    Diags.report(DiagID::err_shared_array_init, Loc) << Name;
    return std::nullopt;
  }
  // Over a block's static shared memory the GPU compile fails in ptxas,
  // naming a generated task; the limit is checked here, at the user's
  // line, for every target (48 KiB: NVIDIA's static limit, AMD has 64).
  if (std::optional<uint64_t> Bytes = getSharedArrayBytes(V->getType())) {
    if (*Bytes > SharedLimit) {
      Diags.report(DiagID::err_shared_array_too_big, Loc)
          << Name << std::to_string(*Bytes) << std::to_string(SharedLimit);
      return std::nullopt;
    }
    // The loop's arrays share one block's memory: the first one past the
    // limit says so (once).
    bool Within = LoopBytes <= SharedLimit;
    LoopBytes += *Bytes;
    if (Within && LoopBytes > SharedLimit) {
      Diags.report(DiagID::err_shared_arrays_too_big, Loc)
          << Name << std::to_string(LoopBytes) << std::to_string(SharedLimit);
      return std::nullopt;
    }
  }
  return Range.Begin;
}

void Sema::checkRandomSharedBytes(const clang::CallExpr *Call,
                                  uint64_t &LoopBytes) {
  // prelude_gpu.h: 1024 slots of two uint64_t and two uint32_t.
  constexpr uint64_t RngSharedBytes = 1024 * 24;
  bool Within = LoopBytes <= SharedLimit;
  LoopBytes += RngSharedBytes;
  if (Within && LoopBytes > SharedLimit)
    Diags.report(DiagID::err_random_shared_too_big,
                 Src.getLoc(Call->getBeginLoc()))
        << std::to_string(LoopBytes) << std::to_string(SharedLimit);
}

/// CUDA's parameter space (sm_70 and newer, CUDA 12.1 and newer) is 32764
/// bytes; a task takes the argument block and an 8-byte iteration count
/// after it (8-aligned): the block may take 32752.
static constexpr uint64_t ParamLimit = 32752;

bool Sema::checkParamBytes(const clang::ParmVarDecl *P, uint64_t &Bytes) {
  clang::QualType T = P->getType();
  // An ndarray (or a reference) is a pointer at least.
  uint64_t Size = 8, Align = 8;
  if (!T->isReferenceType() && !T->isDependentType() &&
      !T->isIncompleteType() && !getQdSpecialization(T, "ndarray")) {
    Size = Ctx.getTypeSizeInChars(T).getQuantity();
    Align = Ctx.getTypeAlignInChars(T).getQuantity();
  }
  bool Within = Bytes <= ParamLimit;
  Bytes = (Bytes + Align - 1) / Align * Align + Size;
  if (!Within || Bytes <= ParamLimit)
    return true;
  const auto *FD = clang::cast<clang::FunctionDecl>(P->getDeclContext());
  Diags.report(DiagID::err_kernel_params_too_big, Src.getLoc(P->getLocation()))
      << P->getNameAsString() << FD->getNameAsString() << std::to_string(Bytes)
      << std::to_string(ParamLimit);
  return false;
}

void Sema::checkScalarsPointerBytes(const clang::FunctionDecl *FD,
                                    uint64_t Bytes) {
  if (Bytes > ParamLimit)
    return; // a parameter went over already
  Bytes = (Bytes + 7) / 8 * 8 + 8;
  if (Bytes > ParamLimit)
    Diags.report(DiagID::err_kernel_scalars_too_big,
                 Src.getLoc(FD->getLocation()))
        << FD->getNameAsString() << std::to_string(Bytes)
        << std::to_string(ParamLimit);
}

void Sema::reportMisplacedSharedArray(const clang::VarDecl *V) {
  Diags.report(DiagID::err_shared_array_place, Src.getLoc(V->getLocation()))
      << V->getNameAsString();
}

void Sema::reportSerialBlockSync(clang::SourceLocation Loc) {
  Diags.report(DiagID::err_block_sync_serial, Src.getLoc(Loc));
}

void Sema::checkNoBreak(const clang::Stmt *Body) {
  findOuterJumps(Body, Src, Diags);
}

bool Sema::checkKernelDecl(const clang::FunctionDecl *FD) {
  SourceLoc Loc = Src.getLoc(FD->getLocation());
  if (isa<clang::CXXMethodDecl>(FD) ||
      !FD->getDeclContext()->getRedeclContext()->isFileContext()) {
    Diags.report(DiagID::err_kernel_not_free_function, Loc)
        << FD->getNameAsString();
    return false;
  }
  if (FD->getDescribedFunctionTemplate() || FD->isTemplateInstantiation()) {
    Diags.report(DiagID::err_kernel_template, Loc) << FD->getNameAsString();
    return false;
  }
  return checkSymbolName(FD, "kernel") && checkKernelUnique(FD);
}

std::optional<kir::ScalarType> Sema::checkField(const clang::VarDecl *V,
                                                clang::QualType Elem,
                                                std::string &Record) {
  SourceLoc Loc = Src.getLoc(V->getLocation());
  if (V->getDescribedVarTemplate() ||
      clang::isa<clang::VarTemplateSpecializationDecl>(V)) {
    Diags.report(DiagID::err_field_template, Loc) << V->getNameAsString();
    return std::nullopt;
  }
  if (!checkSymbolName(V, "field"))
    return std::nullopt;
  if (!V->isExternallyVisible()) {
    Diags.report(DiagID::err_field_linkage, Loc) << V->getNameAsString();
    return std::nullopt;
  }
  std::optional<kir::ScalarType> T = getScalarType(Elem, Ctx);
  if (T)
    return T;
  if (std::optional<std::string> R = getRecord(Elem)) {
    Record = *R;
    return kir::ScalarType::U8;
  }
  Diags.report(DiagID::err_field_type, Loc)
      << V->getNameAsString() << Elem.getAsString(Ctx.getPrintingPolicy())
      << kir::getScalarTypeSpellingList(/*OrLast=*/true);
  return std::nullopt;
}

std::optional<std::string> Sema::getRecord(clang::QualType T) {
  // qd::vec and qd::mat: <qd/runtime.h> declares them for the host.
  for (const char *Name : {"vec", "mat"})
    if (const auto *Spec = getQdSpecialization(T, Name)) {
      const clang::TemplateArgumentList &Args = Spec->getTemplateArgs();
      if (Args.size() < 2 ||
          Args[0].getKind() != clang::TemplateArgument::Type ||
          !getScalarType(Args[0].getAsType(), Ctx))
        return std::nullopt;
      clang::PrintingPolicy Policy(Ctx.getLangOpts());
      Policy.SuppressTagKeyword = true;
      Policy.FullyQualifiedName = true;
      Policy.SuppressScope = false;
      return clang::QualType(Spec->getTypeForDecl(), 0)
          .getCanonicalType()
          .getAsString(Policy);
    }
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || T.isVolatileQualified() || !addRecord(RD, 0))
    return std::nullopt;
  return RD->getQualifiedNameAsString();
}

bool Sema::addRecord(const clang::CXXRecordDecl *RD, unsigned Depth) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  RD = RD->getDefinition();
  if (!RD || Depth > 64 || RD->isUnion() || RD->isLambda() ||
      !RD->getIdentifier() || !RD->isTriviallyCopyable() ||
      isa<clang::ClassTemplateSpecializationDecl>(RD) ||
      RD->getDescribedClassTemplate() ||
      !RD->getDeclContext()->getRedeclContext()->isFileContext() ||
      isQdContext(RD->getDeclContext()) ||
      SM.isInSystemHeader(RD->getLocation()) || !RD->getLocation().isFileID())
    return false;
  if (Records.contains(RD))
    return true;
  if (SM.isWrittenInMainFile(RD->getLocation()) &&
      !Src.getRange(RD->getSourceRange()).isValid())
    return false;
  // The structs it holds come first in the generated header.
  for (const clang::FieldDecl *F : RD->fields()) {
    clang::QualType FT = Ctx.getBaseElementType(F->getType());
    if (F->isBitField() || FT->isReferenceType())
      return false;
    if (getScalarType(FT, Ctx))
      continue;
    // qd::vec and qd::mat: trivially copyable aggregates of scalars, which
    // the generated header sees through <qd/runtime.h>.
    if (getQdSpecialization(FT, "vec") || getQdSpecialization(FT, "mat"))
      continue;
    const auto *Inner = FT->getAsCXXRecordDecl();
    if (!Inner || !addRecord(Inner, Depth + 1))
      return false;
  }
  for (const clang::CXXBaseSpecifier &B : RD->bases()) {
    const auto *Base = B.getType()->getAsCXXRecordDecl();
    if (!Base || !addRecord(Base, Depth + 1))
      return false;
  }
  Records.insert(RD);
  return true;
}

std::vector<kir::Record> Sema::takeRecords() {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  std::vector<kir::Record> Out;
  for (const clang::CXXRecordDecl *RD : Records) {
    kir::Record R;
    R.Name = RD->getNameAsString();
    R.Scope = getScope(RD->getDeclContext());
    bool Plain = RD->getNumBases() == 0;
    for (const clang::FieldDecl *F : RD->fields()) {
      Plain = Plain && F->getAccess() == clang::AS_public &&
              !F->getType()->isArrayType() && F->getIdentifier();
      if (F->getIdentifier())
        R.Members.push_back(F->getNameAsString());
    }
    if (!Plain || R.Members.empty())
      R.Members.clear();
    if (SM.isWrittenInMainFile(RD->getLocation())) {
      R.Definition = Src.getRange(RD->getSourceRange());
    } else {
      llvm::SmallString<256> Path(SM.getFilename(RD->getLocation()));
      llvm::sys::fs::make_absolute(Path);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      R.Header = Path.str().str();
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

/// The name of a jump statement, or null.
static const char *getJumpName(const clang::Stmt *S) {
  if (isa<clang::ReturnStmt>(S))
    return "return";
  if (isa<clang::GotoStmt>(S) || isa<clang::IndirectGotoStmt>(S))
    return "goto";
  if (isa<clang::LabelStmt>(S))
    return "label";
  if (isa<clang::CoreturnStmt>(S))
    return "co_return";
  return nullptr;
}

void Sema::checkTopLevelStmt(const clang::Stmt *S, const kir::Stmt &Built,
                             llvm::StringRef Kernel) {
  bool IsFor = isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S);
  if (IsFor && Built.Kind != kir::StmtKind::Loop && !Built.SerializedLoop)
    Diags.report(DiagID::err_loop_not_parallel, Built.Loc) << Kernel;
  else if (const char *Jump = getJumpName(S))
    Diags.report(DiagID::err_top_level_jump, Built.Loc) << Jump << Kernel;
}

std::optional<kir::LoopConfig>
Sema::checkLoopConfig(const clang::CallExpr *Call) {
  if (Call->getNumArgs() != 1)
    return std::nullopt;
  const clang::Expr *Arg = Call->getArg(0);
  clang::Expr::EvalResult R;
  SourceLoc Loc = Src.getLoc(Arg->getBeginLoc());
  // {block_shape {x, y, z}, serialize, parallelize}
  auto IsShape = [](const clang::APValue &V) {
    return V.isStruct() && V.getStructNumFields() == 3 &&
           V.getStructField(0).isInt() && V.getStructField(1).isInt() &&
           V.getStructField(2).isInt();
  };
  if (Arg->isValueDependent() || !Arg->EvaluateAsRValue(R, Ctx) ||
      !R.Val.isStruct() || R.Val.getStructNumFields() != 3 ||
      !IsShape(R.Val.getStructField(0)) || !R.Val.getStructField(1).isInt() ||
      !R.Val.getStructField(2).isInt()) {
    Diags.report(DiagID::err_loop_config_not_constant, Loc);
    return std::nullopt;
  }
  const clang::APValue &Shape = R.Val.getStructField(0);
  int64_t Dims[3];
  for (unsigned D = 0; D < 3; ++D)
    Dims[D] = Shape.getStructField(D).getInt().getExtValue();
  int64_t Parallelize = R.Val.getStructField(2).getInt().getExtValue();
  // A plain count, or a tile ({32, 1} is 32 threads in a row: a plain 32).
  unsigned Rank = Dims[2] != 1 ? 3 : Dims[1] != 1 ? 2 : 1;
  if (Rank == 1 && (Dims[0] < 0 || Dims[0] > 1024)) {
    Diags.report(DiagID::err_loop_config_block_dim, Loc)
        << (", not " + std::to_string(Dims[0]));
    return std::nullopt;
  }
  int64_t Threads = 1;
  std::string Spelling;
  for (unsigned D = 0; D < Rank; ++D) {
    Threads *= std::clamp<int64_t>(Dims[D], 0, 1025);
    Spelling += (D ? ", " : "{") + std::to_string(Dims[D]);
  }
  if (Rank > 1 && (llvm::any_of(llvm::ArrayRef(Dims, Rank),
                                [](int64_t N) { return N < 1; }) ||
                   Threads > 1024)) {
    Diags.report(DiagID::err_loop_config_block_shape, Loc) << Spelling + "}";
    return std::nullopt;
  }
  if (Parallelize < 0) {
    Diags.report(DiagID::err_loop_config_parallelize, Loc)
        << std::to_string(Parallelize);
    return std::nullopt;
  }
  kir::LoopConfig C;
  C.BlockDim = unsigned(Rank == 1 ? Dims[0] : Threads);
  if (Rank > 1)
    C.BlockShape.assign(Dims, Dims + Rank);
  C.Serialize = R.Val.getStructField(1).getInt().getBoolValue();
  C.Parallelize = unsigned(Parallelize);
  return C;
}

bool Sema::checkNesting(const clang::Stmt *S, unsigned Depth) {
  if (Depth <= MaxNesting)
    return true;
  if (!ReportedNesting)
    Diags.report(DiagID::err_nesting_too_deep, Src.getLoc(S->getBeginLoc()))
        << std::to_string(MaxNesting);
  ReportedNesting = true;
  return false;
}
