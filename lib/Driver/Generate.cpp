//===- Generate.cpp - From KIR to the requested outputs -------------------===//
//
// Part of qdc. Runs code generation for the --emit kind asked for: the
// device sources, PTX (and SASS when ptxas is here), HSACO, the host source,
// and finally the object, header and depfile, each written atomically.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"
#include "Output.h"

#include "qdc/CodeGen/Compiler.h"
#include "qdc/CodeGen/SourceGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace qdc;

/// The file name without its last extension: "dir/streams.qd" -> "streams".
static std::string getStem(llvm::StringRef Input) {
  return llvm::sys::path::stem(Input).str();
}

/// The stem made into a C++ identifier.
static std::string getNamespace(const DriverOptions &Opts) {
  if (!Opts.Namespace.empty())
    return Opts.Namespace;
  std::string NS = getStem(Opts.InputFile);
  for (char &C : NS)
    if (!llvm::isAlnum(C))
      C = '_';
  if (NS.empty() || llvm::isDigit(NS[0]))
    NS = "_" + NS;
  return NS;
}

/// Code generation needs each kernel spelled in the .qd file itself.
static bool checkKernelsRewritable(const kir::Module &M, DiagEngine &Diags) {
  bool OK = true;
  for (const kir::Kernel &K : M.Kernels) {
    bool Valid = K.Range.isValid();
    for (const kir::Task &T : K.Tasks)
      for (unsigned Id : T.StmtIds)
        if (const kir::Stmt *S = K.findStmt(Id))
          Valid = Valid && S->Range.isValid() &&
                  (S->Kind != kir::StmtKind::Loop || S->LoopBody.isValid());
    if (!Valid) {
      Diags.report(DiagID::err_kernel_not_rewritable, K.Loc) << K.Name;
      OK = false;
    }
  }
  return OK;
}

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

