//===- KIRBuilder.cpp - Clang AST to kernel IR ----------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Walks a translation unit that compiled without errors and
// records what the kernel IR needs (the rules it meets on the way are
// Sema's): fields, QD_FUNCs, kernels with their
// parameters and top-level statements (loops with their ranges, serial
// statements, locals and the facts about them, loop_config, blocks), and
// every QD_STREAM_PARALLEL block found where it does not belong.
//
//===----------------------------------------------------------------------===//

#include "KIRBuilder.h"
#include "MemoryAccesses.h"
#include "Sema.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace qdc;
using clang::cast;
using clang::dyn_cast;
using clang::dyn_cast_or_null;
using clang::isa;
using clang::isa_and_nonnull;

using namespace qdc::frontend;

namespace {

/// What the kernels' loops say about blocks of threads, across kernels.
class BlockFacts {
public:
  explicit BlockFacts(const clang::SourceManager &SM) : SM(SM) {}

  /// What a call may reach through the user's functions.
  enum class Target { BlockSync, Random };

  /// Whether calling FD reaches qd::simt::block::sync: FD is it, or one
  /// of the user's functions it calls, at any depth, does.
  bool reachesSync(const clang::FunctionDecl *FD) {
    return reaches(FD, Target::BlockSync);
  }
  /// Whether calling FD reaches qd::random or qd::randn (their state is in
  /// the block's shared memory on GPUs), as reachesSync.
  bool reachesRandom(const clang::FunctionDecl *FD) {
    return reaches(FD, Target::Random);
  }

  /// shared_array declarations found in parallel loops' bodies.
  llvm::DenseSet<const clang::VarDecl *> SharedArraysInLoops;

private:
  static bool is(const clang::FunctionDecl *FD, Target What) {
    switch (What) {
    case Target::BlockSync:
      return isBlockSync(FD);
    case Target::Random:
      return isQdFunction(FD, "random") || isQdFunction(FD, "randn");
    }
    return false;
  }

  bool reaches(const clang::FunctionDecl *FD, Target What) {
    if (!FD)
      return false;
    if (is(FD, What))
      return true;
    const clang::FunctionDecl *Def = nullptr;
    if (!FD->hasBody(Def) || SM.isInSystemHeader(Def->getLocation()))
      return false;
    auto Key = std::make_pair(Def, static_cast<unsigned>(What));
    auto [It, Inserted] = Reaches.try_emplace(Key, false);
    if (!Inserted)
      return It->second; // known, or being walked (a recursive call)
    bool Found = false;
    llvm::SmallVector<const clang::Stmt *, 32> Work{Def->getBody()};
    while (!Found && !Work.empty()) {
      const clang::Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      if (const auto *Call = dyn_cast<clang::CallExpr>(S))
        Found = reaches(Call->getDirectCallee(), What);
      else if (const auto *Make = dyn_cast<clang::CXXConstructExpr>(S))
        Found = reaches(Make->getConstructor(), What);
      for (const clang::Stmt *Child : S->children())
        Work.push_back(Child);
    }
    return Reaches[Key] = Found;
  }

  const clang::SourceManager &SM;
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, unsigned>, bool>
      Reaches;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

class KernelBuilder {
public:
  KernelBuilder(clang::ASTContext &Ctx, SourceInfo &Src, Sema &Rules,
                BlockFacts &Blocks, MemoryAccesses &Memory,
                const clang::FunctionDecl *FD)
      : Ctx(Ctx), Src(Src), Rules(Rules), Blocks(Blocks), Memory(Memory),
        FD(FD) {}

  kir::Kernel build() {
    K.Name = FD->getNameAsString();
    K.Scope = getScope(FD->getDeclContext());
    K.IsGraph = hasAnnotation(FD, "qd.graph");
    K.NoAlias = hasAnnotation(FD, "qd.noalias");
    K.Loc = Src.getLoc(FD->getLocation());
    K.Range = Src.getRange(FD->getSourceRange());
    clang::QualType RT = FD->getReturnType();
    K.ReturnsVoid = RT->isVoidType();
    K.ReturnType = RT.getAsString(Ctx.getPrintingPolicy());
    // A struct is declared for the host by the generated header.
    if (auto Scalar = getScalarType(RT, Ctx))
      K.ReturnType = kir::getScalarTypeSpelling(*Scalar).str();
    else if (std::optional<std::string> Record = Rules.getRecord(RT))
      K.ReturnType = *Record;
    else
      K.ReturnStorable = RT->isVoidType();
    uint64_t ParamBytes = 0;
    for (const clang::ParmVarDecl *P : FD->parameters()) {
      Rules.checkParamBytes(P, ParamBytes);
      K.Params.push_back(buildParam(P));
    }
    addWrittenParams();
    buildList(FD->getBody(), K.Body);
    if (K.hasScalars())
      Rules.checkScalarsPointerBytes(FD, ParamBytes);
    resolveLocals();
    return std::move(K);
  }

private:
  /// What the builder knows about one top-level local variable.
  struct LocalInfo {
    unsigned StmtId = 0;
    unsigned VarIndex = 0; ///< in the statement's Vars
    bool InitOK = false;   ///< constant, or computed from parameters
    bool Const = false;    ///< const-qualified or constexpr
    bool Written = false;  ///< used other than as a plain read
    llvm::SmallVector<const clang::VarDecl *, 2> Deps;
  };

  //--- Parameters the kernel assigns ----------------------------------===//

  /// A parameter that the kernel body writes (`n = n * 2 + 1;`) is a kernel
  /// scalar like any top-level local (DESIGN section 1.1): later tasks see
  /// the value an earlier one left, not the value passed. Each becomes a
  /// local statement ahead of the body that copies the parameter into it;
  /// assign-kernel-scalars then stores it on the device when tasks share
  /// it. In a kernel of stream-parallel blocks, the copy is made before the
  /// fork, as a declaration of parameters may be (DESIGN section 2, rule 1).
  void addWrittenParams() {
    llvm::SetVector<const clang::ParmVarDecl *> Written;
    findParamWrites(FD->getBody(), nullptr, Written);
    for (const clang::ParmVarDecl *P : Written) {
      unsigned Index = P->getFunctionScopeIndex();
      if (Index >= K.Params.size() ||
          (K.Params[Index].Kind != kir::ParamKind::Scalar &&
           K.Params[Index].Kind != kir::ParamKind::Pointer))
        continue;
      kir::Stmt Copy;
      Copy.Kind = kir::StmtKind::Local;
      Copy.Id = NextId++;
      Copy.Loc = Src.getLoc(P->getLocation());
      Copy.Name = K.Params[Index].Name;
      kir::LocalVar V = describeLocal(P);
      V.Name = Copy.Name;
      V.AfterName = {}; // a default argument is no initializer here
      V.CopyInit = false;
      V.FromParam = true;
      Copy.Vars.push_back(std::move(V));
      LocalInfo &Info = Locals[P];
      Info.StmtId = Copy.Id;
      Info.VarIndex = 0;
      Info.InitOK = false; // its value is the call's, then the kernel's
      Info.Written = true;
      K.Body.push_back(std::move(Copy));
    }
  }

