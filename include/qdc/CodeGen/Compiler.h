//===- Compiler.h - In-process Clang/LLVM compilation -----------*- C++ -*-===//
//
// Part of qdc. Compiles generated translation units with the shared
// Clang/LLVM libraries, in this process: CUDA-dialect device code to PTX,
// and the host translation unit to a relocatable ELF object. Nothing shells
// out to clang.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_CODEGEN_COMPILER_H
#define QDC_CODEGEN_COMPILER_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace qdc {

struct CompileOptions {
  /// Where the .qd file is: generated sources are placed beside it, so that
  /// its `#include "..."` lines resolve as they did.
  std::string InputPath;
  std::string IncludeDir; ///< holds qd/qd.h and qd/detail/
  std::vector<std::string> IncludeDirs;
  std::vector<std::string> Defines;
  std::string Std = "c++20";
  unsigned OptLevel = 3;
  bool DebugInfo = false;
  bool Verbose = false;
  /// libdevice bitcode for CUDA math; empty when no CUDA toolkit was found.
  std::string Libdevice;
};

/// Compiles a CUDA-dialect translation unit to PTX for Arch ("sm_80").
llvm::Expected<std::string> compileCudaToPtx(const std::string &Source,
                                             const std::string &Arch,
                                             const CompileOptions &Opts);

/// The optimized LLVM IR of a CUDA (Arch "sm_XX") or HIP (Arch "gfxNNN")
/// translation unit, as text, before code generation.
llvm::Expected<std::string> compileDeviceToLLVM(const std::string &Source,
                                                const std::string &Arch,
                                                const CompileOptions &Opts);

/// Compiles a HIP-dialect translation unit for Arch ("gfx90a") to a code
/// object and links it with ld.lld into an HSACO.
llvm::Expected<std::string> compileHipToHsaco(const std::string &Source,
                                              const std::string &Arch,
                                              const CompileOptions &Opts);

/// Compiles a C++ translation unit to a relocatable object at OutputPath.
/// Only symbols whose mangled names start with PublicPrefix (the generated
/// namespace) stay global; the .qd file's own functions and variables become
/// local, so that several .qd objects link into one program.
llvm::Error compileHostObject(const std::string &Source,
                              const std::string &OutputPath,
                              const std::string &PublicPrefix,
                              const CompileOptions &Opts);

/// The ptxas of the CUDA toolkit (CUDA_PATH, /usr/local/cuda, PATH), or
/// empty.
std::string findPtxas();

/// Assembles PTX into SASS for Arch with ptxas.
llvm::Expected<std::string> assemblePtx(const std::string &Ptxas,
                                        const std::string &Ptx,
                                        const std::string &Arch,
                                        const CompileOptions &Opts);

/// The libdevice bitcode of the CUDA toolkit at CUDA_PATH (when set) or
/// /usr/local/cuda, or empty.
std::string findLibdevice();

} // namespace qdc

#endif // QDC_CODEGEN_COMPILER_H