int qdc::generateOutputs(const DriverOptions &Opts, const kir::Module &M,
                         DiagEngine &Diags, const std::string &PreludeDir,
                         const std::vector<std::string> &Dependencies) {
  if (!checkKernelsRewritable(M, Diags))
    return 1;
  SourceGenOptions SG;
  SG.InputPath = Opts.InputFile;
  SG.Namespace = getNamespace(Opts);
  CompileOptions CO;
  CO.InputPath = Opts.InputFile;
  CO.IncludeDir = PreludeDir;
  CO.IncludeDirs = Opts.IncludeDirs;
  CO.Defines = Opts.Defines;
  CO.Std = Opts.Std;
  CO.OptLevel = Opts.OptLevel;
  CO.DebugInfo = Opts.DebugInfo;
  CO.Verbose = Opts.Verbose;
  CO.Libdevice = findLibdevice();
  std::string Output = Opts.OutputFile.empty() ? "-" : Opts.OutputFile;

  switch (Opts.Emit) {
  case EmitKind::DeviceSource: {
    // The CUDA source, or the HIP one when only AMD GPUs are targeted.
    bool OnlyAmd = llvm::all_of(Opts.OffloadArchs, [](const std::string &A) {
      return llvm::StringRef(A).starts_with("gfx");
    });
    return writeOutput(Output, OnlyAmd ? generateHipSource(M, SG)
                                     : generateCudaSource(M, SG));
  }
  case EmitKind::Header:
    return writeOutput(Output, generateHeader(M, SG));
  default:
    break;
  }

  if (Opts.Emit == EmitKind::LLVM) {
    // The device IR for every --offload-arch, each headed by its arch when
    // there are several.
    std::string All;
    for (const std::string &Arch : Opts.OffloadArchs) {
      bool Amd = llvm::StringRef(Arch).starts_with("gfx");
      llvm::Expected<std::string> IR = compileDeviceToLLVM(
          Amd ? generateHipSource(M, SG) : generateCudaSource(M, SG), Arch, CO);
      if (!IR)
        return reportError(llvm::toString(IR.takeError()));
      if (Opts.OffloadArchs.size() > 1)
        All += "; " + Arch + "\n";
      All += *IR;
    }
    return writeOutput(Output, All);
  }

  std::vector<std::string> SmArchs, GfxArchs;
  for (const std::string &Arch : Opts.OffloadArchs)
    (llvm::StringRef(Arch).starts_with("gfx") ? GfxArchs : SmArchs)
        .push_back(Arch);
  std::vector<DeviceImage> Hsacos;
  if (!GfxArchs.empty()) {
    std::string Hip = generateHipSource(M, SG);
    for (const std::string &Arch : GfxArchs) {
      llvm::Expected<std::string> Hsaco = compileHipToHsaco(Hip, Arch, CO);
      if (!Hsaco)
        return reportError(llvm::toString(Hsaco.takeError()));
      Hsacos.push_back({DeviceImage::HSACO, Arch, std::move(*Hsaco)});
    }
  }
  if (Opts.Emit == EmitKind::HSACO) {
    if (Hsacos.empty())
      return reportError("--emit=hsaco needs an AMD GPU in --offload-arch, e.g. "
                  "--offload-arch=gfx90a");
    if (Hsacos.size() > 1)
      return reportError("--emit=hsaco writes one code object; give one gfx arch");
    return writeOutput(Output, Hsacos.front().Data);
  }

  std::vector<DeviceImage> Images;
  std::string Cuda = generateCudaSource(M, SG);
  for (const std::string &Arch : SmArchs) {
    llvm::Expected<std::string> Ptx = compileCudaToPtx(Cuda, Arch, CO);
    if (!Ptx)
      return reportError(llvm::toString(Ptx.takeError()));
    Images.push_back({DeviceImage::PTX, Arch, std::move(*Ptx)});
  }
  if (Opts.Emit == EmitKind::PTX) {
    std::string All;
    for (const DeviceImage &I : Images)
      All += (Images.size() > 1 ? "// " + I.Arch + "\n" : "") + I.Data;
    return writeOutput(Output, All);
  }
  // SASS beside each PTX when a CUDA toolkit is here: no JIT at load time on
  // exactly that GPU; the PTX still serves newer ones.
  if (std::string Ptxas = findPtxas(); !Ptxas.empty()) {
    for (size_t I = 0, E = Images.size(); I < E; ++I) {
      llvm::Expected<std::string> Sass =
          assemblePtx(Ptxas, Images[I].Data, Images[I].Arch, CO);
      if (!Sass)
        return reportError(llvm::toString(Sass.takeError()));
      Images.push_back({DeviceImage::Cubin, Images[I].Arch, std::move(*Sass)});
    }
  }
  for (DeviceImage &I : Hsacos)
    Images.push_back(std::move(I));
  std::string Host = generateHostSource(M, SG, Images);
  if (Opts.Emit == EmitKind::LauncherSource)
    return writeOutput(Output, Host);

  // The object and the header, each replaced atomically.
  std::string Object = Opts.OutputFile.empty()
                           ? getStem(Opts.InputFile) + ".o"
                           : Opts.OutputFile;
  if (Object == "-")
    return reportError("an object cannot go to standard output; name it "
                       "with -o <file>");
  std::string Header = Opts.HeaderFile;
  if (Header.empty()) {
    llvm::SmallString<256> Path(llvm::sys::path::parent_path(Object));
    llvm::sys::path::append(Path, getStem(Opts.InputFile) + ".qd.h");
    Header = std::string(Path);
  }
  llvm::SmallString<256> Temp;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Object + ".tmp%%%%%%", Temp))
    return reportError("cannot write '" + Object + "': " + EC.message());
  // The Itanium mangling of names in the generated namespace.
  std::string Prefix = "_ZN";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  llvm::StringRef(SG.Namespace).split(Parts, "::");
  for (llvm::StringRef Part : Parts)
    Prefix += std::to_string(Part.size()) + Part.str();
  if (llvm::Error E =
          compileHostObject(Host, std::string(Temp), Prefix, CO)) {
    llvm::sys::fs::remove(Temp);
    return reportError(llvm::toString(std::move(E)));
  }
  if (int RC = writeOutput(Header, generateHeader(M, SG))) {
    llvm::sys::fs::remove(Temp);
    return RC;
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Object)) {
    llvm::sys::fs::remove(Temp);
    return reportError("cannot write '" + Object + "': " + EC.message());
  }
  if (!Opts.WriteDepfile)
    return 0;
  std::string Depfile = Opts.DepfilePath;
  if (Depfile.empty()) {
    llvm::SmallString<256> Path(Object);
    llvm::sys::path::replace_extension(Path, ".d");
    Depfile = std::string(Path);
  }
  return writeOutput(Depfile,
                   makeDepfile(Opts.DepfileTarget.empty() ? Object
                                                          : Opts.DepfileTarget,
                               Dependencies));
}