  /// The parent that S's children are used under: S itself, or Parent when
  /// S passes its operand's use through. A parenthesis, a full
  /// expression's cleanups and an lvalue `c ? a : b` or `(x, a)` do not
  /// change how the operands are used, and `v.m` (or `v[i]`, `m(i, j)` of
  /// a qd::vec or qd::mat) is used as v is: `v.m = e` writes v, `v.m + 1`
  /// reads it.
  static const clang::Stmt *getUseParent(const clang::Stmt *S,
                                         const clang::Stmt *Parent) {
    const auto *Member = dyn_cast<clang::MemberExpr>(S);
    if (isa<clang::ParenExpr>(S) || isa<clang::ExprWithCleanups>(S) ||
        (Member && !Member->isArrow()) || isComponentAccess(S))
      return Parent;
    if (const auto *E = dyn_cast<clang::Expr>(S); E && E->isGLValue()) {
      // The condition of `c ? a : b` is read; it is its own expression
      // (with its own conversion to bool), so it is never a bare name here.
      if (isa<clang::AbstractConditionalOperator>(S))
        return Parent;
      if (const auto *Comma = dyn_cast<clang::BinaryOperator>(S);
          Comma && Comma->getOpcode() == clang::BO_Comma)
        return Parent;
    }
    return S;
  }

  /// The parameters of FD that S writes (assigns, increments, takes a
  /// non-const reference or address of), in the order first written.
  void findParamWrites(const clang::Stmt *S, const clang::Stmt *Parent,
                       llvm::SetVector<const clang::ParmVarDecl *> &Out,
                       unsigned Depth = 0) {
    if (!S || Depth > Sema::MaxNesting)
      return;
    if (const auto *Ref = dyn_cast<clang::DeclRefExpr>(S)) {
      const auto *P = dyn_cast<clang::ParmVarDecl>(Ref->getDecl());
      if (P && P->getDeclContext() == FD && !isReadOnlyUse(Parent))
        Out.insert(P);
      return;
    }
    if (isa<clang::UnaryExprOrTypeTraitExpr>(S))
      return; // sizeof, alignof: not evaluated
    const clang::Stmt *ChildParent = getUseParent(S, Parent);
    for (const clang::Stmt *Child : S->children())
      findParamWrites(Child, ChildParent, Out, Depth + 1);
  }

  /// A variable used under Parent only has its value read.
  static bool isReadOnlyUse(const clang::Stmt *Parent) {
    const auto *Cast = dyn_cast_or_null<clang::ImplicitCastExpr>(Parent);
    if (!Cast)
      return false;
    return Cast->getCastKind() == clang::CK_LValueToRValue ||
           Cast->getCastKind() == clang::CK_ArrayToPointerDecay ||
           (Cast->getCastKind() == clang::CK_NoOp &&
            Cast->getType().isConstQualified());
  }

  kir::Param buildParam(const clang::ParmVarDecl *P) {
    kir::Param Out;
    Out.Name = P->getNameAsString();
    // An unnamed parameter still has a place in the argument block.
    if (Out.Name.empty())
      Out.Name = "qd_param" + std::to_string(P->getFunctionScopeIndex()) + "_";
    Out.Loc = Src.getLoc(P->getLocation());
    clang::QualType T = P->getType();
    Out.Spelling = T.getAsString(Ctx.getPrintingPolicy());
    Out.Kind = kir::ParamKind::Unsupported;
    if (setElem(T, Out)) {
      Out.Kind = kir::ParamKind::Scalar;
    } else if (T->isPointerType() &&
               !T->getPointeeType().isVolatileQualified()) {
      if (setElem(T->getPointeeType(), Out)) {
        Out.Kind = kir::ParamKind::Pointer;
        Out.PointeeConst = T->getPointeeType().isConstQualified();
        Out.Restrict = T.isRestrictQualified();
      }
    } else if (const auto *Spec = getQdSpecialization(T, "ndarray")) {
      const clang::TemplateArgumentList &Args = Spec->getTemplateArgs();
      if (Args.size() == 2 &&
          Args[0].getKind() == clang::TemplateArgument::Type &&
          Args[1].getKind() == clang::TemplateArgument::Integral &&
          setElem(Args[0].getAsType(), Out)) {
        Out.Kind = kir::ParamKind::Ndarray;
        Out.Dims = Args[1].getAsIntegral().getZExtValue();
      }
    }
    return Out;
  }

  /// Sets Out's element from T, a scalar or a user struct; false if it is
  /// neither.
  bool setElem(clang::QualType T, kir::Param &Out) {
    if (auto Scalar = getScalarType(T, Ctx)) {
      Out.Elem = *Scalar;
      return true;
    }
    if (std::optional<std::string> Record = Rules.getRecord(T)) {
      Out.Elem = kir::ScalarType::U8;
      Out.ElemRecord = *Record;
      return true;
    }
    return false;
  }

  kir::Stmt makeStmt(const clang::Stmt *S, kir::StmtKind Kind) {
    kir::Stmt Out;
    Out.Kind = Kind;
    Out.Id = NextId++;
    Out.Loc = Src.getLoc(S->getBeginLoc());
    Out.Range = Src.getRange(S->getSourceRange());
    Out.Parent = CurrentBlock;
    return Out;
  }

  /// Builds the statements of a kernel body or a block body.
  void buildList(const clang::Stmt *Body, std::vector<kir::Stmt> &Out) {
    if (!Body)
      return;
    llvm::SmallVector<const clang::Stmt *, 16> Items;
    if (const auto *CS = dyn_cast<clang::CompoundStmt>(Body))
      Items.append(CS->body_begin(), CS->body_end());
    else
      Items.push_back(Body);
    for (const clang::Stmt *S : Items) {
      if (isa<clang::NullStmt>(S))
        continue;
      // `return;` ending a void kernel ends nothing: the kernel ends there.
      const auto *Return = dyn_cast<clang::ReturnStmt>(S);
      bool Last = S == Items.back() && CurrentBlock == kir::Stmt::NoParent &&
                  Body == FD->getBody();
      if (Return && Last && !Return->getRetValue())
        continue;
      // `return e;` ending a kernel that returns a value: a serial
      // statement that stores e for the launcher.
      if (Return && Last && !K.ReturnsVoid && Return->getRetValue()) {
        kir::Stmt Ret = makeStmt(S, kir::StmtKind::Serial);
        K.ReturnStmt = Ret.Id;
        K.ReturnValue = Src.getRange(Return->getRetValue()->getSourceRange());
        ReturnDecl = getReturnedLocal(Return->getRetValue());
        CurrentItem = &Ret;
        LoopIndexDecls.clear();
        walk(S, Ret.Id, "", S);
        CurrentItem = nullptr;
        Out.push_back(std::move(Ret));
        continue;
      }
      if (const clang::CallExpr *DoWhile = getGraphDoWhile(S)) {
        Out.push_back(buildGraphLoop(cast<clang::WhileStmt>(S), DoWhile));
        continue;
      }
      // A block in a do_while body would repeat a fork and join per run;
      // like a block in any other loop, it is misplaced (and its
      // statements are built as the loop's own, so nothing else reports).
      if (isStreamParallelBlock(S) && GraphLoopDepth > 0) {
        K.StrayBlocks.push_back(
            {Src.getLoc(S->getBeginLoc()), "a qd::graph::do_while loop"});
        Out.push_back(buildItem(S));
        continue;
      }
      if (isStreamParallelBlock(S)) {
        kir::Stmt Block = makeStmt(S, kir::StmtKind::Block);
        unsigned Outer = CurrentBlock;
        unsigned OuterLoops = std::exchange(GraphLoopDepth, 0);
        CurrentBlock = Block.Id;
        buildList(cast<clang::IfStmt>(S)->getThen(), Block.Body);
        CurrentBlock = Outer;
        GraphLoopDepth = OuterLoops;
        Out.push_back(std::move(Block));
        continue;
      }
      Out.push_back(buildItem(S));
    }
  }

