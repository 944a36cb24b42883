//===- Printer.cpp - Textual form of the kernel IR ------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The --emit=kir dump. One line per entity, positions as
// line:col (the file is named once), nothing that depends on addresses.
//
//===----------------------------------------------------------------------===//

#include "qdc/KIR/Printer.h"
#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace qdc;
using namespace qdc::kir;

static void printPos(const SourceLoc &Loc, llvm::raw_ostream &OS) {
  OS << "  ; " << Loc.Line << ':' << Loc.Column;
}

static void printBound(const Bound &B, llvm::raw_ostream &OS) {
  OS << B.Text;
  if (B.Value && std::to_string(*B.Value) != B.Text)
    OS << "=" << *B.Value;
}

void qdc::kir::printExtent(const Extent &E, llvm::raw_ostream &OS) {
  OS << '[';
  printBound(E.Begin, OS);
  OS << ", ";
  printBound(E.End, OS);
  OS << ')';
}

/// A scalar's KIR name, or a struct's "struct Name".
static std::string getElemName(ScalarType Elem, const std::string &Record) {
  return Record.empty() ? getScalarTypeName(Elem).str() : "struct " + Record;
}

static void printParam(const Param &P, llvm::raw_ostream &OS) {
  OS << P.Name << ": ";
  std::string Elem = getElemName(P.Elem, P.ElemRecord);
  switch (P.Kind) {
  case ParamKind::Scalar:
    OS << Elem;
    return;
  case ParamKind::Ndarray:
    OS << "ndarray<" << Elem << ", " << P.Dims << '>';
    return;
  case ParamKind::Pointer:
    OS << (P.PointeeConst ? "ptr<const " : "ptr<") << Elem << '>'
       << (P.Restrict ? " restrict" : "");
    return;
  case ParamKind::Unsupported:
    OS << "unsupported '" << P.Spelling << "'";
    return;
  }
  llvm_unreachable("unknown ParamKind");
}

static void printLoopHead(llvm::ArrayRef<std::string> Vars,
                          llvm::ArrayRef<Extent> Extents,
                          llvm::raw_ostream &OS) {
  for (size_t I = 0; I < Extents.size(); ++I) {
    if (I)
      OS << " x ";
    OS << (I < Vars.size() ? Vars[I] : std::string("?")) << " in ";
    printExtent(Extents[I], OS);
  }
}

static void printStmt(const Stmt &S, unsigned Indent, llvm::raw_ostream &OS) {
  OS.indent(Indent) << "stmt " << S.Id << ": ";
  switch (S.Kind) {
  case StmtKind::Loop:
    OS << (S.Form == LoopForm::NdRange ? "ndrange-loop "
           : S.Form == LoopForm::Range ? "range-loop "
                                       : "for-loop ");
    printLoopHead(S.IndexVars, S.Extents, OS);
    break;
  case StmtKind::Serial:
    OS << "serial";
    break;
  case StmtKind::Local:
    OS << "local " << S.Name << (S.Shareable ? " shareable" : "")
       << (!S.Vars.empty() && S.Vars[0].FromParam ? " from-param" : "");
    for (const LocalUse &U : S.Uses)
      OS << " used-by=" << U.StmtId;
    break;
  case StmtKind::LoopConfig:
    OS << "loop-config block_dim="
       << formatBlockDim(S.Config.BlockDim, S.Config.BlockShape);
    if (S.Config.Serialize)
      OS << " serialize";
    if (S.Config.Parallelize)
      OS << " parallelize=" << S.Config.Parallelize;
    break;
  case StmtKind::Block:
    OS << "stream-parallel group=" << S.Group;
    break;
  case StmtKind::GraphLoop:
    OS << "graph-do-while " << (S.FlagIsField ? "field " : "param ") << S.Flag;
    break;
  }
  printPos(S.Loc, OS);
  OS << '\n';
  for (const Stmt &Child : S.Body)
    printStmt(Child, Indent + 2, OS);
}

