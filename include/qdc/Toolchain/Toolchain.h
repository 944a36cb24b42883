//===- Toolchain.h - Where the tools are and how to call Clang --*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One object, built once from the options, that knows where
// every tool and library qdc uses lives (the embedded Clang's driver path and
// resource directory, ptxas, libdevice, the ROCm bitcode, ld.lld, the
// kernel-language headers) and the Clang arguments for each purpose: parsing
// the .qd, the device compile per target, and the host compile.
//
// Everything is found at run time, relative to the running qdc or to the
// Clang library it runs on, or from the environment (CUDA_PATH, ROCM_PATH,
// PATH); nothing is a path of the machine that built qdc, so an installed
// prefix can be moved. No Clang headers here.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TOOLCHAIN_TOOLCHAIN_H
#define QDC_TOOLCHAIN_TOOLCHAIN_H

#include "qdc/Target/OffloadTarget.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qdc {

/// What the user asked for that shapes every Clang command line.
struct ToolchainOptions {
  std::vector<std::string> IncludeDirs;
  std::vector<std::string> Defines;           ///< NAME or NAME=VALUE
  std::vector<std::string> Undefines;         ///< -U NAME
  std::vector<std::string> SystemIncludeDirs; ///< -isystem DIR
  std::vector<std::string> ForcedIncludes;    ///< -include FILE
  /// -fcolor-diagnostics (1), -fno-color-diagnostics (0), or as the
  /// terminal allows (-1).
  int Color = -1;
  std::string Std = "c++20";
  unsigned OptLevel = 3;
  bool DebugInfo = false;
  /// -lineinfo (nvcc's): source lines in the GPU code for profilers,
  /// without full debug information.
  bool LineInfo = false;
  /// -G (nvcc's): GPU code at -O0 with full debug information.
  bool DeviceDebug = false;
  /// -Xptxas <opt>: given to every ptxas run, in order.
  std::vector<std::string> PtxasArgs;
  /// --ptx-part-entries: a module of more than this many entry functions
  /// is cut into parts, each a module of its own that ptxas assembles
  /// beside the others (PtxParts.h); 0: whole.
  unsigned PtxPartEntries = 256;
  /// --assert-record-per-part: in a module cut into parts, each part has its
  /// own assert record, so that kernels that assert need not share a part;
  /// a synchronization then reads one record a part.
  bool AssertRecordPerPart = false;
  /// --resource-usage: each task's registers, spills, stack and shared
  /// memory per architecture, as ptxas -v reports them, at the kernel's
  /// .qd line.
  bool ResourceUsage = false;
  /// -t/--threads <n> (nvcc's): how many threads one compile uses; 0 is
  /// one per processor (getThreads()).
  unsigned Threads = 0;
  /// qdc --debug: every field and ndarray index is checked (QD_DEBUG).
  bool CheckIndices = false;
  /// -ffast-math / --use_fast_math: fast-math flags in device and CPU code,
  /// approximate single-precision functions and division, denormals flushed
  /// on NVIDIA GPUs (nvcc's --use_fast_math).
  bool FastMath = false;
  bool WarningsAsErrors = false;
  bool IgnoreWarnings = false;
  /// -W<name> / -Wno-<name> without the -W: qdc's own (stream-race), the
  /// others given to the frontend's Clang.
  std::vector<std::string> Warnings;
  bool Verbose = false;
  /// -###: print each command (quoted, as clang's -### does) instead of
  /// running it; only the parse runs, and nothing is written.
  bool PrintCommandsOnly = false;
  /// Where precompiled launcher headers are kept (the compile cache's
  /// pch/ folder); empty: none are.
  std::string PchDir;
  /// Where what a tool says of itself (`ptxas --help`) is kept, by the
  /// tool's stamp (the compile cache's tools/ folder); empty: it is asked
  /// in every run.
  std::string ToolAnswersDir;
};

/// Whether W, an entry of ToolchainOptions::Warnings, names qdc's own
/// warning (stream-race: `stream-race`, `no-stream-race`,
/// `error=stream-race`, `no-error=stream-race`) rather than Clang's.
bool isQdcWarningOption(llvm::StringRef W);