  /// `while (qd::graph::do_while(flag)) { ... }`: its body's statements
  /// become tasks the runtime repeats (DESIGN section 3.2).
  kir::Stmt buildGraphLoop(const clang::WhileStmt *W,
                           const clang::CallExpr *Call) {
    kir::Stmt Loop = makeStmt(W, kir::StmtKind::GraphLoop);
    SerializeNext = false;
    // Loops nest; a loop in a stream-parallel block does not.
    const char *Misplaced =
        CurrentBlock != kir::Stmt::NoParent && !GraphLoopDepth
            ? "a QD_STREAM_PARALLEL block"
            : nullptr;
    Rules.checkGraphLoop(W, Call, FD, K.IsGraph, Misplaced, GraphLoopDepth,
                         Loop);
    ++GraphLoopDepth;
    unsigned OuterBlock = CurrentBlock;
    CurrentBlock = Loop.Id;
    // A body of statements that do nothing (`{ (void)0; }`, `{ {} }`,
    // `{ if (false) {} }`) schedules nothing: CheckGraphLoops reports it,
    // as an empty one, instead of a loop that spins forever.
    if (!doesNothing(W->getBody()))
      buildList(W->getBody(), Loop.Body);
    CurrentBlock = OuterBlock;
    --GraphLoopDepth;
    return Loop;
  }

  /// Whether running S has no effect: empty statements and blocks,
  /// expressions without side effects, declarations of such values, ifs
  /// of such parts. A loop, a call or a write does something.
  bool doesNothing(const clang::Stmt *S) const {
    if (!S || isa<clang::NullStmt>(S))
      return true;
    if (const auto *CS = dyn_cast<clang::CompoundStmt>(S))
      return llvm::all_of(CS->body(),
                          [&](const clang::Stmt *C) { return doesNothing(C); });
    if (const auto *E = dyn_cast<clang::Expr>(S))
      return !E->HasSideEffects(Ctx);
    if (const auto *DS = dyn_cast<clang::DeclStmt>(S))
      return llvm::all_of(DS->decls(), [&](const clang::Decl *D) {
        const auto *VD = dyn_cast<clang::VarDecl>(D);
        return VD && (!VD->getInit() || !VD->getInit()->HasSideEffects(Ctx));
      });
    if (const auto *If = dyn_cast<clang::IfStmt>(S))
      return doesNothing(If->getInit()) && !If->getConditionVariable() &&
             !If->getCond()->HasSideEffects(Ctx) && doesNothing(If->getThen()) &&
             doesNothing(If->getElse());
    return false;
  }

  kir::Stmt buildItem(const clang::Stmt *S) {
    kir::Stmt Out = makeStmt(S, kir::StmtKind::Serial);
    bool Serialize = std::exchange(SerializeNext, false);
    if (isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S)) {
      // A serialized loop is one serial statement: it runs in order.
      if (Serialize)
        Out.SerializedLoop = true;
      else if (buildLoop(S, Out))
        Out.Kind = kir::StmtKind::Loop;
    } else if (const auto *DS = dyn_cast<clang::DeclStmt>(S)) {
      buildLocal(DS, Out);
    } else if (const clang::CallExpr *Call = getQdCall(S, "loop_config")) {
      Out.Kind = kir::StmtKind::LoopConfig;
      Out.Config = Rules.checkLoopConfig(Call).value_or(kir::LoopConfig());
      SerializeNext = Out.Config.Serialize;
    }
    Rules.checkTopLevelStmt(S, Out, K.Name);
    CurrentLoop = Out.Kind == kir::StmtKind::Loop ? &Out : nullptr;
    CurrentItem = &Out;
    LoopIndexDecls = CurrentLoop ? getIndexDecls(S)
                                 : std::vector<const clang::ValueDecl *>();
    walk(S, Out.Id, "", S);
    CurrentLoop = CurrentItem = nullptr;
    return Out;
  }

  //--- Loops -----------------------------------------------------------===//

  /// The index variables of a parallel loop, in dimension order.
  static std::vector<const clang::ValueDecl *>
  getIndexDecls(const clang::Stmt *S) {
    std::vector<const clang::ValueDecl *> Out;
    if (const auto *FR = dyn_cast<clang::CXXForRangeStmt>(S)) {
      const clang::VarDecl *LV = FR->getLoopVariable();
      if (const auto *DD = dyn_cast_or_null<clang::DecompositionDecl>(LV))
        for (const clang::BindingDecl *B : DD->bindings())
          Out.push_back(B);
      else if (LV)
        Out.push_back(LV);
    } else if (const auto *For = dyn_cast<clang::ForStmt>(S)) {
      if (const auto *DS = dyn_cast_or_null<clang::DeclStmt>(For->getInit()))
        if (DS->isSingleDecl())
          if (const auto *V = dyn_cast<clang::VarDecl>(DS->getSingleDecl()))
            Out.push_back(V);
    }
    return Out;
  }

  bool buildLoop(const clang::Stmt *S, kir::Stmt &Out) {
    const clang::Stmt *Body;
    bool OK;
    if (const auto *FR = dyn_cast<clang::CXXForRangeStmt>(S)) {
      OK = buildRangeLoop(FR, Out);
      Body = FR->getBody();
    } else {
      OK = buildCanonicalLoop(cast<clang::ForStmt>(S), Out);
      Body = cast<clang::ForStmt>(S)->getBody();
    }
    if (OK) {
      Out.LoopBody = Src.getRange(Body->getSourceRange());
      Rules.checkNoBreak(Body);
    }
    return OK;
  }

  bool buildRangeLoop(const clang::CXXForRangeStmt *FR, kir::Stmt &Out) {
    const clang::VarDecl *LV = FR->getLoopVariable();
    if (!LV)
      return false;
    if (const clang::CallExpr *Call = getQdCall(FR->getRangeInit(), "range")) {
      if (isa<clang::DecompositionDecl>(LV))
        return false;
      Out.Form = kir::LoopForm::Range;
      Out.IndexType = getTypeSpelling(LV->getType());
      Out.IndexVars.push_back(LV->getNameAsString());
      checkBounds(FR, {Call->getArgs(), Call->getNumArgs()}, Out);
      kir::Extent E;
      if (Call->getNumArgs() == 1) {
        E.Begin = Src.getConstantBound(0);
        E.End = Src.getBound(Call->getArg(0));
      } else if (Call->getNumArgs() == 2) {
        E.Begin = Src.getBound(Call->getArg(0));
        E.End = Src.getBound(Call->getArg(1));
      } else {
        return false;
      }
      Out.Extents.push_back(std::move(E));
      return true;
    }
    if (const clang::CallExpr *Call =
            getQdCall(FR->getRangeInit(), "ndrange")) {
      const auto *DD = dyn_cast<clang::DecompositionDecl>(LV);
      if (!DD || DD->bindings().size() != Call->getNumArgs() ||
          Call->getNumArgs() == 0)
        return false;
      checkBounds(FR, {Call->getArgs(), Call->getNumArgs()}, Out);
      Out.Form = kir::LoopForm::NdRange;
      Out.IndexType = "int64_t";
      for (const clang::BindingDecl *B : DD->bindings())
        Out.IndexVars.push_back(B->getNameAsString());
      for (const clang::Expr *Arg : Call->arguments())
        Out.Extents.push_back(buildNdExtent(Arg));
      return true;
    }
    return false;
  }

