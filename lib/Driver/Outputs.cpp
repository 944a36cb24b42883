//===- Outputs.cpp - Writing what code generation produced ----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Chooses how far code generation must go for the --emit kind,
// calls it, and writes the artifacts asked for: the one text of a --emit
// kind, or the object, the header and the depfile, each replaced
// atomically, after everything was generated.
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"
#include "Output.h"

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/KIR/Printer.h"
#include "qdc/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace qdc;

/// Path escaped for a Make rule; IsTarget also escapes ':', which ends a
/// target.
static std::string escapeForMake(llvm::StringRef Path, bool IsTarget) {
  std::string Out;
  for (char C : Path) {
    if (C == ' ' || C == '#' || (IsTarget && C == ':'))
      Out += '\\';
    else if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

/// A Make rule: Target depends on every file in Deps.
std::string qdc::makeDepfile(const std::string &Target,
                             const std::vector<std::string> &Deps, bool Phony) {
  auto Escape = [](llvm::StringRef Path) {
    return escapeForMake(Path, /*IsTarget=*/false);
  };
  std::string Rule = escapeForMake(Target, /*IsTarget=*/true) + ":";
  for (const std::string &D : Deps)
    Rule += " \\\n  " + Escape(D);
  Rule += "\n";
  // -MP: each header (not the input) as a target with no prerequisites.
  for (size_t I = 1; Phony && I < Deps.size(); ++I)
    Rule += "\n" + escapeForMake(Deps[I], /*IsTarget=*/true) + ":\n";
  return Rule;
}

/// What must hold of the options before any work is done; 0 when it does.
static int checkRequest(const DriverOptions &Opts) {
  // Device code of a kind no asked-for GPU has would be an empty file.
  if (Opts.Emit == EmitKind::PTX && !hasVendor(Opts.Targets, Vendor::NVIDIA))
    return reportError("--emit=ptx needs an NVIDIA GPU in --offload-arch, "
                       "e.g. --offload-arch=sm_90");
  if (Opts.Emit == EmitKind::LLVM && Opts.Targets.empty())
    return reportError("--emit=llvm writes device LLVM IR and needs a GPU in "
                       "--offload-arch, e.g. --offload-arch=sm_90");
  if (Opts.Emit != EmitKind::HSACO)
    return 0;
  size_t NumAmd = llvm::count_if(
      Opts.Targets, [](const OffloadTarget &T) { return T.isAmd(); });
  if (NumAmd == 0)
    return reportError("--emit=hsaco needs an AMD GPU in --offload-arch, "
                       "e.g. --offload-arch=gfx90a");
  if (NumAmd > 1)
    return reportError(
        "--emit=hsaco writes one code object; give one gfx arch");
  return 0;
}

// The producers of OutputKinds.def: the text of each --emit kind.

static std::string produceObject(const OutputRequest &R) {
  return std::move(R.A->Object);
}
static std::string produceHeader(const OutputRequest &R) {
  return std::move(R.A->Header);
}
static std::string produceKIR(const OutputRequest &R) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  kir::printModule(R.M, OS);
  return Text;
}
static std::string produceStreamPlan(const OutputRequest &R) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (R.Opts.PlanAsDot)
    kir::printStreamPlanDot(R.M, OS);
  else
    kir::printStreamPlan(R.M, OS);
  return Text;
}
static std::string produceDeviceSource(const OutputRequest &R) {
  return std::move(R.A->DeviceSource);
}
static std::string produceLauncherSource(const OutputRequest &R) {
  return std::move(R.A->LauncherSource);
}
/// Each target's IR, headed by the target when there are several.
static std::string produceLLVM(const OutputRequest &R) {
  std::string All;
  for (const auto &[Arch, IR] : R.A->DeviceIR)
    All += (R.A->DeviceIR.size() > 1 ? "; " + Arch + "\n" : "") + IR;
  return All;
}
/// Each PTX, headed by its target when there are several.
static std::string producePTX(const OutputRequest &R) {
  std::vector<const DeviceImage *> Ptx;
  for (const DeviceImage &I : R.A->Images)
    if (I.Kind == ImageKind::PTX)
      Ptx.push_back(&I);
  std::string All;
  for (const DeviceImage *I : Ptx)
    All += (Ptx.size() > 1 ? "// " + I->Arch + "\n" : "") + I->Data;
  return All;
}
/// The header the bindings include, by its file name: -H's, else the
/// default `<stem>.qd.h`.
static std::string getIncludedHeader(const DriverOptions &Opts) {
  if (!Opts.HeaderFile.empty())
    return llvm::sys::path::filename(Opts.HeaderFile).str();
  return (llvm::sys::path::stem(Opts.InputFile) + ".qd.h").str();
}
static std::string producePython(const OutputRequest &R) {
  return generatePythonBindings(
      R.M, getGeneratedNamespace(R.Opts.InputFile, R.Opts.Namespace),
      getIncludedHeader(R.Opts));
}
static std::string produceHSACO(const OutputRequest &R) {
  for (const DeviceImage &I : R.A->Images)
    if (I.Kind == ImageKind::HSACO)
      return I.Data;
  return {};
}

