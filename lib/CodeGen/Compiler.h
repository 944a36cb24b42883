//===- Compiler.h - In-process Clang/LLVM compilation -----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Compiles generated translation units with the shared
// Clang/LLVM libraries, in this process, with the toolchain's command lines:
// device code to assembly, LLVM IR or an object for a target's hooks (which
// turn those into images, with tools run through runTool), and the host
// translation unit to a relocatable ELF object. Private to lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_COMPILER_H
#define QDC_LIB_CODEGEN_COMPILER_H

#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class MemoryBuffer;
class Module;
} // namespace llvm

namespace clang {
class FrontendAction;
} // namespace clang

namespace qdc {
struct DeviceImage;
} // namespace qdc

namespace qdc::codegen {

class DeviceHooks;

/// A tool's inputs: each its contents and the extension of its file.
using ToolInputs = std::vector<std::pair<const std::string *, const char *>>;

/// The launcher source compiled and optimized, its machine code not made
/// yet (Compiler::compileHostIR), with what its compile printed.
class HostIR {
public:
  HostIR();
  ~HostIR();
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> Module;
  DeferredWarnings Diagnostics;
  /// Why the compile failed, when it did.
  std::optional<std::string> Failure;
};

/// The source of a compile that begins before its source exists. Clang
/// reads its main file only when the action runs, after the invocation,
/// the preprocessor, the AST context and the precompiled header are set
/// up; but it fixes the file's size when it enters it, before those. So
/// the compile begins on a buffer of Capacity spaces, and the source is
/// written over them when it arrives (Compiler::compileHostIR); a source
/// that does not fit is not taken.
class LateSource {
public:
  explicit LateSource(size_t Capacity) : Capacity(Capacity) {}
  LateSource(const LateSource &) = delete;
  LateSource &operator=(const LateSource &) = delete;

  /// Hands the compile its source (from any thread).
  void supply(std::string Text);
  /// Hands it none: the compile ends without parsing.
  void abandon();
  /// What supply() gave (once the compile has waited for it).
  const std::string &getText() const { return Text; }
  /// Whether the compile parsed it.
  bool wasTaken() const { return Taken; }

  /// The buffer Clang reads as the main file: Capacity spaces and a
  /// newline, owned by Clang once it enters the file.
  std::unique_ptr<llvm::MemoryBuffer> makeBuffer(llvm::StringRef Name);
  /// Waits for the source and writes it over the spaces; false when there
  /// is none or it does not fit.
  bool fill();

private:
  size_t Capacity;
  char *Data = nullptr;
  std::mutex Mutex;
  std::condition_variable Ready;
  bool Supplied = false;
  bool Taken = false;
  std::string Text;
};

/// Device compiles take the target T whose source they compile: Clang sees
/// it as `<input>.<arch><T's extension>`. What differs between targets is
/// in T (TargetHooks.h); this runs Clang and the tools for them.
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