  /// One ndrange dimension: `n` is [0, n), `{b, e}` is [b, e).
  kir::Extent buildNdExtent(const clang::Expr *Arg) {
    const clang::Expr *E = Arg->IgnoreImplicit();
    if (const auto *Temp = dyn_cast<clang::MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr()->IgnoreImplicit();
    const auto *Construct = dyn_cast<clang::CXXConstructExpr>(E);
    if (Construct && Construct->isListInitialization() &&
        Construct->getNumArgs() == 2)
      return {Src.getBound(Construct->getArg(0)),
              Src.getBound(Construct->getArg(1))};
    if (Construct && Construct->getNumArgs() == 1)
      return {Src.getConstantBound(0), Src.getBound(Construct->getArg(0))};
    return {Src.getConstantBound(0), Src.getBound(Arg)};
  }

  /// A loop produced by a macro as a whole is check-rewritable's to
  /// report; a loop written out must have its range written out too.
  void checkBounds(const clang::Stmt *Loop,
                   llvm::ArrayRef<const clang::Expr *> Bounds, kir::Stmt &Out) {
    if (Src.isSpelledInFile(Loop->getSourceRange()))
      Out.BoundsReadMemory = Rules.checkLoopBounds(Loop, Bounds);
  }

  /// for (T i = b; i < e; ++i), with i++ or i += 1 also accepted.
  bool buildCanonicalLoop(const clang::ForStmt *FS, kir::Stmt &Out) {
    const auto *DS = dyn_cast_or_null<clang::DeclStmt>(FS->getInit());
    if (!DS || !DS->isSingleDecl())
      return false;
    const auto *V = dyn_cast<clang::VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit() || !V->getType()->isIntegerType())
      return false;
    auto IsVar = [V](const clang::Expr *E) {
      const auto *Ref = dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
      return Ref && Ref->getDecl() == V;
    };
    const auto *Cond = dyn_cast_or_null<clang::BinaryOperator>(
        FS->getCond() ? FS->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!Cond || Cond->getOpcode() != clang::BO_LT || !IsVar(Cond->getLHS()))
      return false;
    const clang::Expr *Inc = FS->getInc();
    if (!Inc)
      return false;
    Inc = Inc->IgnoreParenImpCasts();
    bool StepOne = false;
    if (const auto *U = dyn_cast<clang::UnaryOperator>(Inc))
      StepOne = U->isIncrementOp() && IsVar(U->getSubExpr());
    else if (const auto *CA = dyn_cast<clang::CompoundAssignOperator>(Inc)) {
      clang::Expr::EvalResult R;
      StepOne = CA->getOpcode() == clang::BO_AddAssign && IsVar(CA->getLHS()) &&
                CA->getRHS()->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 1;
    }
    if (!StepOne)
      return false;
    checkBounds(FS, {V->getInit(), Cond->getRHS()}, Out);
    Out.Form = kir::LoopForm::Canonical;
    Out.IndexType = getTypeSpelling(V->getType());
    Out.IndexVars.push_back(V->getNameAsString());
    Out.Extents.push_back(
        {Src.getBound(V->getInit()), Src.getBound(Cond->getRHS())});
    return true;
  }

  std::string getTypeSpelling(clang::QualType T) const {
    clang::PrintingPolicy P = Ctx.getPrintingPolicy();
    P.SuppressTagKeyword = true;
    return T.getUnqualifiedType().getAsString(P);
  }

  //--- Locals ----------------------------------------------------------===//

  void buildLocal(const clang::DeclStmt *DS, kir::Stmt &Out) {
    Out.Kind = kir::StmtKind::Local;
    llvm::SmallVector<std::string, 2> Names;
    for (const clang::Decl *D : DS->decls()) {
      const auto *ND = dyn_cast<clang::NamedDecl>(D);
      if (ND && ND->getIdentifier())
        Names.push_back(ND->getNameAsString());
      const auto *V = dyn_cast<clang::VarDecl>(D);
      if (!V)
        continue; // a type or alias: every task can declare it again
      LocalInfo &Info = Locals[V];
      Info.StmtId = Out.Id;
      Info.VarIndex = Out.Vars.size();
      Out.Vars.push_back(describeLocal(V));
      Out.Vars.back().ConstantBits = getConstantBits(V);
      Info.Const = V->isConstexpr() || V->getType().isConstQualified();
      Info.InitOK = !V->isStaticLocal() && isRecomputable(V, Info.Deps);
    }
    Out.Name = llvm::join(Names, ", ");
  }

  /// The bits of V's initial value when its initializer is a constant
  /// expression of a 4- or 8-byte integer or floating-point type: what a
  /// GPU's scalar block holds once V is set (getScalarFills). Without an
  /// initializer, zero: a kernel scalar starts each call value-initialized
  /// (language.md), not with what the call before left in the block.
  std::optional<uint64_t> getConstantBits(const clang::VarDecl *V) const {
    const clang::Expr *Init = V->getInit();
    clang::QualType T = V->getType();
    if (V->isStaticLocal() || T->isReferenceType() ||
        !(T->isIntegerType() || T->isRealFloatingType()) ||
        (Init && Init->isValueDependent()))
      return std::nullopt;
    uint64_t Bits = Ctx.getTypeSize(T);
    if (Bits != 32 && Bits != 64)
      return std::nullopt;
    if (!Init)
      return 0;
    clang::APValue Value;
    if (!Init->isCXX11ConstantExpr(Ctx, &Value))
      return std::nullopt;
    llvm::APInt Raw;
    if (Value.isInt())
      Raw = Value.getInt();
    else if (Value.isFloat())
      Raw = Value.getFloat().bitcastToAPInt();
    else
      return std::nullopt;
    if (Raw.getBitWidth() != Bits)
      return std::nullopt;
    return Raw.getZExtValue();
  }

  /// What code generation needs to keep V on the device for the call.
  kir::LocalVar describeLocal(const clang::VarDecl *V) {
    kir::LocalVar Out;
    Out.Loc = Src.getLoc(V->getLocation());
    clang::QualType T = V->getType();
    Out.Type = getTypeSpelling(T);
    Out.Elem = getScalarType(T, Ctx);
    Out.RecordType = T->isRecordType();
    Out.CopyInit = V->getInitStyle() == clang::VarDecl::CInit;
    const clang::TagDecl *Tag = T->getAsTagDecl();
    if (T->isReferenceType())
      Out.NotStorable = "it is a reference";
    else if (T->isArrayType())
      Out.NotStorable = "it is an array; use a field or an ndarray";
    else if (V->isStaticLocal())
      Out.NotStorable = "it is static";
    else if (Tag && Tag->getDeclContext()->isFunctionOrMethod())
      Out.NotStorable = "its type is declared inside the kernel";
    else if (T->isDependentType() || !T.isTriviallyCopyableType(Ctx))
      Out.NotStorable = "its type '" + Out.Type + "' is not trivially copyable";
    // The declarator's text after the name, for `name = <init>;`.
    if (V->getInit()) {
      clang::SourceLocation AfterName = clang::Lexer::getLocForEndOfToken(
          V->getLocation(), 0, Ctx.getSourceManager(), Ctx.getLangOpts());
      Out.AfterName = Src.getRange(
          clang::SourceRange(AfterName, V->getSourceRange().getEnd()));
      if (!Out.AfterName.isValid() && Out.NotStorable.empty())
        Out.NotStorable = "its initializer is not written out in the file";
    }
    return Out;
  }