static void printLoops(llvm::ArrayRef<GraphLoop> Loops, llvm::StringRef What,
                       unsigned Indent, llvm::raw_ostream &OS) {
  for (const GraphLoop &L : Loops)
    OS.indent(Indent) << "do-while stmt " << L.StmtId << ": " << What << " ["
                      << L.FirstTask << ", " << L.getEndTask() << ")\n";
}

/// The constants a serial task writes instead of running (getScalarFills).
static void printFills(const Kernel &K, const Task &T, llvm::raw_ostream &OS) {
  for (auto [I, Fill] : llvm::enumerate(getScalarFills(K, T))) {
    const LocalVar &V = K.findStmt(Fill.first)->Vars[Fill.second];
    OS << (I ? "," : " fills=") << V.Name << ":0x"
       << llvm::utohexstr(*V.ConstantBits, /*LowerCase=*/true);
  }
}

static void printTask(const Kernel &K, const Task &T, unsigned Indent,
                      llvm::raw_ostream &OS) {
  OS.indent(Indent) << (Indent > 2 ? "part " : "task ") << T.Name << ": "
                    << getTaskKindName(T.Kind);
  if (T.Kind == TaskKind::Range || T.Kind == TaskKind::NdRange) {
    OS << ' ';
    printLoopHead(T.IndexVars, T.Extents, OS);
  }
  OS << " block_dim=";
  if (T.BlockDim)
    OS << formatBlockDim(T.BlockDim, T.BlockShape);
  else
    OS << "default";
  if (T.CpuThreads)
    OS << " cpu_threads=" << T.CpuThreads;
  OS << " group=" << T.Group << " stmts=";
  for (size_t I = 0; I < T.StmtIds.size(); ++I)
    OS << (I ? "," : "") << T.StmtIds[I];
  if (Indent == 2) // a part runs inside its fused task, never as a fill
    printFills(K, T, OS);
  if (T.EvaluatesBounds)
    OS << " evaluates-bounds";
  else if (T.BoundsInScalars)
    OS << " bounds-stored";
  else if (T.DeviceBounds)
    OS << " device-bounds";
  printPos(T.Loc, OS);
  OS << '\n';
  for (const Task &P : T.Parts)
    printTask(K, P, Indent + 2, OS);
  printLoops(T.PartLoops, "parts", Indent + 2, OS);
}

void qdc::kir::printModule(const Module &M, llvm::raw_ostream &OS) {
  OS << "module '" << M.SourceFile << "'\n";
  for (const Field &F : M.Fields) {
    OS << "field " << F.getQualifiedName() << ": "
       << getElemName(F.Elem, F.ElemRecord);
    for (int64_t D : F.Shape)
      OS << '[' << D << ']';
    printPos(F.Loc, OS);
    OS << '\n';
  }
  for (const Function &F : M.Functions) {
    OS << (F.IsDevice ? "func " : "host-func ") << F.Name;
    printPos(F.Loc, OS);
    OS << '\n';
  }
  for (const Kernel &K : M.Kernels) {
    OS << "kernel " << K.Name << '(';
    for (size_t I = 0; I < K.Params.size(); ++I) {
      if (I)
        OS << ", ";
      printParam(K.Params[I], OS);
    }
    OS << ')';
    if (!K.ReturnsVoid)
      OS << " -> '" << K.ReturnType << "'";
    OS << " groups=" << K.NumGroups << " tasks=" << K.Tasks.size();
    printPos(K.Loc, OS);
    OS << '\n';
    for (const Stmt &S : K.Body)
      printStmt(S, 2, OS);
    if (!K.RecomputedLocals.empty()) {
      OS << "  recompute";
      for (unsigned Id : K.RecomputedLocals)
        if (const Stmt *S = K.findStmt(Id))
          OS << ' ' << S->Name;
      OS << '\n';
    }
    for (const Task &T : K.Tasks)
      printTask(K, T, 2, OS);
    printLoops(K.Loops, "tasks", 2, OS);
  }
}