namespace {
struct OutputKindInfo {
  CodeGenStage Stage;
  std::string (*Produce)(const OutputRequest &);
};
} // namespace

static const OutputKindInfo OutputKinds[] = {
#define QDC_OUTPUT_KIND(ENUM, NAME, STAGE, HELP)                               \
  {CodeGenStage::STAGE, &produce##ENUM},
#include "qdc/Driver/OutputKinds.def"
};

static const OutputKindInfo &getInfo(EmitKind K) {
  return OutputKinds[static_cast<size_t>(K)];
}

bool qdc::isDump(EmitKind K) { return getInfo(K).Stage == CodeGenStage::None; }

std::string qdc::produceOutput(const OutputRequest &R) {
  return getInfo(R.Opts.Emit).Produce(R);
}

/// --save-temps: the intermediate files of an object's compile, as (path,
/// contents), named after the input's stem in the current folder or
/// beside the object.
static std::vector<std::pair<std::string, std::string>>
getSavedTemps(const DriverOptions &Opts, const OutputPaths &Paths,
              Artifacts &A) {
  llvm::SmallString<256> Dir;
  if (Opts.SaveTemps == "obj")
    Dir = llvm::sys::path::parent_path(Paths.Main);
  else if (Opts.SaveTemps != "cwd")
    Dir = Opts.SaveTemps; // a folder (--keep-dir, --save-temps=<dir>)
  std::string Stem = llvm::sys::path::stem(Opts.InputFile).str();
  auto PathOf = [&](const std::string &Name) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Stem + Name);
    return std::string(Path);
  };
  std::vector<std::pair<std::string, std::string>> Temps;
  if (!A.Images.empty()) // none with --offload-arch=none
    Temps.push_back(
        {PathOf(".device" + getDeviceSourceExtension(Opts.Targets).str()),
         std::move(A.DeviceSource)});
  Temps.push_back({PathOf(".launcher.cpp"), std::move(A.LauncherSource)});
  // Each image by its arch (k.sm_80.ptx); a package of them, as nvcc and
  // clang name it (k.fatbin, k.hipfb); of a module in parts, each part
  // (k.sm_80.part1.cubin, k.part1.fatbin).
  for (DeviceImage &I : A.Images) {
    std::string Arch = isPackageImage(I.Kind) ? "" : "." + I.Arch;
    std::string Ext = "." + getImageKindExtension(I.Kind).str();
    if (I.Parts.empty())
      Temps.push_back({PathOf(Arch + Ext), std::move(I.Data)});
    for (size_t P = 0; P < I.Parts.size(); ++P)
      Temps.push_back({PathOf(Arch + ".part" + std::to_string(P) + Ext),
                       std::move(I.Parts[P])});
  }
  return Temps;
}

std::vector<std::pair<std::string, std::string>> OutputPaths::list() const {
  std::vector<std::pair<std::string, std::string>> Out;
  if (!Main.empty())
    Out.push_back({"-o", Main});
  if (!Header.empty())
    Out.push_back({"-H", Header});
  if (!Python.empty())
    Out.push_back({"--emit-python", Python});
  if (!Depfile.empty())
    Out.push_back({"-MF", Depfile});
  return Out;
}

llvm::Expected<OutputPaths> qdc::getOutputPaths(const DriverOptions &Opts) {
  OutputPaths P;
  llvm::StringRef Stem = llvm::sys::path::stem(Opts.InputFile);
  if (Opts.Emit == EmitKind::Object) {
    P.Main = Opts.OutputFile.empty() ? (Stem + ".o").str() : Opts.OutputFile;
    if (P.Main == "-")
      return makeError("an object cannot go to standard output; name it "
                       "with -o <file>");
    // The header: -H, else `<stem>.qd.h` beside the object; none beside a
    // device (`-o /dev/null` checks that the file compiles, and writes
    // nothing into /dev).
    P.Header = Opts.HeaderFile;
    if (P.Header.empty() && !isSpecialFile(P.Main)) {
      llvm::SmallString<256> Path(llvm::sys::path::parent_path(P.Main));
      llvm::sys::path::append(Path, Stem + ".qd.h");
      P.Header = std::string(Path);
    }
    P.Python = Opts.PythonFile;
  } else {
    P.Main = Opts.OutputFile.empty() ? "-" : Opts.OutputFile;
  }
  if (!Opts.WriteDepfile)
    return P;

  // The depfile: -MF, else the main output's name with `.d`.
  P.Depfile = Opts.DepfilePath;
  if (P.Depfile.empty()) {
    if (P.Main == "-")
      return makeError("-MD needs -MF <file> when the output goes to "
                       "standard output");
    if (isSpecialFile(P.Main))
      return makeError("-MD needs -MF <file> when -o names a device ('" +
                       P.Main + "')");
    llvm::SmallString<256> Path(P.Main);
    llvm::sys::path::replace_extension(Path, ".d");
    P.Depfile = std::string(Path);
  }
  // A rule for the standard output has no file to name: the input would be
  // made to depend on its own headers.
  if (P.Main == "-" && Opts.DepfileTarget.empty())
    return makeError("-MD with the output on standard output needs -MT "
                     "<target>, the file the rule is for");
  return P;
}

