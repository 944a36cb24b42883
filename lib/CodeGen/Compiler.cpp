//===- Compiler.cpp - In-process Clang/LLVM compilation -------------------===//
//
// Part of qdc. Each compile builds a Clang invocation the way the clang
// driver would (createInvocation), maps the generated source into the file
// system as a file beside the .qd, and runs a code-generation action.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/Compiler.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

#ifndef QDC_CLANG_EXECUTABLE
#error "QDC_CLANG_EXECUTABLE must name the clang-19 driver"
#endif

using namespace qdc;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

static void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string qdc::findLibdevice() {
  // CUDA_PATH, when set, is the only place looked at.
  llvm::SmallVector<std::string, 2> Roots;
  if (const char *Env = std::getenv("CUDA_PATH"))
    Roots.push_back(Env);
  else
    Roots.push_back("/usr/local/cuda");
  for (const std::string &Root : Roots) {
    llvm::SmallString<256> Path(Root);
    llvm::sys::path::append(Path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(Path))
      return std::string(Path);
  }
  return {};
}

std::string qdc::findPtxas() {
  llvm::SmallVector<llvm::StringRef, 2> Dirs;
  std::string Root;
  if (const char *Env = std::getenv("CUDA_PATH"))
    Root = std::string(Env) + "/bin";
  else
    Root = "/usr/local/cuda/bin";
  Dirs.push_back(Root);
  if (llvm::ErrorOr<std::string> P = llvm::sys::findProgramByName("ptxas", Dirs))
    return *P;
  if (std::getenv("CUDA_PATH"))
    return {};
  if (llvm::ErrorOr<std::string> P = llvm::sys::findProgramByName("ptxas"))
    return *P;
  return {};
}

static std::vector<std::string> commonArgs(const CompileOptions &Opts) {
  std::vector<std::string> Args = {QDC_CLANG_EXECUTABLE, "-std=" + Opts.Std,
                                   "-O" + std::to_string(Opts.OptLevel), "-w",
                                   "-I" + Opts.IncludeDir};
  for (const std::string &Dir : Opts.IncludeDirs)
    Args.push_back("-I" + Dir);
  for (const std::string &Def : Opts.Defines)
    Args.push_back("-D" + Def);
  Args.push_back("-D__QDC__=1");
  if (Opts.DebugInfo)
    Args.push_back("-gline-tables-only");
  return Args;
}

/// Runs Action on Source, seen by Clang as the file InputName.
static llvm::Error runClang(std::vector<std::string> Args,
                            const std::string &InputName,
                            const std::string &Source,
                            clang::FrontendAction &Action, bool Verbose) {
  initializeTargets();
  Args.push_back(InputName);
  if (Verbose) {
    llvm::errs() << "qdc: compiling with:";
    for (const std::string &A : Args)
      llvm::errs() << ' ' << A;
    llvm::errs() << '\n';
  }
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  DiagOpts->ShowColors = llvm::errs().has_colors();
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> Diags =
      clang::CompilerInstance::createDiagnostics(
          DiagOpts.get(),
          new clang::TextDiagnosticPrinter(llvm::errs(), DiagOpts.get()));
  // The user saw the warnings about their code when it was parsed; these
  // would be about qdc's own output or the CUDA version.
  Diags->setIgnoreAllWarnings(true);
  // The driver turns the command line into one cc1 job, as `clang` would.
  clang::driver::Driver TheDriver(Argv[0], llvm::sys::getDefaultTargetTriple(),
                                  *Diags);
  TheDriver.setCheckInputsExist(false);
  std::unique_ptr<clang::driver::Compilation> C(
      TheDriver.BuildCompilation(Argv));
  if (!C || C->containsError() || C->getJobs().size() != 1)
    return makeError("cannot set up the compilation of " + InputName);
  const clang::driver::Command &Job = *C->getJobs().begin();
  llvm::ArrayRef<const char *> CC1Args = Job.getArguments();
  if (!CC1Args.empty() && llvm::StringRef(CC1Args.front()) == "-cc1")
    CC1Args = CC1Args.drop_front();
  auto Inv = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*Inv, CC1Args, *Diags,
                                                 Argv[0]))
    return makeError("cannot set up the compilation of " + InputName);
  Inv->getPreprocessorOpts().addRemappedFile(
      InputName,
      llvm::MemoryBuffer::getMemBufferCopy(Source, InputName).release());
  Inv->getFrontendOpts().DisableFree = false;
  clang::CompilerInstance CI;
  CI.setInvocation(std::move(Inv));
  CI.createDiagnostics();
  if (!CI.ExecuteAction(Action))
    return makeError("compiling the generated " + InputName + " failed");
  return llvm::Error::success();
}

