//===- Driver.cpp - The qdc pipeline --------------------------------------===//
//
// Part of qdc. Options -> frontend (Clang AST -> KIR) -> pass pipeline ->
// verifier -> output. Problems with a source location are Clang-style
// diagnostics; problems without one (a missing file, a bad option) are
// `qdc: error: ...`. Any error means exit code 1 and no output written;
// outputs are replaced atomically.
//
//===----------------------------------------------------------------------===//

#include "qdc/Driver/Driver.h"
#include "qdc/CodeGen/Compiler.h"
#include "qdc/CodeGen/SourceGen.h"
#include "qdc/Driver/Options.h"
#include "qdc/Frontend/Frontend.h"
#include "qdc/KIR/Printer.h"
#include "qdc/KIR/Verifier.h"
#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace qdc;

static int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "qdc") << Msg << '\n';
  return 1;
}

/// The folder holding qd/qd.h: `<prefix>/include` beside `<prefix>/bin/qdc`,
/// in the build tree as in an install tree.
static std::string getPreludeDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Dir, "include");
  return std::string(Dir);
}

/// Checks that the input can be read; the message names the file.
static llvm::Error checkInput(llvm::StringRef Path) {
  auto Err = [&](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Why + ": '" + Path + "'");
  };
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return Err("no such file or directory");
  if (llvm::sys::fs::is_directory(Status))
    return Err("input is a directory");
  llvm::Expected<llvm::sys::fs::file_t> F =
      llvm::sys::fs::openNativeFileForRead(Path);
  if (!F)
    return Err("cannot read input (" + llvm::toString(F.takeError()) + ")");
  llvm::sys::fs::closeFile(*F);
  return llvm::Error::success();
}

/// Writes Text to Path ("-": standard output) atomically.
static int writeText(const std::string &Path, llvm::StringRef Text) {
  if (llvm::Error E = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
        OS << Text;
        return llvm::Error::success();
      }))
    return fail("cannot write '" + Path + "': " + llvm::toString(std::move(E)));
  return 0;
}

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

static int generate(const DriverOptions &Opts, const kir::Module &M,
                    const std::string &PreludeDir,
                    const std::vector<std::string> &Dependencies) {
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
    return writeText(Output, OnlyAmd ? generateHipSource(M, SG)
                                     : generateCudaSource(M, SG));
  }
  case EmitKind::Header:
    return writeText(Output, generateHeader(M, SG));
  default:
    break;
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
        return fail(llvm::toString(Hsaco.takeError()));
      Hsacos.push_back({DeviceImage::HSACO, Arch, std::move(*Hsaco)});
    }
  }
  if (Opts.Emit == EmitKind::HSACO) {
    if (Hsacos.empty())
      return fail("--emit=hsaco needs an AMD GPU in --offload-arch, e.g. "
                  "--offload-arch=gfx90a");
    if (Hsacos.size() > 1)
      return fail("--emit=hsaco writes one code object; give one gfx arch");
    return writeText(Output, Hsacos.front().Data);
  }

  std::vector<DeviceImage> Images;
  std::string Cuda = generateCudaSource(M, SG);
  for (const std::string &Arch : SmArchs) {
    llvm::Expected<std::string> Ptx = compileCudaToPtx(Cuda, Arch, CO);
    if (!Ptx)
      return fail(llvm::toString(Ptx.takeError()));
    Images.push_back({DeviceImage::PTX, Arch, std::move(*Ptx)});
  }
  if (Opts.Emit == EmitKind::PTX) {
    std::string All;
    for (const DeviceImage &I : Images)
      All += (Images.size() > 1 ? "// " + I.Arch + "\n" : "") + I.Data;
    return writeText(Output, All);
  }
  // SASS beside each PTX when a CUDA toolkit is here: no JIT at load time on
  // exactly that GPU; the PTX still serves newer ones.
  if (std::string Ptxas = findPtxas(); !Ptxas.empty()) {
    for (size_t I = 0, E = Images.size(); I < E; ++I) {
      llvm::Expected<std::string> Sass =
          assemblePtx(Ptxas, Images[I].Data, Images[I].Arch, CO);
      if (!Sass)
        return fail(llvm::toString(Sass.takeError()));
      Images.push_back({DeviceImage::Cubin, Images[I].Arch, std::move(*Sass)});
    }
  }
  for (DeviceImage &I : Hsacos)
    Images.push_back(std::move(I));
  std::string Host = generateHostSource(M, SG, Images);
  if (Opts.Emit == EmitKind::LauncherSource)
    return writeText(Output, Host);

  // The object and the header, each replaced atomically.
  std::string Object = Opts.OutputFile.empty()
                           ? getStem(Opts.InputFile) + ".o"
                           : Opts.OutputFile;
  std::string Header = Opts.HeaderFile;
  if (Header.empty()) {
    llvm::SmallString<256> Path(llvm::sys::path::parent_path(Object));
    llvm::sys::path::append(Path, getStem(Opts.InputFile) + ".qd.h");
    Header = std::string(Path);
  }
  llvm::SmallString<256> Temp;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Object + ".tmp%%%%%%", Temp))
    return fail("cannot write '" + Object + "': " + EC.message());
  // The Itanium mangling of names in the generated namespace.
  std::string Prefix = "_ZN";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  llvm::StringRef(SG.Namespace).split(Parts, "::");
  for (llvm::StringRef Part : Parts)
    Prefix += std::to_string(Part.size()) + Part.str();
  if (llvm::Error E =
          compileHostObject(Host, std::string(Temp), Prefix, CO)) {
    llvm::sys::fs::remove(Temp);
    return fail(llvm::toString(std::move(E)));
  }
  if (int RC = writeText(Header, generateHeader(M, SG))) {
    llvm::sys::fs::remove(Temp);
    return RC;
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Object)) {
    llvm::sys::fs::remove(Temp);
    return fail("cannot write '" + Object + "': " + EC.message());
  }
  if (!Opts.WriteDepfile)
    return 0;
  std::string Depfile = Opts.DepfilePath;
  if (Depfile.empty()) {
    llvm::SmallString<256> Path(Object);
    llvm::sys::path::replace_extension(Path, ".d");
    Depfile = std::string(Path);
  }
  return writeText(Depfile,
                   makeDepfile(Opts.DepfileTarget.empty() ? Object
                                                          : Opts.DepfileTarget,
                               Dependencies));
}