  /// A constant, or computed from parameters, constants and other
  /// recomputable locals without side effects.
  bool isRecomputable(const clang::VarDecl *V,
                      llvm::SmallVectorImpl<const clang::VarDecl *> &Deps) {
    if (V->isConstexpr())
      return true;
    const clang::Expr *Init = V->getInit();
    if (!Init || Init->isValueDependent())
      return false;
    // Even when the value folds to a constant, its text is what the tasks
    // and the launcher recompute: a dead branch that reads an ndarray
    // element (`c ? 1 : x(4, 8)`) is no expression for the host.
    return isParamDerived(Init, Deps);
  }

  bool isParamDerived(const clang::Stmt *S,
                      llvm::SmallVectorImpl<const clang::VarDecl *> &Deps,
                      unsigned Depth = 0) {
    if (!S)
      return true;
    if (Depth > Sema::MaxNesting)
      return false; // walk() reports it

    if (const auto *Ref = dyn_cast<clang::DeclRefExpr>(S)) {
      const clang::ValueDecl *D = Ref->getDecl();
      // A parameter the kernel assigns is a local here (addWrittenParams).
      if (const auto *V = dyn_cast<clang::VarDecl>(D); V && Locals.count(V)) {
        Deps.push_back(V);
        return true;
      }
      if (isa<clang::ParmVarDecl>(D) || isa<clang::FunctionDecl>(D) ||
          isa<clang::EnumConstantDecl>(D))
        return true;
      if (const auto *V = dyn_cast<clang::VarDecl>(D))
        return V->isUsableInConstantExpressions(Ctx);
      return false;
    }
    if (const auto *BO = dyn_cast<clang::BinaryOperator>(S))
      if (BO->isAssignmentOp())
        return false;
    // Memory read through a pointer may change between tasks: `p[i]`,
    // `*p`, `s->m` are evaluated once, where they are written.
    if (const auto *UO = dyn_cast<clang::UnaryOperator>(S))
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == clang::UO_Deref)
        return false;
    if (isa<clang::ArraySubscriptExpr>(S))
      return false;
    if (const auto *ME = dyn_cast<clang::MemberExpr>(S))
      if (ME->isArrow())
        return false;
    if (isa<clang::CXXNewExpr>(S) || isa<clang::CXXDeleteExpr>(S) ||
        isa<clang::CXXThrowExpr>(S) || isa<clang::LambdaExpr>(S))
      return false;
    if (const auto *Call = dyn_cast<clang::CallExpr>(S)) {
      if (!isPureCallee(Call->getDirectCallee()))
        return false;
      // A constexpr function given a pointer may read through it.
      for (const clang::Expr *Arg : Call->arguments())
        if (Arg->IgnoreParenImpCasts()->getType()->isPointerType())
          return false;
    }
    for (const clang::Stmt *Child : S->children())
      if (!isParamDerived(Child, Deps, Depth + 1))
        return false;
    return true;
  }

  /// Calls a recomputed local may make: constexpr functions, the prelude's
  /// math, and the shape of an ndarray (but not its elements).
  static bool isPureCallee(const clang::FunctionDecl *Callee) {
    if (!Callee)
      return false;
    if (const auto *MD = dyn_cast<clang::CXXMethodDecl>(Callee)) {
      if (isQdContext(MD->getParent()->getDeclContext()))
        return MD->getIdentifier() && MD->getName() == "shape";
      return MD->isConstexpr();
    }
    // Not QD_FUNCs: one may have side effects, which recomputing the local
    // in every task (and on the host) would repeat.
    return Callee->isConstexpr() || isQdContext(Callee->getDeclContext());
  }

  /// Records, once every use has been seen, the facts about each local
  /// variable (analyze-locals decides from them) and its uses by other
  /// statements.
  void resolveLocals() {
    llvm::DenseMap<unsigned, kir::Stmt *> ById;
    for (kir::Stmt &Top : K.Body)
      kir::walkStmts(Top, [&](kir::Stmt &S) { ById[S.Id] = &S; });
    for (auto &[V, Info] : Locals) {
      kir::LocalVar &Var = ById[Info.StmtId]->Vars[Info.VarIndex];
      Var.Name = V->getNameAsString();
      Var.Recomputable = Info.InitOK;
      Var.Const = Info.Const;
      Var.Written = Info.Written;
      for (const clang::VarDecl *Dep : Info.Deps) {
        const LocalInfo &D = Locals.find(Dep)->second;
        Var.Deps.push_back({D.StmtId, D.VarIndex});
      }
    }
    if (auto It = Locals.find(ReturnDecl); ReturnDecl && It != Locals.end())
      K.ReturnLocal = {It->second.StmtId, It->second.VarIndex};
    for (const auto &[V, UserId, Loc] : Uses) {
      kir::Stmt *Decl = ById.lookup(Locals[V].StmtId);
      if (Decl)
        Decl->Uses.push_back({UserId, Loc});
    }
  }

