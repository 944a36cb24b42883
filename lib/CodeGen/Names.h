//===- Names.h - The names generated code uses ------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every identifier qdc writes into generated code, in one
// place. Generated names end in `_` (or `_qd_args`) so that they cannot
// clash with the user's; task names are chosen by form-tasks.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_NAMES_H
#define QDC_LIB_CODEGEN_NAMES_H

#include "qdc/KIR/Kernel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace qdc::codegen::names {

// In task functions.
inline constexpr llvm::StringLiteral Args = "qd_args_";   ///< argument block
inline constexpr llvm::StringLiteral Count = "qd_n_";     ///< GPU trip count
inline constexpr llvm::StringLiteral ArgPtr = "qd_p_";    ///< CPU args pointer
inline constexpr llvm::StringLiteral Begin = "qd_begin_"; ///< CPU chunk start
inline constexpr llvm::StringLiteral End = "qd_end_";     ///< CPU chunk end
inline constexpr llvm::StringLiteral Index = "qd_k_";     ///< linear index
inline constexpr llvm::StringLiteral Rest = "qd_r_";      ///< ndrange divide
/// The kernel scalars of the call, in device memory.
inline constexpr llvm::StringLiteral Scalars = "qd_scalars_";
/// The module's assertion record (qdrt_assert_record).
inline constexpr llvm::StringLiteral AssertRecord = "qd_assert_record_";
/// The argument-block member with the call's key for qd::random.
inline constexpr llvm::StringLiteral RandomKey = "qd_random_key_";
/// The return value's place among them.
inline constexpr llvm::StringLiteral Return = "qd_ret_";
// In the launcher translation unit.
inline constexpr llvm::StringLiteral Launch = "qd_launch_";
inline constexpr llvm::StringLiteral Module = "qd_module_";
inline constexpr llvm::StringLiteral Descriptor = "qd_desc_";
inline constexpr llvm::StringLiteral Images = "qd_images_";
inline constexpr llvm::StringLiteral Tasks = "qd_tasks_";
inline constexpr llvm::StringLiteral Kernels = "qd_kernels_";
inline constexpr llvm::StringLiteral Fields = "qd_fields_";

/// The I-th embedded device image: `qd_image<I>_`.
inline std::string image(size_t I) {
  return "qd_image" + std::to_string(I) + "_";
}

/// A kernel's argument struct: `<kernel>_qd_args`.
inline std::string argsStruct(const kir::Kernel &K) {
  return K.Name + "_qd_args";
}

/// A kernel's struct of kernel scalars: `<kernel>_qd_scalars`.
inline std::string scalarsStruct(const kir::Kernel &K) {
  return K.Name + "_qd_scalars";
}

/// Variable V of local statement Id in that struct: `<name>_<id>`.
inline std::string scalarMember(const kir::LocalVar &V, unsigned Id) {
  return V.Name + "_" + std::to_string(Id);
}

/// The private accumulator of the I-th reduced scalar of a loop task.
inline std::string accumulator(size_t I) {
  return "qd_acc" + std::to_string(I) + "_";
}

/// The I-th hoisted bound of a task that evaluates its range on the device.
inline std::string hoistedBound(size_t I) {
  return "qd_bound" + std::to_string(I) + "_";
}

/// The slots in the kernel-scalar block that hold the bounds of the loop
/// statement Id, evaluated once by the task before it: `qd_bounds<Id>_`.
inline std::string boundSlots(unsigned StmtId) {
  return "qd_bounds" + std::to_string(StmtId) + "_";
}

/// A task's latency version on GPUs (kir::Task::LatencyVersion,
/// LatencyVersions.h).
inline constexpr llvm::StringLiteral LatencySuffix = "_lat";
inline std::string latencyEntry(const kir::Task &Tk) {
  return Tk.Name + LatencySuffix.str();
}
/// Whether a task has one: a loop task (not a fused one) that asks for it.
inline bool hasLatencyEntry(const kir::Task &Tk) {
  return Tk.LatencyVersion &&
         (Tk.Kind == kir::TaskKind::Range || Tk.Kind == kir::TaskKind::NdRange);
}

/// A tiled task's narrow entry on GPUs (qdrt_task_desc::narrow_name):
/// one block per tile, ndarray offsets in 32 bits.
inline constexpr llvm::StringLiteral NarrowSuffix = "_nar";
inline std::string narrowEntry(const kir::Task &Tk) {
  return Tk.Name + NarrowSuffix.str();
}
/// The CPU function that says whether it may run, and its grid
/// (qdrt_task_desc::narrow_grid).
inline std::string narrowGridFunction(const kir::Task &Tk) {
  return Tk.Name + "_narrow_grid";
}
/// Whether a task has one: a tiled loop task (not a fused one) of at most
/// three dimensions, whose bounds the launch computes, with no block
/// barrier in its body (its threads outside the range skip the body), in a
/// kernel that is neither a graph nor has do_while loops (their recorded
/// launches keep their grids when replayed with other arguments).
inline bool hasNarrowEntry(const kir::Kernel &K, const kir::Task &Tk) {
  if (Tk.BlockShape.empty() || Tk.DeviceBounds || Tk.Extents.size() > 3 ||
      K.IsGraph || !K.Loops.empty() ||
      (Tk.Kind != kir::TaskKind::Range && Tk.Kind != kir::TaskKind::NdRange))
    return false;
  const kir::Stmt *Loop = K.findStmt(Tk.StmtIds.front());
  return Loop && !Loop->BlockSync.isValid();
}

/// Whether a task's narrow entry runs at any size (QDRT_TASK_NARROW_ALWAYS):
/// where its tile leaves leading dimensions out, whose spans measured
/// slower than a block per tile (the 3-D convolution); a tile over every
/// dimension runs it for small launches only (performance.md).
inline bool runsNarrowAlways(const kir::Kernel &K, const kir::Task &Tk) {
  return hasNarrowEntry(K, Tk) && Tk.Extents.size() > Tk.BlockShape.size();
}

/// The CPU function that computes a device-bounds task's trip count.
inline std::string tripFunction(const kir::Task &Tk) {
  return Tk.Name + "_trip";
}

/// Name, declared in Scope, as seen from the global namespace:
/// `::scope::name`.
inline std::string qualified(llvm::StringRef Scope, llvm::StringRef Name) {
  return "::" + (Scope.empty() ? "" : Scope.str() + "::") + Name.str();
}

/// The generated namespace's name for an input file: --namespace= when
/// given, else the file's stem made into a C++ identifier.
std::string getNamespace(llvm::StringRef InputFile, llvm::StringRef Override);

/// An error unless Name is `a` or `a::b::c`, each an ASCII identifier that
/// is not a C++ keyword.
llvm::Error checkNamespace(llvm::StringRef Name);

/// The Itanium mangling prefix of names in Namespace ("a::b" -> "_ZN1a1b"):
/// the host object keeps only symbols that start with it global.
std::string getMangledPrefix(llvm::StringRef Namespace);

} // namespace qdc::codegen::names

#endif // QDC_LIB_CODEGEN_NAMES_H
