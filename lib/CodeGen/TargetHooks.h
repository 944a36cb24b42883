//===- TargetHooks.h - What differs between targets -------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The rewriter writes every target's tasks with one algorithm;
// what differs between CUDA, HIP and the CPU is asked of the target's hook
// object (as Halide's CodeGen_C asks its dialect subclasses). A GPU target's
// hooks also own its whole pipeline: the device compile's arguments, the
// image and its native code. Each target is one file in Targets/ (as
// Halide's CodeGen_PTX_Dev.cpp), and nothing else in lib/CodeGen branches on
// the target.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_TARGETHOOKS_H
#define QDC_LIB_CODEGEN_TARGETHOOKS_H

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/KIR/Kernel.h"
#include "qdc/Target/OffloadTarget.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc::codegen {

class TargetHooks {
public:
  virtual ~TargetHooks() = default;

  /// The first lines of the translation unit: a banner naming SourceFile and
  /// the include of the target's prelude.
  virtual std::string getBanner(llvm::StringRef SourceFile) const = 0;
  /// What goes before a field's declaration ("__device__ " on GPUs).
  virtual llvm::StringRef getFieldQualifier() const = 0;
  /// Around a task's work when the module has QD_ASSERTs: on the CPU a
  /// failure throws, which ends the thread's chunk.
  virtual llvm::StringRef getAssertTry() const { return {}; }
  virtual llvm::StringRef getAssertCatch() const { return {}; }
  /// What goes before the declarations of the .qd's functions that device
  /// code calls without QD_FUNC ("__host__ __device__ " on GPUs).
  virtual llvm::StringRef getImplicitDeviceQualifier() const { return {}; }
  /// What goes before a qd::simt::block::shared_array declaration
  /// ("__shared__ " on GPUs; on the CPU a block is one thread).
  virtual llvm::StringRef getSharedQualifier() const { return {}; }
  /// Whether a block has several threads, so that a loop calling
  /// qd::simt::block::sync checks that its blocks are whole when it starts.
  virtual bool hasThreadBlocks() const { return false; }
  /// A task's entry point up to its opening brace and the binding of the
  /// argument block to `qd_args_` (when the kernel has parameters).
  virtual void emitEntry(llvm::raw_ostream &OS, const kir::Kernel &K,
                         const kir::Task &Tk) const = 0;
  /// A part of a fused task up to its opening brace: a function the fused
  /// task's entry calls, which binds `qd_args_` as emitEntry does.
  virtual void emitPartEntry(llvm::raw_ostream &OS, const kir::Kernel &K,
                             const kir::Task &Part) const {
    emitEntry(OS, K, Part);
  }
  /// The statement in a fused task's entry that runs Part over Count
  /// iterations.
  virtual std::string getPartCall(const kir::Kernel &K, const kir::Task &Part,
                                  int64_t Count) const = 0;
  /// The start of a fused task's body: on the CPU, only the call's first
  /// chunk runs the parts.
  virtual llvm::StringRef getFusedGuard() const = 0;
  /// The condition that picks one iteration to run a serial task:
  /// `  if (<first iteration>) {`.
  virtual llvm::StringRef getSerialGuard() const = 0;
  /// The loop over this thread's linear indices `qd_k_`, up to its brace.
  virtual llvm::StringRef getIndexLoop() const = 0;
  /// The same for a loop that reduces into kernel scalars: it only reads
  /// memory besides, so a GPU unrolls it to keep more loads in flight
  /// when Unroll says so (kir::Task::UnrollReduction).
  virtual llvm::StringRef getReductionIndexLoop(bool Unroll) const {
    (void)Unroll;
    return getIndexLoop();
  }
  /// Whether a tiled ndrange task (`.block_dim = {32, 8}`) runs its tiles
  /// as blocks; else (the CPU, whose block is one thread) it runs as the
  /// same task without a tile.
  virtual bool hasBlockShapes() const { return false; }
  /// The task's whole iteration count in its loop's body, or empty where
  /// the body has only its chunk of it (the CPU).
  virtual llvm::StringRef getIterationCount() const { return {}; }
  /// The same for a part of a fused task, whose launch has at least as
  /// many threads as the part has iterations where the target has blocks.
  virtual llvm::StringRef getPartIndexLoop() const { return getIndexLoop(); }
  /// Whether a task that evaluates its range when it starts also gets a
  /// function computing its trip count, which the runtime calls first
  /// (the CPU's thread pool splits the count; a GPU task covers it with a
  /// grid-stride loop of its own).
  virtual bool hasHostTripFunctions() const { return false; }
};

