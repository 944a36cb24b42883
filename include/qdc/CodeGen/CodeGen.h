//===- CodeGen.h - KIR to every generated artifact --------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Code generation's one entry point: from a checked kernel IR
// module to every artifact in memory (device sources, PTX, SASS and HSACO
// per arch, device LLVM IR, the launcher source, the host object, the
// header, the files the object depends on). The driver chooses which to
// write and writes them; nothing here touches an output file.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_CODEGEN_CODEGEN_H
#define QDC_CODEGEN_CODEGEN_H

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"
#include "qdc/Target/OffloadTarget.h"
#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace qdc {

class EarlyHostCompile;

/// What a cut of a module into parts must keep: the variables each part
/// defines for itself (the assert record, which the runtime reads in every
/// part).
struct CutRules {
  std::vector<std::string> EachPart;
};

/// How a module of many entry functions is cut into parts, each loaded as a
/// module of its own (--ptx-part-entries): the names of the entry functions
/// and variables each part defines, the same for every image of the module
/// (the rules' variables in each), and the rules it was made by.
struct ModuleCut {
  std::vector<std::vector<std::string>> Symbols;
  CutRules Rules;
};

/// A compiled device image, embedded in the object.
struct DeviceImage {
  ImageKind Kind;
  /// The target's name (OffloadTarget::getName); a package's, its
  /// targets' ("sm_80,sm_90").
  std::string Arch;
  unsigned ArchNumber; ///< its number (OffloadTarget::getArchNumber); 0 for a
                       ///< package
  std::string Data;
  /// Native code or a package of a module cut into parts: each part's data
  /// (Data is then empty), in the order of Cut's parts; a package has the
  /// cut.
  std::vector<std::string> Parts;
  ModuleCut Cut;
};

/// How far code generation goes: each stage needs the ones before it.
enum class CodeGenStage {
  None,     ///< no code generation (the driver's kernel-IR dumps)
  Sources,  ///< device sources and the header only
  DeviceIR, ///< the device LLVM IR per arch
  Images,   ///< PTX (and SASS when ptxas is found), HSACO
  Launcher, ///< the launcher source (it declares the images: none is built)
  Object,   ///< the host object
  /// Nothing built: each device source and the launcher are compiled as
  /// clang -fsyntax-only does, for their diagnostics (qdc -fsyntax-only).
  Check
};

struct CodeGenOptions {
  /// The .qd file as given: generated sources are placed beside it so that
  /// its `#include "..."` lines resolve, and #line directives name it.
  std::string InputPath;
  /// The generated namespace (see getGeneratedNamespace).
  std::string Namespace;
  std::vector<OffloadTarget> Targets = {OffloadTarget::getNvidia(8, 0)};
  CodeGenStage Stage = CodeGenStage::Object;
  /// The warnings already printed about the input: the compiles print
  /// only new ones at its lines. Null: a log of this run's own.
  WarningLog *Warnings = nullptr;
  /// The launcher's host compile, begun before the module existed
  /// (beginHostCompile with these options); null: emit() runs its own.
  EarlyHostCompile *EarlyHost = nullptr;
};

/// The host compile of a module's launcher, begun before the module exists:
/// Clang's setup and the load of the launcher's precompiled header run on
/// a thread of their own while the frontend parses the .qd, and the parse
/// of the launcher starts when emit() hands it over (Compiler.h,
/// LateSource). Destroyed unused (the parse failed), it ends unparsed.
class EarlyHostCompile {
public:
  struct State;
  explicit EarlyHostCompile(std::unique_ptr<State> S);
  ~EarlyHostCompile();
  EarlyHostCompile(const EarlyHostCompile &) = delete;
  EarlyHostCompile &operator=(const EarlyHostCompile &) = delete;
  State &getState() { return *S; }

private:
  std::unique_ptr<State> S;
};

/// Begins the host compile emit(M, Opts, Tools) would run beside the
/// device code (Opts.Stage Object or Check, device targets, more than one
/// thread, no command echoed); null where it would run none or not beside.
/// InputBytes is the .qd's size, which bounds the launcher's.
std::unique_ptr<EarlyHostCompile> beginHostCompile(const CodeGenOptions &Opts,
                                                   const Toolchain &Tools,
                                                   size_t InputBytes);

struct Artifacts {
  /// The CUDA-dialect device source, or the HIP one when only AMD GPUs are
  /// targeted.
  std::string DeviceSource;
  std::string Header;
  /// Per offload arch, in the order given: its device LLVM IR (DeviceIR).
  std::vector<std::pair<std::string, std::string>> DeviceIR;
  /// PTX per NVIDIA target, then SASS per NVIDIA target (when ptxas is
  /// found), then HSACO per AMD target (Images); for an object, then the
  /// CUDA fat binary of the NVIDIA images (when fatbinary is found), which
  /// the object embeds in their place (Object).
  std::vector<DeviceImage> Images;
  std::string LauncherSource;
  /// The relocatable host object (Object).
  std::string Object;
};

/// The Python module of a .qd whose generated namespace is Namespace: its
/// name ("a::b" is "a_b").
std::string getPythonModuleName(llvm::StringRef Namespace);

/// Reports, at the user's line, what has no Python form in M (a struct
/// parameter, return value or field element) and what would hide the
/// module's runtime API (a kernel named `init`).
void checkPythonForms(const kir::Module &M, DiagEngine &Diags);

/// The nanobind binding source of M (DESIGN section 5.1): it includes the
/// generated header by HeaderName, defines qd_python_bind_<module>, and the
/// module itself unless QD_PYTHON_NO_MODULE is defined.
std::string generatePythonBindings(const kir::Module &M,
                                   llvm::StringRef Namespace,
                                   llvm::StringRef HeaderName);

/// The generated namespace for InputFile: Override when given, else the
/// file's stem made into a C++ identifier.
std::string getGeneratedNamespace(llvm::StringRef InputFile,
                                  llvm::StringRef Override);

/// An error unless Name (from --namespace) can name the generated
/// namespace: identifiers that are not C++ keywords, joined by `::`.
llvm::Error checkGeneratedNamespace(llvm::StringRef Name);

/// The extension of the device source for Targets (".cu", ".hip"), as
/// --save-temps names it.
llvm::StringRef getDeviceSourceExtension(llvm::ArrayRef<OffloadTarget> Targets);

/// Generates everything Opts.Stage needs from M, which passed every rule.
llvm::Expected<Artifacts> emit(const kir::Module &M, const CodeGenOptions &Opts,
                               const Toolchain &Tools);

} // namespace qdc

#endif // QDC_CODEGEN_CODEGEN_H