  /// The variable E names when E is only its value, of the kernel's return
  /// type (no conversion), else null.
  const clang::VarDecl *getReturnedLocal(const clang::Expr *E) const {
    const auto *Ref = dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = Ref ? dyn_cast<clang::VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || V->getType()->isReferenceType() ||
        E->IgnoreParenLValueCasts() != Ref ||
        !FD->getASTContext().hasSameUnqualifiedType(V->getType(),
                                                    FD->getReturnType()))
      return nullptr;
    return V;
  }

  //--- Walking below the top level -------------------------------------===//

  /// Visits everything inside a top-level statement: records uses of
  /// earlier locals and blocks that are not at the top level. Context says
  /// what the current node is inside of, for the message.
  void walk(const clang::Stmt *S, unsigned ItemId, llvm::StringRef Context,
            const clang::Stmt *Parent, unsigned Depth = 0) {
    if (!S || !Rules.checkNesting(S, Depth))
      return;
    Rules.checkDeviceNode(S);
    if (Depth > 0)
      Rules.checkNotLoopConfig(S);
    if (isStreamParallelBlock(S) && !Context.empty())
      K.StrayBlocks.push_back({Src.getLoc(S->getBeginLoc()), Context.str()});
    if (const auto *Ref = dyn_cast<clang::DeclRefExpr>(S))
      noteLocalUse(Ref, ItemId, Parent);
    if (CurrentLoop)
      noteStatementAtomic(S, Parent);
    if (CurrentItem)
      Memory.note(S, Parent, Branches > 0, FD, LoopIndexDecls,
                  CurrentItem->Memory);
    if (const auto *DS = dyn_cast<clang::DeclStmt>(S))
      noteSharedArray(DS);
    else if (const auto *Call = dyn_cast<clang::CallExpr>(S)) {
      noteBlockSync(Call);
      noteRandom(Call);
    }
    if (isa<clang::CallExpr>(S))
      Rules.checkNoDoWhile(cast<clang::CallExpr>(S));

    llvm::StringRef Inner = Context;
    if (isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
        isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S))
      Inner = "a loop";
    else if (isa<clang::IfStmt>(S) && !isStreamParallelBlock(S))
      Inner = "an 'if' statement";
    else if (isa<clang::SwitchStmt>(S))
      Inner = "a 'switch' statement";
    else if (isa<clang::LambdaExpr>(S))
      Inner = "a lambda";
    else if (isa<clang::CompoundStmt>(S) && Inner.empty())
      Inner = "a compound statement";
    else if (isStreamParallelBlock(S))
      Inner = "a misplaced QD_STREAM_PARALLEL block";

    const clang::Stmt *ChildParent = getUseParent(S, Parent);
    // Below a branch or a nested loop, a node may not run on every run of
    // the top-level statement (the top-level loop itself runs its body for
    // every index).
    const auto *Logic = dyn_cast<clang::BinaryOperator>(S);
    bool Branch = isa<clang::IfStmt>(S) || isa<clang::SwitchStmt>(S) ||
                  isa<clang::ConditionalOperator>(S) ||
                  isa<clang::LambdaExpr>(S) ||
                  (Logic && Logic->isLogicalOp()) ||
                  (Depth > 0 &&
                   (isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
                    isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S)));
    Branches += Branch;
    if (CurrentLoop && Depth > 0 &&
        (isa<clang::ForStmt>(S) || isa<clang::CXXForRangeStmt>(S) ||
         isa<clang::WhileStmt>(S) || isa<clang::DoStmt>(S)))
      CurrentLoop->HasInnerLoop = true;
    if (CurrentLoop && Depth > 0 && (Branch || callsUserCode(S)))
      CurrentLoop->StraightLine = false;
    for (const clang::Stmt *Child : S->children())
      walk(Child, ItemId, Inner, ChildParent, Depth + 1);
    Branches -= Branch;
  }

  /// Whether S calls a function the system headers do not declare (the
  /// user's, a lambda, or through a pointer).
  bool callsUserCode(const clang::Stmt *S) const {
    const auto *Call = dyn_cast<clang::CallExpr>(S);
    if (!Call)
      return false;
    const clang::FunctionDecl *Callee = Call->getDirectCallee();
    return !Callee || !Ctx.getSourceManager().isInSystemHeader(
                          Callee->getCanonicalDecl()->getLocation());
  }

  /// A qd::simt::block::shared_array declared in a parallel loop's body
  /// (anywhere else, the module reports it).
  void noteSharedArray(const clang::DeclStmt *DS) {
    const auto *V = dyn_cast<clang::VarDecl>(*DS->decl_begin());
    if (!CurrentLoop || !V || !isSharedArrayType(V->getType()))
      return;
    for (const clang::Decl *D : DS->decls())
      if (const auto *Each = dyn_cast<clang::VarDecl>(D))
        Blocks.SharedArraysInLoops.insert(Each);
    if (std::optional<unsigned> At =
            Rules.checkSharedArrayDecl(DS, SharedBytes[CurrentLoop->Id]))
      CurrentLoop->SharedArrays.push_back(*At);
  }

  /// qd::random and qd::randn in a parallel loop's body, called there or
  /// through the user's functions, keep each thread's state in the block's
  /// shared memory (prelude_gpu.h's rng slots), which the loop's shared
  /// arrays share; counted once per loop, at the first such call.
  void noteRandom(const clang::CallExpr *Call) {
    if (!CurrentLoop || RandomLoops.contains(CurrentLoop->Id) ||
        !Blocks.reachesRandom(Call->getDirectCallee()))
      return;
    RandomLoops.insert(CurrentLoop->Id);
    Rules.checkRandomSharedBytes(Call, SharedBytes[CurrentLoop->Id]);
  }

  /// A call that reaches qd::simt::block::sync: the loop runs whole
  /// blocks; a serial statement has none.
  void noteBlockSync(const clang::CallExpr *Call) {
    if (!Blocks.reachesSync(Call->getDirectCallee()))
      return;
    if (!CurrentLoop)
      Rules.reportSerialBlockSync(Call->getBeginLoc());
    else if (!CurrentLoop->BlockSync.isValid())
      CurrentLoop->BlockSync = Src.getLoc(Call->getBeginLoc());
  }

  /// Whether S stands as a statement of Parent (its value unused).
  static bool isStatementOf(const clang::Stmt *S, const clang::Stmt *Parent) {
    if (isa_and_nonnull<clang::CompoundStmt>(Parent))
      return true;
    // A statement with temporaries is S inside its cleanups.
    auto Is = [S](const clang::Stmt *Child) {
      if (const auto *E = dyn_cast_or_null<clang::ExprWithCleanups>(Child))
        Child = E->getSubExpr();
      return Child == S;
    };
    if (const auto *If = dyn_cast_or_null<clang::IfStmt>(Parent))
      return Is(If->getThen()) || Is(If->getElse());
    if (const auto *For = dyn_cast_or_null<clang::ForStmt>(Parent))
      return Is(For->getBody());
    if (const auto *For = dyn_cast_or_null<clang::CXXForRangeStmt>(Parent))
      return Is(For->getBody());
    if (const auto *While = dyn_cast_or_null<clang::WhileStmt>(Parent))
      return Is(While->getBody());
    if (const auto *Do = dyn_cast_or_null<clang::DoStmt>(Parent))
      return Is(Do->getBody());
    return false;
  }

  static constexpr const char *AtomicNames[] = {
      "atomic_add",      "atomic_sub",
      "atomic_mul",      "atomic_min",
      "atomic_max",      "atomic_and",
      "atomic_or",       "atomic_xor",
      "atomic_exchange", "atomic_compare_exchange"};

  /// `qd::atomic_<op>(s, e);` as a statement (add, sub, mul, min, max, and,
  /// or, xor), s a local: a reduction of s when the loop is parallel.
  void noteStatementAtomic(const clang::Stmt *S, const clang::Stmt *Parent) {
    const auto *Call = dyn_cast<clang::CallExpr>(S);
    if (!Call || Call->getNumArgs() != 2 || !isStatementOf(S, Parent))
      return;
    const clang::FunctionDecl *Callee = Call->getDirectCallee();
    static const std::pair<const char *, kir::ReduceOp> Reducing[] = {
        {"atomic_add", kir::ReduceOp::Add}, {"atomic_sub", kir::ReduceOp::Add},
        {"atomic_mul", kir::ReduceOp::Mul}, {"atomic_min", kir::ReduceOp::Min},
        {"atomic_max", kir::ReduceOp::Max}, {"atomic_and", kir::ReduceOp::And},
        {"atomic_or", kir::ReduceOp::Or},   {"atomic_xor", kir::ReduceOp::Xor}};
    std::optional<kir::ReduceOp> Op;
    for (auto [Name, R] : Reducing)
      if (isQdFunction(Callee, Name))
        Op = R;
    const auto *Ref =
        dyn_cast<clang::DeclRefExpr>(Call->getArg(0)->IgnoreParens());
    if (Op && Ref)
      StatementAtomics[Ref] = *Op;
  }

  /// How the loop being walked uses the local Ref names, Parent being the
  /// expression around Ref.
  std::pair<kir::LoopAccess::Kind, kir::ReduceOp>
  classifyLoopUse(const clang::DeclRefExpr *Ref, const clang::Stmt *Parent) {
    using Access = kir::LoopAccess;
    if (auto It = StatementAtomics.find(Ref); It != StatementAtomics.end())
      return {Access::Reduce, It->second};
    // The discarded left operand of a comma is at most read; a lambda's
    // capture by reference is no use by itself (the uses in its body,
    // walked like any others, say what it does).
    if (const auto *Comma = dyn_cast_or_null<clang::BinaryOperator>(Parent))
      if (Comma->getOpcode() == clang::BO_Comma &&
          Comma->getLHS()->IgnoreParens() == Ref)
        return {Access::Read, {}};
    if (isa_and_nonnull<clang::LambdaExpr>(Parent))
      return {Access::Read, {}};
    // An atomic whose old value is used (`out[qd::atomic_add(n, 1)] = i`).
    if (const auto *Call = dyn_cast_or_null<clang::CallExpr>(Parent))
      if (Call->getNumArgs() >= 2 && Call->getArg(0)->IgnoreParens() == Ref &&
          llvm::any_of(AtomicNames, [&](const char *Name) {
            return isQdFunction(Call->getDirectCallee(), Name);
          }))
        return {Access::Atomic, {}};
    if (const auto *Cast = dyn_cast_or_null<clang::ImplicitCastExpr>(Parent)) {
      if (Cast->getCastKind() == clang::CK_LValueToRValue)
        return {Access::Read, {}};
      // Bound to a const reference.
      if (Cast->getCastKind() == clang::CK_NoOp &&
          Cast->getType().isConstQualified())
        return {Access::Read, {}};
    }
    if (const auto *CA =
            dyn_cast_or_null<clang::CompoundAssignOperator>(Parent))
      if (CA->getLHS()->IgnoreParens() == Ref) {
        switch (CA->getOpcode()) {
        case clang::BO_AddAssign:
        case clang::BO_SubAssign:
          return {Access::Reduce, kir::ReduceOp::Add};
        case clang::BO_MulAssign:
          return {Access::Reduce, kir::ReduceOp::Mul};
        case clang::BO_OrAssign:
          return {Access::Reduce, kir::ReduceOp::Or};
        case clang::BO_AndAssign:
          return {Access::Reduce, kir::ReduceOp::And};
        case clang::BO_XorAssign:
          return {Access::Reduce, kir::ReduceOp::Xor};
        default:
          break;
        }
      }
    return {Access::Write, {}};
  }

  void noteLoopAccess(const clang::DeclRefExpr *Ref, const LocalInfo &Info,
                      const clang::Stmt *Parent) {
    auto [What, Op] = classifyLoopUse(Ref, Parent);
    kir::TextRange R = Src.getRange(Ref->getSourceRange());
    const kir::TextRange &Body = CurrentLoop->LoopBody;
    bool InHeader = R.isValid() && (R.Begin < Body.Begin || R.End > Body.End);
    for (const kir::LoopAccess &A : CurrentLoop->Accesses)
      if (A.DeclId == Info.StmtId && A.VarIndex == Info.VarIndex &&
          A.What == What && A.Op == Op && A.InHeader == InHeader)
        return;
    kir::LoopAccess A;
    A.DeclId = Info.StmtId;
    A.VarIndex = Info.VarIndex;
    A.What = What;
    A.Op = Op;
    A.Loc = Src.getLoc(Ref->getLocation());
    A.InHeader = InHeader;
    CurrentLoop->Accesses.push_back(A);
  }

  void noteLocalUse(const clang::DeclRefExpr *Ref, unsigned ItemId,
                    const clang::Stmt *Parent) {
    const auto *V = dyn_cast<clang::VarDecl>(Ref->getDecl());
    if (!V)
      return;
    auto It = Locals.find(V);
    if (It == Locals.end())
      return;
    const auto *Cast = dyn_cast_or_null<clang::ImplicitCastExpr>(Parent);
    if (!Cast || Cast->getCastKind() != clang::CK_LValueToRValue)
      It->second.Written = true;
    if (CurrentLoop && It->second.StmtId != ItemId)
      noteLoopAccess(Ref, It->second, Parent);
    if (It->second.StmtId == ItemId)
      return;
    if (SeenUses.insert({V, ItemId}).second)
      Uses.push_back({V, ItemId, Src.getLoc(Ref->getLocation())});
  }

  clang::ASTContext &Ctx;
  SourceInfo &Src;
  Sema &Rules;
  BlockFacts &Blocks;
  MemoryAccesses &Memory;
  const clang::FunctionDecl *FD;
  kir::Kernel K;
  /// The top-level statement being walked, its loop's index variables (in
  /// dimension order) and how many branches or nested loops are around the
  /// node being walked.
  kir::Stmt *CurrentItem = nullptr;
  std::vector<const clang::ValueDecl *> LoopIndexDecls;
  unsigned Branches = 0;
  unsigned NextId = 0;
  unsigned CurrentBlock = kir::Stmt::NoParent;
  /// How many qd::graph::do_while bodies the statement being built is in.
  unsigned GraphLoopDepth = 0;
  /// The top-level loop being walked, if any.
  kir::Stmt *CurrentLoop = nullptr;
  /// Bytes of each loop's shared arrays so far.
  llvm::DenseMap<unsigned, uint64_t> SharedBytes; ///< by loop Id
  llvm::DenseSet<unsigned> RandomLoops; ///< loops that call qd::random
  /// The statement before was `qd::loop_config({.serialize = true})`.
  bool SerializeNext = false;
  llvm::DenseMap<const clang::DeclRefExpr *, kir::ReduceOp> StatementAtomics;
  llvm::MapVector<const clang::VarDecl *, LocalInfo> Locals;
  /// What the kernel's final `return v;` returns, when it is a variable.
  const clang::VarDecl *ReturnDecl = nullptr;
  std::vector<std::tuple<const clang::VarDecl *, unsigned, SourceLoc>> Uses;
  llvm::DenseSet<std::pair<const clang::VarDecl *, unsigned>> SeenUses;
};

