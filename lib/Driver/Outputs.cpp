//===- Outputs.cpp - Writing what code generation produced ----------------===//
//
// Part of qdc. Chooses how far code generation must go for the --emit kind,
// calls it, and writes the artifacts asked for: the one text of a --emit
// kind, or the object, the header and the depfile, each replaced
// atomically, after everything was generated.
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"
#include "Output.h"

#include "qdc/CodeGen/CodeGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace qdc;

/// A Make rule: Target depends on every file in Deps.
static std::string makeDepfile(const std::string &Target,
                               const std::vector<std::string> &Deps) {
  auto Escape = [](llvm::StringRef Path) {
    std::string Out;
    for (char C : Path) {
      if (C == ' ' || C == '#')
        Out += '\\';
      else if (C == '$')
        Out += '$';
      Out += C;
    }
    return Out;
  };
  std::string Rule = Escape(Target) + ":";
  for (const std::string &D : Deps)
    Rule += " \\\n  " + Escape(D);
  return Rule + "\n";
}

static CodeGenStage getStage(EmitKind Emit) {
  switch (Emit) {
  case EmitKind::DeviceSource:
  case EmitKind::Header:
    return CodeGenStage::Sources;
  case EmitKind::LLVM:
    return CodeGenStage::DeviceIR;
  case EmitKind::PTX:
  case EmitKind::HSACO:
    return CodeGenStage::Images;
  case EmitKind::LauncherSource:
    return CodeGenStage::Launcher;
  default:
    return CodeGenStage::Object;
  }
}

/// What must hold of the options before any work is done; 0 when it does.
static int checkRequest(const DriverOptions &Opts, const std::string &Object) {
  if (Opts.Emit == EmitKind::HSACO) {
    size_t NumAmd = llvm::count_if(Opts.OffloadArchs, [](const std::string &A) {
      return getDialectForArch(A) == DeviceDialect::Hip;
    });
    if (NumAmd == 0)
      return reportError("--emit=hsaco needs an AMD GPU in --offload-arch, "
                         "e.g. --offload-arch=gfx90a");
    if (NumAmd > 1)
      return reportError(
          "--emit=hsaco writes one code object; give one gfx arch");
  }
  if (Opts.Emit == EmitKind::Object && Object == "-")
    return reportError("an object cannot go to standard output; name it "
                       "with -o <file>");
  return 0;
}

/// The text a single-output --emit kind asks for.
static std::string getEmittedText(const DriverOptions &Opts,
                                  const Artifacts &A) {
  std::string All;
  switch (Opts.Emit) {
  case EmitKind::DeviceSource:
    return A.DeviceSource;
  case EmitKind::Header:
    return A.Header;
  case EmitKind::LauncherSource:
    return A.LauncherSource;
  case EmitKind::LLVM:
    // Each arch's IR, headed by the arch when there are several.
    for (const auto &[Arch, IR] : A.DeviceIR)
      All += (A.DeviceIR.size() > 1 ? "; " + Arch + "\n" : "") + IR;
    return All;
  case EmitKind::PTX: {
    std::vector<const DeviceImage *> Ptx;
    for (const DeviceImage &I : A.Images)
      if (I.ImageKind == DeviceImage::PTX)
        Ptx.push_back(&I);
    for (const DeviceImage *I : Ptx)
      All += (Ptx.size() > 1 ? "// " + I->Arch + "\n" : "") + I->Data;
    return All;
  }
  case EmitKind::HSACO:
    for (const DeviceImage &I : A.Images)
      if (I.ImageKind == DeviceImage::HSACO)
        return I.Data;
    return All;
  default:
    llvm_unreachable("not a single-output --emit kind");
  }
}

/// The header's path: -H, else `<stem>.qd.h` beside the object.
static std::string getHeaderPath(const DriverOptions &Opts,
                                 const std::string &Object) {
  if (!Opts.HeaderFile.empty())
    return Opts.HeaderFile;
  llvm::SmallString<256> Path(llvm::sys::path::parent_path(Object));
  llvm::sys::path::append(Path,
                          llvm::sys::path::stem(Opts.InputFile) + ".qd.h");
  return std::string(Path);
}

/// The depfile's path: -MF, else the object's with `.d`.
static std::string getDepfilePath(const DriverOptions &Opts,
                                  const std::string &Object) {
  if (!Opts.DepfilePath.empty())
    return Opts.DepfilePath;
  llvm::SmallString<256> Path(Object);
  llvm::sys::path::replace_extension(Path, ".d");
  return std::string(Path);
}

int qdc::writeOutputs(const DriverOptions &Opts, const kir::Module &M,
                      const Toolchain &Tools,
                      const std::vector<std::string> &Dependencies) {
  std::string Object =
      Opts.OutputFile.empty()
          ? (llvm::sys::path::stem(Opts.InputFile) + ".o").str()
          : Opts.OutputFile;
  if (int RC = checkRequest(Opts, Object))
    return RC;

  CodeGenOptions CG;
  CG.InputPath = Opts.InputFile;
  CG.Namespace = getGeneratedNamespace(Opts.InputFile, Opts.Namespace);
  CG.OffloadArchs = Opts.OffloadArchs;
  CG.Stage = getStage(Opts.Emit);
  llvm::Expected<Artifacts> A = emit(M, CG, Tools);
  if (!A)
    return reportError(llvm::toString(A.takeError()));

  if (Opts.Emit != EmitKind::Object)
    return writeOutput(Opts.OutputFile.empty() ? "-" : Opts.OutputFile,
                       getEmittedText(Opts, *A));
  if (int RC = writeOutput(getHeaderPath(Opts, Object), A->Header))
    return RC;
  if (int RC = writeOutput(Object, A->Object))
    return RC;
  if (!Opts.WriteDepfile)
    return 0;
  return writeOutput(
      getDepfilePath(Opts, Object),
      makeDepfile(Opts.DepfileTarget.empty() ? Object : Opts.DepfileTarget,
                  Dependencies));
}