  /// What a device compile makes.
  enum class DeviceOutput {
    Assembly, ///< PTX, AMDGPU assembly
    LLVM,     ///< the optimized LLVM IR, as text
    Object    ///< a relocatable object
  };
  /// The device source for Target, compiled with T's arguments into
  /// Output, through a temporary file ending in Ext; What names the
  /// output in errors ("the PTX for sm_80").
  llvm::Expected<std::string>
  compileDevice(const std::string &Source, const DeviceHooks &T,
                const OffloadTarget &Target, DeviceOutput Output,
                const char *Ext, const llvm::Twine &What) const;
  /// A tool run on Input: Input is written to a temporary file ending in
  /// InExt, MakeArgs(In, Out) is the command line, and the file Out
  /// (ending in OutExt) it wrote is returned; What names it in errors.
  /// What the tool printed is kept (takeToolLog).
  llvm::Expected<std::string>
  runTool(const std::string &Input, const char *InExt, const char *OutExt,
          llvm::function_ref<std::vector<std::string>(llvm::StringRef In,
                                                      llvm::StringRef Out)>
              MakeArgs,
          const llvm::Twine &What) const;
  /// The same for a tool with several inputs, each (contents, extension):
  /// MakeArgs gets their temporary files in order.
  llvm::Expected<std::string>
  runTool(llvm::ArrayRef<std::pair<const std::string *, const char *>> Inputs,
          const char *OutExt,
          llvm::function_ref<std::vector<std::string>(
              llvm::ArrayRef<std::string> In, llvm::StringRef Out)>
              MakeArgs,
          const llvm::Twine &What) const;
  /// runTool on each of Jobs (the inputs of one run each), several at once
  /// (as many as the toolchain's threads; one at a time with -v and -###,
  /// whose commands then print in order): the outputs in order. What they
  /// printed is kept in order (takeToolLog); the error is the first in
  /// order.
  llvm::Expected<std::vector<std::string>>
  runToolEach(llvm::ArrayRef<ToolInputs> Jobs, const char *OutExt,
              llvm::function_ref<std::vector<std::string>(
                  llvm::ArrayRef<std::string> In, llvm::StringRef Out)>
                  MakeArgs,
              const llvm::Twine &What) const;
  const Toolchain &getToolchain() const { return Tools; }
  /// What the last tool runTool ran printed (its standard output and
  /// error), once.
  std::string takeToolLog() const { return std::move(ToolLog); }
  /// The launcher source (C++) compiled to optimized LLVM IR, or only
  /// checked as clang -fsyntax-only does (no module). It prints nothing and
  /// touches nothing but what it returns, so it may run on another thread
  /// beside the device compiles (DeepStackThread).
  std::unique_ptr<HostIR> compileHostIR(const std::string &Source,
                                        bool SyntaxOnly = false) const;
  /// The same, begun before the source exists (on a thread of its own,
  /// while the frontend parses) and finished with what Late is handed;
  /// null when that does not fit its buffer or none is handed.
  std::unique_ptr<HostIR> compileHostIR(LateSource &Late,
                                        bool SyntaxOnly) const;
  /// Prints what Host's compile printed; its failure, if it failed.
  llvm::Error finishHostCompile(HostIR &Host) const;
  /// Prints what Host's compile printed; then, when it compiled, defines
  /// in its module the image table the launcher source declares
  /// (names::Images) from Images, keeps global only the symbols whose
  /// mangled names start with PublicPrefix (the generated namespace; the
  /// .qd file's own functions and variables become local, so that several
  /// .qd objects link into one program), and makes the relocatable object.
  llvm::Expected<std::string>
  emitHostObject(HostIR &Host, llvm::ArrayRef<const DeviceImage *> Images,
                 llvm::StringRef PublicPrefix) const;
  /// A device source for Target compiled as clang -fsyntax-only does: its
  /// diagnostics, nothing built.
  llvm::Error checkDeviceSource(const std::string &Source, const DeviceHooks &T,
                                const OffloadTarget &Target) const;
  /// Whether a namespace Name cannot be declared beside what the C and C++
  /// library headers of the launcher declare at global scope (`random`,
  /// `time`): asked after the host compile failed, to say why.
  bool isLibraryName(llvm::StringRef Name) const;

private:
  /// runTool, what the tool printed going to Log; safe on any thread.
  llvm::Expected<std::string> runToolLogged(
      llvm::ArrayRef<std::pair<const std::string *, const char *>> Inputs,
      const char *OutExt,
      llvm::function_ref<std::vector<std::string>(
          llvm::ArrayRef<std::string> In, llvm::StringRef Out)>
          MakeArgs,
      const std::string &What, std::string &Log) const;
  /// compileHostIR of Source, or of what Late is handed where Late is not
  /// null: from the precompiled header, then, where that compile fails,
  /// again without it.
  std::unique_ptr<HostIR> compileHostIR(const std::string &Source,
                                        bool SyntaxOnly,
                                        LateSource *Late) const;
  /// One compile of the launcher, from Pch where it is not empty.
  std::unique_ptr<HostIR> compileHostIR(const std::string &Source,
                                        bool SyntaxOnly, const std::string &Pch,
                                        LateSource *Late) const;
  /// <qd/detail/launcher.h> precompiled for the host compile's command
  /// line, in ToolchainOptions::PchDir (the compile cache's): built on
  /// first use, kept with the size and time of every file it read, built
  /// again when one changed; empty where there is none (no folder, -v,
  /// -dryrun, or it did not build), and the compile parses the header.
  std::string getLauncherPch() const;
  /// The device prelude precompiled for Target's device compile, as
  /// getLauncherPch; empty where there is none.
  std::string getDevicePch(const DeviceHooks &T,
                           const OffloadTarget &Target) const;
  /// Runs the device compile of Source for Target (the action MakeAction
  /// makes, writing OutputPath if given) from the precompiled prelude, its
  /// diagnostics held back until it succeeds; a compile that fails with it
  /// runs again without it, so that what it reports is the plain
  /// compile's, and a header the plain compile does without is dropped.
  llvm::Error runDeviceClang(
      const std::vector<std::string> &Args, const std::string &Source,
      const DeviceHooks &T, const OffloadTarget &Target,
      llvm::function_ref<std::unique_ptr<clang::FrontendAction>()> MakeAction,
      const std::string &OutputPath = {}) const;

  const Toolchain &Tools;
  std::string InputPath;
  WarningLog OwnWarnings;
  WarningLog &Warnings;
  mutable std::string ToolLog;
  mutable std::mutex PchMutex;
  mutable std::optional<std::string> LauncherPch;
  /// By target; built under a lock of their own, beside the launcher's.
  mutable std::mutex DevicePchMutex;
  mutable std::map<std::string, std::string> DevicePchs;
};

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_COMPILER_H