//===----------------------------------------------------------------------===//
// The translation unit
//===----------------------------------------------------------------------===//

/// Collects every QD_STREAM_PARALLEL block below a statement; in device
/// code (a QD_FUNC's body) also checks each node.
void findBlocks(const clang::Stmt *S, SourceInfo &Src, Sema &Rules,
                bool IsDevice, std::vector<SourceLoc> &Out,
                unsigned Depth = 0) {
  if (!S || !Rules.checkNesting(S, Depth))
    return;
  if (IsDevice) {
    Rules.checkDeviceNode(S);
    Rules.checkNotLoopConfig(S);
  }
  if (const auto *Call = dyn_cast<clang::CallExpr>(S))
    Rules.checkNoDoWhile(Call);
  if (isStreamParallelBlock(S))
    Out.push_back(Src.getLoc(S->getBeginLoc()));
  for (const clang::Stmt *Child : S->children())
    findBlocks(Child, Src, Rules, IsDevice, Out, Depth + 1);
}

class ModuleVisitor : public clang::RecursiveASTVisitor<ModuleVisitor> {
public:
  ModuleVisitor(clang::ASTContext &Ctx, DiagEngine &Diags, bool CheckDeviceCode)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Diags(Diags), Src(Ctx),
        Rules(Ctx, Src, Diags, CheckDeviceCode) {}

  kir::Module take() {
    M.ImplicitDeviceFunctions = Rules.getImplicitDeviceFunctionStarts();
    M.UsesCMath = Rules.usesCMath();
    M.Records = Rules.takeRecords();
    M.UsesAsserts = isQdDetailReferenced("assert_check_") ||
                    isGlobalReferenced("__assert_fail");
    // A loop with block syncs checks its blocks are whole on the device,
    // and reports it through the assertion record.
    for (const kir::Kernel &K : M.Kernels)
      for (const kir::Stmt &Top : K.Body)
        kir::walkStmts(Top, [&](const kir::Stmt &S) {
          M.UsesAsserts |= S.BlockSync.isValid();
        });
    for (const clang::VarDecl *V : SharedArrays)
      if (!Blocks.SharedArraysInLoops.contains(V))
        Rules.reportMisplacedSharedArray(V);
    bool Random = usesQdTemplate("random") || usesQdTemplate("randn");
    for (kir::Kernel &K : M.Kernels)
      K.UsesRandom = Random;
    return std::move(M);
  }