/// A temporary file removed when this goes out of scope.
namespace {
struct TempFile {
  llvm::SmallString<128> Path;
  ~TempFile() {
    if (!Path.empty())
      llvm::sys::fs::remove(Path);
  }
};
} // namespace

llvm::Expected<std::string> qdc::compileCudaToPtx(const std::string &Source,
                                                  const std::string &Arch,
                                                  const CompileOptions &Opts) {
  TempFile Out;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("qdc", "ptx", Out.Path))
    return makeError("cannot create a temporary file: " + EC.message());
  std::vector<std::string> Args = commonArgs(Opts);
  Args.insert(Args.end(),
              {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + Arch,
               "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version", "-S",
               "-o", std::string(Out.Path)});
  if (!Opts.Libdevice.empty())
    Args.insert(Args.end(), {"-DQD_HAVE_LIBDEVICE=1", "-Xclang",
                             "-mlink-builtin-bitcode", "-Xclang",
                             Opts.Libdevice});
  clang::EmitAssemblyAction Action;
  if (llvm::Error E = runClang(Args, Opts.InputPath + "." + Arch + ".cu",
                               Source, Action, Opts.Verbose))
    return std::move(E);
  auto Buffer = llvm::MemoryBuffer::getFile(Out.Path);
  if (!Buffer)
    return makeError("cannot read the PTX for " + Arch + ": " +
                     Buffer.getError().message());
  return (*Buffer)->getBuffer().str();
}

llvm::Expected<std::string> qdc::assemblePtx(const std::string &Ptxas,
                                             const std::string &Ptx,
                                             const std::string &Arch,
                                             const CompileOptions &Opts) {
  TempFile In, Out, Log;
  for (auto [File, Ext] : {std::pair<TempFile *, const char *>{&In, "ptx"},
                           {&Out, "cubin"},
                           {&Log, "log"}})
    if (std::error_code EC =
            llvm::sys::fs::createTemporaryFile("qdc", Ext, File->Path))
      return makeError("cannot create a temporary file: " + EC.message());
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In.Path, EC);
    if (EC)
      return makeError("cannot write " + In.Path + ": " + EC.message());
    OS << Ptx;
  }
  std::vector<std::string> Args = {Ptxas, "-arch=" + Arch,
                                   "-O" + std::to_string(Opts.OptLevel), "-o",
                                   std::string(Out.Path), std::string(In.Path)};
  if (Opts.DebugInfo)
    Args.push_back("-lineinfo");
  if (Opts.Verbose) {
    llvm::errs() << "qdc: running";
    for (const std::string &A : Args)
      llvm::errs() << ' ' << A;
    llvm::errs() << '\n';
  }
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.Path.str(),
                                                Log.Path.str()};
  std::string ErrMsg;
  int RC = llvm::sys::ExecuteAndWait(Ptxas, Argv, std::nullopt, Redirects, 0,
                                     0, &ErrMsg);
  if (RC != 0) {
    auto Text = llvm::MemoryBuffer::getFile(Log.Path);
    return makeError("ptxas failed for " + Arch + ": " +
                     (Text ? (*Text)->getBuffer().trim().str() : ErrMsg));
  }
  auto Cubin = llvm::MemoryBuffer::getFile(Out.Path);
  if (!Cubin)
    return makeError("cannot read the SASS for " + Arch + ": " +
                     Cubin.getError().message());
  return (*Cubin)->getBuffer().str();
}

llvm::Error qdc::compileHostObject(const std::string &Source,
                                   const std::string &OutputPath,
                                   const CompileOptions &Opts) {
  std::vector<std::string> Args = commonArgs(Opts);
  Args.insert(Args.end(), {"-x", "c++", "-c", "-fPIC", "-o", OutputPath});
  clang::EmitObjAction Action;
  return runClang(Args, Opts.InputPath + ".host.cpp", Source, Action,
                  Opts.Verbose);
}