int qdc::runDriver(llvm::ArrayRef<const char *> Args) {
  llvm::Expected<std::optional<DriverOptions>> Parsed =
      parseOptions(Args, llvm::outs());
  if (!Parsed)
    return fail(llvm::toString(Parsed.takeError()));
  if (!*Parsed)
    return 0; // --help or --version
  const DriverOptions &Opts = **Parsed;

  std::string PreludeDir = getPreludeDir(Args.empty() ? "qdc" : Args[0]);
  if (Opts.PrintIncludeDir) {
    llvm::outs() << PreludeDir << '\n';
    return 0;
  }
  if (Opts.PrintPasses) {
    for (const PassInfo &P : getPasses())
      llvm::outs() << llvm::left_justify(P.Name, 24) << P.Description << '\n';
    return 0;
  }
  if (Opts.InputFile.empty())
    return fail("no input file");
  if (llvm::Error E = checkInput(Opts.InputFile))
    return fail(llvm::toString(std::move(E)));

  FrontendOptions FOpts;
  FOpts.InputFile = Opts.InputFile;
  FOpts.PreludeDir = PreludeDir;
  FOpts.IncludeDirs = Opts.IncludeDirs;
  FOpts.Defines = Opts.Defines;
  FOpts.Std = Opts.Std;
  FOpts.WarningsAsErrors = Opts.WarningsAsErrors;
  FOpts.IgnoreWarnings = Opts.IgnoreWarnings;
  FOpts.Verbose = Opts.Verbose;
  FrontendSession Session(std::move(FOpts));
  std::optional<kir::Module> M = Session.parse();
  if (!M)
    return 1;
  runPipeline(*M, Session.getDiags(), Opts.StopAfter);
  if (Session.getNumErrors())
    return 1;
  if (Opts.StopAfter.empty())
    if (llvm::Error E = kir::verifyModule(*M))
      return fail("internal error: invalid kernel IR: " +
                  llvm::toString(std::move(E)));
  if (Opts.SyntaxOnly)
    return 0;

  if (Opts.Emit == EmitKind::KIR || Opts.Emit == EmitKind::StreamPlan) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    if (Opts.Emit == EmitKind::KIR)
      kir::printModule(*M, OS);
    else if (Opts.PlanAsDot)
      kir::printStreamPlanDot(*M, OS);
    else
      kir::printStreamPlan(*M, OS);
    return writeText(Opts.OutputFile.empty() ? "-" : Opts.OutputFile,
                     OS.str());
  }
  if (!checkKernelsRewritable(*M, Session.getDiags()))
    return 1;
  return generate(Opts, *M, PreludeDir, Session.getDependencies());
}
