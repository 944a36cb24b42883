//===- Printer.h - Textual forms of the kernel IR ---------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Deterministic dumps of a module: the KIR itself
// (--emit=kir) and the stream plan, as text or Graphviz DOT
// (--emit=stream-plan). The output depends only on the module's contents.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_KIR_PRINTER_H
#define QDC_KIR_PRINTER_H

#include "llvm/Support/raw_ostream.h"

namespace qdc::kir {

struct Module;
struct Extent;

/// Prints fields, functions, kernels with their parameters, top-level
/// statements and tasks.
void printModule(const Module &M, llvm::raw_ostream &OS);

/// Prints, per kernel, the groups, their tasks in order and the fork/join
/// points.
void printStreamPlan(const Module &M, llvm::raw_ostream &OS);

/// The stream plan as a Graphviz digraph: one cluster per kernel, one per
/// group, edges for stream order, fork and join.
void printStreamPlanDot(const Module &M, llvm::raw_ostream &OS);

/// Prints an extent as `[begin, end)`.
void printExtent(const Extent &E, llvm::raw_ostream &OS);

} // namespace qdc::kir

#endif // QDC_KIR_PRINTER_H