void qdc::addDepfile(OutputSet &Set, const DriverOptions &Opts,
                     const OutputPaths &Paths,
                     const std::vector<std::string> &Dependencies) {
  if (Paths.Depfile.empty())
    return;
  std::string Target =
      Opts.DepfileTarget.empty() ? Paths.Main : Opts.DepfileTarget;
  Set.add(Paths.Depfile, makeDepfile(Target, Dependencies, Opts.PhonyDeps));
}

static CodeGenOptions makeCodeGenOptions(const DriverOptions &Opts,
                                         CodeGenStage Stage,
                                         WarningLog &Warnings) {
  CodeGenOptions CG;
  CG.InputPath = Opts.InputFile;
  CG.Namespace = getGeneratedNamespace(Opts.InputFile, Opts.Namespace);
  CG.Targets = Opts.Targets;
  CG.Stage = Stage;
  CG.Warnings = &Warnings;
  return CG;
}

/// The stage of code generation that Opts asks for.
static CodeGenStage getStage(const DriverOptions &Opts) {
  return Opts.SyntaxOnly ? CodeGenStage::Check : getInfo(Opts.Emit).Stage;
}

std::unique_ptr<EarlyHostCompile>
qdc::beginEarlyHostCompile(const DriverOptions &Opts, const Toolchain &Tools,
                           WarningLog &Warnings, size_t InputBytes) {
  if (Opts.DepsOnly)
    return nullptr;
  return beginHostCompile(makeCodeGenOptions(Opts, getStage(Opts), Warnings),
                          Tools, InputBytes);
}

int qdc::checkGeneratedCode(const DriverOptions &Opts, const kir::Module &M,
                            const Toolchain &Tools, WarningLog &Warnings,
                            EarlyHostCompile *EarlyHost) {
  CodeGenOptions CG = makeCodeGenOptions(Opts, CodeGenStage::Check, Warnings);
  CG.EarlyHost = EarlyHost;
  llvm::Expected<Artifacts> A = emit(M, CG, Tools);
  if (!A)
    return reportError(llvm::toString(A.takeError()));
  return 0;
}

int qdc::writeOutputs(const DriverOptions &Opts, const OutputPaths &Paths,
                      const kir::Module &M, const Toolchain &Tools,
                      const std::vector<std::string> &Dependencies,
                      WarningLog &Warnings, EarlyHostCompile *EarlyHost) {
  if (int RC = checkRequest(Opts))
    return RC;
  CodeGenOptions CG = makeCodeGenOptions(Opts, getStage(Opts), Warnings);
  CG.EarlyHost = EarlyHost;
  llvm::Expected<Artifacts> A = emit(M, CG, Tools);
  if (!A)
    return reportError(llvm::toString(A.takeError()));

  // Every file is ready: they are written together.
  OutputSet Set;
  if (Opts.Emit == EmitKind::Object) {
    if (!Paths.Header.empty())
      Set.add(Paths.Header, std::move(A->Header));
    Set.add(Paths.Main, produceOutput({Opts, M, &*A}));
    if (!Paths.Python.empty()) {
      DriverOptions WithHeader = Opts;
      WithHeader.HeaderFile = Paths.Header;
      Set.add(Paths.Python, producePython({WithHeader, M, &*A}));
    }
    if (!Opts.SaveTemps.empty()) {
      std::vector<std::pair<std::string, std::string>> Checked = Paths.list();
      auto Temps = getSavedTemps(Opts, Paths, *A);
      for (const auto &[Path, Text] : Temps)
        Checked.push_back({"--save-temps", Path});
      if (llvm::Error E = checkOutputPaths(Opts.InputFile, Checked))
        return reportError(llvm::toString(std::move(E)));
      for (auto &[Path, Text] : Temps)
        Set.add(Path, std::move(Text));
    }
  } else {
    Set.add(Paths.Main, produceOutput({Opts, M, &*A}));
  }
  addDepfile(Set, Opts, Paths, Dependencies);
  if (Opts.Tools.PrintCommandsOnly) // -###: nothing is written
    return 0;
  return Set.commit();
}
