//===- Verifier.cpp - Invariants of a lowered module ----------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "qdc/KIR/Verifier.h"
#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace qdc::kir;

static llvm::Error fail(const Kernel &K, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "kernel '" + K.Name + "': " + Why);
}

/// Loops in preorder over NumTasks tasks: each within the tasks, each
/// after the one before it, nested loops within their outer loop.
static bool isLoopNest(llvm::ArrayRef<GraphLoop> Loops, size_t NumTasks) {
  llvm::SmallVector<unsigned, 4> Ends; // of the loops open at this point
  unsigned LastFirst = 0;
  for (const GraphLoop &L : Loops) {
    if (L.getEndTask() > NumTasks || L.FirstTask < LastFirst)
      return false;
    while (!Ends.empty() && Ends.back() <= L.FirstTask)
      Ends.pop_back();
    if (!Ends.empty() && L.getEndTask() > Ends.back())
      return false;
    Ends.push_back(L.getEndTask());
    LastFirst = L.FirstTask;
  }
  return true;
}

static llvm::Error verifyKernel(const Kernel &K) {
  if (!isLoopNest(K.Loops, K.Tasks.size()))
    return fail(K, "its do_while loops are not nested in order");
  llvm::StringSet<> Names;
  unsigned LastGroup = 0;
  bool AfterJoin = false;
  for (const Task &T : K.Tasks) {
    if (!Names.insert(T.Name).second)
      return fail(K, "duplicate task name '" + T.Name + "'");
    if (T.StmtIds.empty())
      return fail(K, "task '" + T.Name + "' runs no statement");
    for (unsigned Id : T.StmtIds)
      if (!K.findStmt(Id))
        return fail(K, llvm::formatv("task '{0}' names unknown statement {1}",
                                     T.Name, Id));
    switch (T.Kind) {
    case TaskKind::Serial:
      if (!T.Extents.empty())
        return fail(K, "serial task '" + T.Name + "' has a range");
      break;
    case TaskKind::Range:
      if (T.Extents.size() != 1 || T.IndexVars.size() != 1)
        return fail(K, "range task '" + T.Name + "' is not one-dimensional");
      break;
    case TaskKind::NdRange:
      if (T.Extents.empty() || T.Extents.size() != T.IndexVars.size())
        return fail(K, "ndrange task '" + T.Name +
                           "' has mismatched indices and extents");
      break;
    case TaskKind::Fused:
      if (T.Parts.empty() || T.BlockDim == 0)
        return fail(K, "fused task '" + T.Name + "' has no parts or no block");
      for (const Task &P : T.Parts)
        if (P.Kind == TaskKind::Fused || P.Group != T.Group || P.DeviceBounds)
          return fail(K, "fused task '" + T.Name + "' has a part '" + P.Name +
                             "' it cannot run");
      if (llvm::any_of(T.PartLoops,
                       [](const GraphLoop &L) { return L.NumTasks == 0; }) ||
          !isLoopNest(T.PartLoops, T.Parts.size()))
        return fail(K, "the loops of fused task '" + T.Name +
                           "' are empty or not nested in order");
      break;
    }
    if (T.Group > K.NumGroups)
      return fail(K, llvm::formatv("task '{0}' is in group {1} of {2}", T.Name,
                                   T.Group, K.NumGroups));
    // A kernel of groups may run tasks of group 0 before the fork and after
    // the join (DESIGN section 2, rule 1), none between.
    if (T.Group == 0 && K.NumGroups && LastGroup != 0)
      AfterJoin = true;
    else if (T.Group < LastGroup || (AfterJoin && T.Group != 0))
      return fail(K, "groups of task '" + T.Name + "' are out of order");
    LastGroup = T.Group;
  }
  return llvm::Error::success();
}

llvm::Error qdc::kir::verifyModule(const Module &M) {
  for (const Kernel &K : M.Kernels)
    if (llvm::Error E = verifyKernel(K))
      return E;
  return llvm::Error::success();
}
