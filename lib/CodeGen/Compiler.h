//===- Compiler.h - In-process Clang/LLVM compilation -----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Compiles generated translation units with the shared
// Clang/LLVM libraries, in this process, with the toolchain's command lines:
// CUDA-dialect device code to PTX, HIP-dialect device code to HSACO (through
// ld.lld), either to LLVM IR, and the host translation unit to a relocatable
// ELF object. Private to lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_COMPILER_H
#define QDC_LIB_CODEGEN_COMPILER_H

#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include "llvm/Support/Error.h"

#include <string>

namespace qdc::codegen {

class TargetHooks;

/// Device compiles take the target T whose source they compile: Clang sees
/// it as `<input>.<arch><T's extension>`.
class Compiler {
public:
  /// InputPath is the .qd file: generated sources are seen by Clang as
  /// files beside it, so that its `#include "..."` lines resolve. Warnings
  /// holds what was printed about it already (null: nothing was).
  Compiler(const Toolchain &Tools, llvm::StringRef InputPath,
           WarningLog *Warnings = nullptr)
      : Tools(Tools), InputPath(InputPath),
        Warnings(Warnings ? *Warnings : OwnWarnings) {}
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// A CUDA-dialect translation unit to PTX for Arch ("sm_80").
  llvm::Expected<std::string> compileToPtx(const std::string &Source,
                                           const TargetHooks &T,
                                           llvm::StringRef Arch) const;
  /// A HIP-dialect translation unit for Arch ("gfx90a") to a code object,
  /// linked with ld.lld into an HSACO.
  llvm::Expected<std::string> compileToHsaco(const std::string &Source,
                                             const TargetHooks &T,
                                             llvm::StringRef Arch) const;
  /// The optimized device LLVM IR of a CUDA or HIP unit for Arch, as text.
  llvm::Expected<std::string> compileToLLVM(const std::string &Source,
                                            const TargetHooks &T,
                                            llvm::StringRef Arch) const;
  /// PTX to SASS for Arch with ptxas.
  llvm::Expected<std::string> assemblePtx(const std::string &Ptx,
                                          llvm::StringRef Arch) const;
  /// A C++ translation unit to a relocatable object. Only symbols whose
  /// mangled names start with PublicPrefix (the generated namespace) stay
  /// global; the .qd file's own functions and variables become local, so
  /// that several .qd objects link into one program.
  llvm::Expected<std::string>
  compileHostObject(const std::string &Source,
                    llvm::StringRef PublicPrefix) const;
  /// A device source for Arch, or the launcher source, compiled as clang
  /// -fsyntax-only does: its diagnostics, nothing built.
  llvm::Error checkDeviceSource(const std::string &Source, const TargetHooks &T,
                                llvm::StringRef Arch) const;
  llvm::Error checkHostSource(const std::string &Source) const;
  /// Whether a namespace Name cannot be declared beside what the C and C++
  /// library headers of the launcher declare at global scope (`random`,
  /// `time`): asked after the host compile failed, to say why.
  bool isLibraryName(llvm::StringRef Name) const;

private:
  const Toolchain &Tools;
  std::string InputPath;
  WarningLog OwnWarnings;
  WarningLog &Warnings;
};

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_COMPILER_H