/// --offload-arch=native: each NVIDIA GPU of this machine, as the CUDA
/// driver (libcuda.so.1) reports them, without repeats; empty with Why set
/// when there is none (no driver, no device). AMD GPUs are not detected.
std::vector<OffloadTarget> detectNativeTargets(std::string &Why);

class Toolchain {
public:
  /// Finds every tool. Argv0 is how qdc was started (for the folder of the
  /// running executable).
  Toolchain(const char *Argv0, ToolchainOptions Opts);

  const ToolchainOptions &getOptions() const { return Opts; }
  /// How many threads one compile uses: --threads, else one per processor.
  unsigned getThreads() const;

  /// The folder that holds qd/qd.h: `<prefix>/include` beside
  /// `<prefix>/bin/qdc`, in the build tree as in an install tree.
  const std::string &getPreludeDir() const { return PreludeDir; }
  /// The Clang driver path given to the embedded Clang as argv[0]; its
  /// resource directory (stddef.h, the CUDA wrappers) is found from it.
  const std::string &getClangDriverPath() const { return ClangDriver; }
  /// ptxas of the CUDA toolkit, or empty when none was found.
  const std::string &getPtxas() const { return Ptxas; }
  /// Starts `ptxas --help` in the background, once, so that what the two
  /// questions below read is ready when they are asked (the driver starts
  /// it before the parse, which it then runs beside). Without it, the
  /// first question runs ptxas and waits. With ToolAnswersDir, the answer
  /// kept there for a ptxas of the same stamp is read instead.
  void startPtxasHelp() const;
  /// The NVIDIA architectures ptxas compiles for (`sm_90a`, `sm_100f`),
  /// read from its --help; empty when there is no ptxas or the list is not
  /// there.
  std::vector<std::string> getPtxasArchs() const;
  /// Whether ptxas lists Option ("--split-compile") in its --help.
  bool ptxasAccepts(llvm::StringRef Option) const;
  /// The CUDA toolkit's fatbinary beside its ptxas, which packs SASS and
  /// PTX into the fat binary an object embeds, or empty.
  const std::string &getFatbinary() const { return Fatbinary; }
  /// libdevice bitcode for CUDA math, or empty.
  const std::string &getLibdevice() const { return Libdevice; }
  /// ld.lld, which links AMDGPU code objects into HSACO, or empty.
  const std::string &getLld() const { return Lld; }
  /// The folder with the ROCm device libraries' bitcode, or empty.
  const std::string &getRocmBitcodeDir() const { return RocmBitcodeDir; }
  /// The CPU the host object is generated for: the baseline of the host
  /// architecture ("x86-64"), so objects run on any machine of that kind.
  std::string getHostCPU() const;

  /// `clang -fsyntax-only -x c++ ...` for the .qd file itself.
  std::vector<std::string> getParseArgs(llvm::StringRef Input,
                                        bool Color) const;
  /// What every compile of generated code starts with (the device
  /// compiles add their target's arguments, lib/CodeGen/Targets).
  std::vector<std::string> getCompileArgs() const;
  /// The host compile of the generated launcher translation unit.
  std::vector<std::string> getHostArgs() const;

private:
  /// -I, -isystem, -D, -U and -include, as the user gave them.
  void appendPreprocessorArgs(std::vector<std::string> &Args) const;
  /// The user's warning options (-W..., -Werror, -w) and qdc's own.
  void appendWarningArgs(std::vector<std::string> &Args) const;

  ToolchainOptions Opts;
  std::string PreludeDir;
  std::string ClangDriver;
  std::string Ptxas;
  std::string Fatbinary;
  /// What `ptxas --help` printed (empty when it failed), asked once.
  const std::string &getPtxasHelp() const;
  /// That run of ptxas and its answer; shared by the copies of a
  /// toolchain, safe to ask from any thread.
  struct PtxasQuery;
  std::shared_ptr<PtxasQuery> PtxasHelp;
  std::string Libdevice;
  std::string Lld;
  std::string RocmBitcodeDir;
};

} // namespace qdc

#endif // QDC_TOOLCHAIN_TOOLCHAIN_H
