//===- KIRBuilders.h - Small KIR modules for unit tests ---------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TEST_UNITTESTS_KIRBUILDERS_H
#define QDC_TEST_UNITTESTS_KIRBUILDERS_H

#include "qdc/KIR/Kernel.h"

namespace qdc::test {

inline SourceLoc loc(unsigned Line, unsigned Col = 3) {
  return {"t.qd", Line, Col};
}

/// A kernel body under construction; statements get pre-order ids.
class KernelBuilder {
public:
  explicit KernelBuilder(std::string Name) { K.Name = std::move(Name); }

  kir::Stmt loop(unsigned Line, std::string Var, std::string End) {
    kir::Stmt S = make(kir::StmtKind::Loop, Line);
    S.Form = kir::LoopForm::Range;
    S.IndexVars.push_back(std::move(Var));
    kir::Extent E{{"0", 0}, {End, std::nullopt}};
    S.Extents.push_back(E);
    return S;
  }
  kir::Stmt serial(unsigned Line) { return make(kir::StmtKind::Serial, Line); }
  kir::Stmt local(unsigned Line, std::string Name, bool Shareable) {
    kir::Stmt S = make(kir::StmtKind::Local, Line);
    S.Name = Name;
    // analyze-locals derives Shareable from the variable's facts.
    kir::LocalVar V;
    V.Name = std::move(Name);
    V.Recomputable = Shareable;
    S.Vars.push_back(std::move(V));
    return S;
  }
  kir::Stmt config(unsigned Line, unsigned BlockDim) {
    kir::Stmt S = make(kir::StmtKind::LoopConfig, Line);
    S.Config.BlockDim = BlockDim;
    return S;
  }
  /// A block; its id is taken before the children's, so build it first:
  /// `auto B = KB.block(3); B.Body.push_back(KB.loop(...));`.
  kir::Stmt block(unsigned Line) { return make(kir::StmtKind::Block, Line); }

  kir::Kernel take(std::vector<kir::Stmt> Body) {
    K.Loc = loc(1, 16);
    K.Body = std::move(Body);
    return std::move(K);
  }

private:
  kir::Stmt make(kir::StmtKind Kind, unsigned Line) {
    kir::Stmt S;
    S.Kind = Kind;
    S.Id = NextId++;
    S.Loc = loc(Line);
    return S;
  }

  kir::Kernel K;
  unsigned NextId = 0;
};

} // namespace qdc::test

#endif // QDC_TEST_UNITTESTS_KIRBUILDERS_H