/// A GPU target: its dialect, and how its translation unit becomes the
/// images the runtime loads.
class DeviceHooks : public TargetHooks {
public:
  /// The extension Clang sees the device source under (".cu", ".hip").
  virtual llvm::StringRef getSourceExtension() const = 0;
  /// The header the device source includes first, and the language (-x)
  /// it is compiled as: what its precompiled header is made of.
  virtual llvm::StringRef getPrelude() const = 0;
  virtual llvm::StringRef getLanguage() const = 0;
  /// The device compile for Target, without the action and input.
  virtual std::vector<std::string>
  getDeviceArgs(const Toolchain &Tools, const OffloadTarget &Target) const = 0;
  /// The device source compiled for Target into its image (of kind
  /// Target.getImageKind()).
  virtual llvm::Expected<std::string>
  compileImage(const class Compiler &C, const std::string &Source,
               const OffloadTarget &Target) const = 0;
  /// Whether images of this target get native code beside them (SASS
  /// beside PTX, when ptxas is found), made by assembleImage, of kind
  /// getNativeImageKind.
  virtual bool hasNativeImages(const Toolchain &) const { return false; }
  virtual ImageKind getNativeImageKind() const { return ImageKind::None; }
  /// Native code for For from Image into Out: its Data, or with Cut (from
  /// planCut), its Parts.
  virtual llvm::Error assembleImage(const class Compiler &C,
                                    const std::string &Image,
                                    const OffloadTarget &For,
                                    const ModuleCut *Cut,
                                    DeviceImage &Out) const;
  /// The cut of a module of many entries into parts, each a module of its
  /// own, for this target's images (Images: what compileImage made for
  /// each target) by Rules, when their native code is packaged
  /// (PtxParts.h); none when they are kept whole.
  virtual std::optional<ModuleCut> planCut(const class Compiler &,
                                           llvm::ArrayRef<llvm::StringRef>,
                                           const CutRules &) const {
    return std::nullopt;
  }
  /// The kind of the one image an object embeds for all of this target's
  /// images (a CUDA fat binary), or None when they are embedded one by
  /// one; packageImages makes it from them, in the order they were built.
  virtual ImageKind getPackageKind(const Toolchain &) const {
    return ImageKind::None;
  }
  /// Package's Data, or with Cut its Parts (and Cut), from Images.
  virtual llvm::Error packageImages(const class Compiler &C,
                                    llvm::ArrayRef<const DeviceImage *> Images,
                                    const ModuleCut *Cut,
                                    DeviceImage &Package) const;
};

/// NVIDIA GPUs: `__global__` grid-stride functions in Clang's CUDA dialect
/// (Targets/CUDA.cpp).
const DeviceHooks &getCudaHooks();
/// AMD GPUs: the same in Clang's HIP dialect (Targets/HIP.cpp).
const DeviceHooks &getHipHooks();
/// The CPU: functions over a [begin, end) chunk, in the launcher's unit
/// (Targets/CPU.cpp).
const TargetHooks &getCpuHooks();

/// The GPU target of an --offload-arch, by its vendor.
const DeviceHooks &getHooksForTarget(const OffloadTarget &Target);
/// The target whose source --emit=device-src shows for Targets: HIP when
/// they are all AMD GPUs, else CUDA.
const DeviceHooks &
getHooksForDeviceSource(llvm::ArrayRef<OffloadTarget> Targets);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_TARGETHOOKS_H