  /// The prelude's and the system headers' declarations are none of the
  /// user's, and are not walked: walking them made Clang read every
  /// declaration of a precompiled prelude back from its file (four fifths
  /// of a one-kernel parse's instructions, callgrind, 2026-11-27).
  bool TraverseDecl(clang::Decl *D) {
    if (D && !llvm::isa<clang::TranslationUnitDecl>(D) && isInPrelude(D))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (isInPrelude(FD))
      return true;
    // On any declaration, a member's or a function's without a body too.
    if (hasAnnotation(FD, "qd.graph") && !hasAnnotation(FD, "qd.kernel"))
      Diags.report(DiagID::err_graph_not_kernel, Src.getLoc(FD->getLocation()))
          << FD->getQualifiedNameAsString();
    if (hasAnnotation(FD, "qd.noalias") && !hasAnnotation(FD, "qd.kernel"))
      Diags.report(DiagID::err_noalias_not_kernel,
                   Src.getLoc(FD->getLocation()))
          << FD->getQualifiedNameAsString();
    if (!FD->doesThisDeclarationHaveABody())
      return true;
    if (hasAnnotation(FD, "qd.kernel")) {
      visitKernel(FD);
      return true;
    }
    kir::Function F;
    F.Name = FD->getQualifiedNameAsString();
    F.Loc = Src.getLoc(FD->getLocation());
    F.IsDevice = hasAnnotation(FD, "qd.func");
    if (F.IsDevice)
      Rules.checkSymbolName(FD, "QD_FUNC");
    findBlocks(FD->getBody(), Src, Rules, F.IsDevice, F.StreamParallelBlocks);
    if (F.IsDevice || !F.StreamParallelBlocks.empty())
      M.Functions.push_back(std::move(F));
    return true;
  }

  /// A lambda outside every function body (at namespace scope, in a
  /// default argument) is checked like a function: no QD_STREAM_PARALLEL.
  /// Lambdas inside bodies are checked with their function.
  bool VisitLambdaExpr(clang::LambdaExpr *L) {
    const clang::FunctionDecl *Parent =
        llvm::dyn_cast_or_null<clang::FunctionDecl>(
            L->getLambdaClass()->getParentFunctionOrMethod());
    if (Parent && Parent->getBody() &&
        !SM.isBeforeInTranslationUnit(L->getBeginLoc(),
                                      Parent->getBody()->getBeginLoc()))
      return true;
    kir::Function F;
    F.Name = "lambda";
    F.Loc = Src.getLoc(L->getBeginLoc());
    F.IsDevice = false;
    findBlocks(L->getBody(), Src, Rules, false, F.StreamParallelBlocks);
    if (!F.StreamParallelBlocks.empty())
      M.Functions.push_back(std::move(F));
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *V) {
    if (!isInPrelude(V) && isSharedArrayType(V->getType()))
      SharedArrays.push_back(V);
    if (isa<clang::ParmVarDecl>(V) || isInPrelude(V) ||
        !V->getDeclContext()->getRedeclContext()->isFileContext())
      return true;
    const auto *Spec = getQdSpecialization(V->getType(), "field");
    if (!Spec)
      return true;
    const clang::TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() != 2 ||
        Args[0].getKind() != clang::TemplateArgument::Type ||
        Args[1].getKind() != clang::TemplateArgument::Pack)
      return true;
    std::string Record;
    std::optional<kir::ScalarType> Elem =
        Rules.checkField(V, Args[0].getAsType(), Record);
    if (!Elem)
      return true;
    kir::Field F;
    F.ElemRecord = Record;
    F.Name = V->getNameAsString();
    F.Scope = getScope(V->getDeclContext());
    F.Symbol = getMangledName(V);
    F.Elem = *Elem;
    F.Loc = Src.getLoc(V->getLocation());
    F.Decl = Src.getRange(V->getSourceRange());
    // `qd::field<float, N> a, b;`: every declarator shares the first one's
    // start, where a storage qualifier goes.
    if (F.Decl.isValid())
      F.Decl.Begin =
          SM.getFileOffset(SM.getExpansionLoc(V->getOuterLocStart()));
    for (const clang::TemplateArgument &Dim : Args[1].pack_elements())
      F.Shape.push_back(Dim.getAsIntegral().getExtValue());
    M.Fields.push_back(std::move(F));
    return true;
  }

private:
  /// Whether the function template qd::<Name> was instantiated: called
  /// somewhere in the file (a kernel, a QD_FUNC or any function they call).
  bool usesQdTemplate(llvm::StringRef Name) {
    clang::TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
    for (const clang::Decl *D : TU->decls()) {
      const auto *NS = dyn_cast<clang::NamespaceDecl>(D);
      if (!NS || NS->getName() != "qd")
        continue;
      for (const clang::NamedDecl *Found : NS->lookup(&Ctx.Idents.get(Name)))
        if (const auto *FT = dyn_cast<clang::FunctionTemplateDecl>(Found))
          if (!FT->specializations().empty())
            return true;
    }
    return false;
  }

  /// Whether the global function Name is used (assert calls
  /// __assert_fail).
  bool isGlobalReferenced(llvm::StringRef Name) {
    for (const clang::NamedDecl *Found :
         Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name)))
      if (Found->isReferenced())
        return true;
    return false;
  }

  /// Whether the function qd::detail::<Name> is used (QD_ASSERT calls one).
  bool isQdDetailReferenced(llvm::StringRef Name) {
    for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      const auto *NS = dyn_cast<clang::NamespaceDecl>(D);
      if (!NS || NS->getName() != "qd")
        continue;
      for (const clang::NamedDecl *Inner :
           NS->lookup(&Ctx.Idents.get("detail")))
        if (const auto *Detail = dyn_cast<clang::NamespaceDecl>(Inner))
          for (const clang::NamedDecl *Found :
               Detail->lookup(&Ctx.Idents.get(Name)))
            if (Found->isReferenced())
              return true;
    }
    return false;
  }

  std::string getMangledName(const clang::VarDecl *V) {
    if (!Mangler)
      Mangler.reset(Ctx.createMangleContext());
    if (!Mangler->shouldMangleDeclName(V))
      return V->getName().str();
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    Mangler->mangleName(clang::GlobalDecl(V), OS);
    return OS.str();
  }

  /// The prelude's own declarations. The main file is never the prelude,
  /// even after a line marker that calls what follows a system header.
  bool isInPrelude(const clang::Decl *D) const {
    return !SM.isWrittenInMainFile(D->getLocation()) &&
           SM.isInSystemHeader(D->getLocation());
  }

  void visitKernel(const clang::FunctionDecl *FD) {
    if (Rules.checkKernelDecl(FD))
      M.Kernels.push_back(
          KernelBuilder(Ctx, Src, Rules, Blocks, Memory, FD).build());
  }

  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  DiagEngine &Diags;
  SourceInfo Src;
  Sema Rules;
  BlockFacts Blocks{SM};
  MemoryAccesses Memory{Ctx, Src};
  /// Every qd::simt::block::shared_array variable of the user's code.
  std::vector<const clang::VarDecl *> SharedArrays;
  kir::Module M;
  std::unique_ptr<clang::MangleContext> Mangler;
};

} // namespace

kir::Module qdc::buildModule(clang::ASTContext &Ctx, DiagEngine &Diags,
                             bool CheckDeviceCode) {
  ModuleVisitor V(Ctx, Diags, CheckDeviceCode);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  kir::Module M = V.take();
  clang::SourceManager &SM = Ctx.getSourceManager();
  if (clang::OptionalFileEntryRef FE =
          SM.getFileEntryRefForID(SM.getMainFileID()))
    M.SourceFile = llvm::sys::path::filename(FE->getName()).str();
  M.Source = SM.getBufferData(SM.getMainFileID()).str();
  return M;
}
