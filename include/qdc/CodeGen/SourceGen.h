//===- SourceGen.h - KIR to generated C++ -----------------------*- C++ -*-===//
//
// Part of qdc. Source-to-source code generation: the .qd file is rewritten
// at the byte ranges the frontend recorded. Each kernel's definition is
// replaced by its tasks (one function per task, over the task's index
// space); fields become device globals on GPUs; everything else is copied
// unchanged, with #line directives so that diagnostics point at the .qd.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_CODEGEN_SOURCEGEN_H
#define QDC_CODEGEN_SOURCEGEN_H

#include "qdc/KIR/Kernel.h"

#include <string>
#include <vector>

namespace qdc {

/// A compiled device image to embed in the object.
struct DeviceImage {
  enum Kind { PTX = 1, Cubin = 2, HSACO = 3 } ImageKind;
  std::string Arch; ///< "sm_80", "gfx90a"
  std::string Data;
};

struct SourceGenOptions {
  std::string InputPath; ///< for #line directives
  std::string Namespace; ///< of the header's declarations
};

/// The CUDA-dialect translation unit: one __global__ grid-stride function
/// per task.
std::string generateCudaSource(const kir::Module &M,
                               const SourceGenOptions &Opts);

/// The HIP-dialect translation unit for AMD GPUs, likewise.
std::string generateHipSource(const kir::Module &M,
                              const SourceGenOptions &Opts);

/// The host translation unit: the CPU code of every task, one launcher per
/// kernel, field handles, and the module descriptor with Images embedded.
std::string generateHostSource(const kir::Module &M,
                               const SourceGenOptions &Opts,
                               const std::vector<DeviceImage> &Images);

/// The public header: kernel functions and field handles in Namespace.
std::string generateHeader(const kir::Module &M, const SourceGenOptions &Opts);

} // namespace qdc

#endif // QDC_CODEGEN_SOURCEGEN_H
