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
#include "clang/Driver/Tool.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>

#if !defined(QDC_CLANG_EXECUTABLE) || !defined(QDC_LLD_EXECUTABLE) ||          \
    !defined(QDC_ROCM_BITCODE_DIR)
#error "the build defines where clang-19, ld.lld and the ROCm bitcode are"
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
  if (llvm::ErrorOr<std::string> P =
          llvm::sys::findProgramByName("ptxas", Dirs))
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
                            clang::FrontendAction &Action, bool Verbose,
                            const std::string &OutputPath = {}) {
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
  if (!C || C->containsError() || C->getJobs().empty())
    return makeError("cannot set up the compilation of " + InputName);
  // The compile job; what the driver would run after it (a device link, a
  // bundler) qdc does itself.
  const clang::driver::Command &Job = *C->getJobs().begin();
  if (llvm::StringRef(Job.getCreator().getName()) != "clang")
    return makeError("cannot set up the compilation of " + InputName);
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
  if (!OutputPath.empty())
    Inv->getFrontendOpts().OutputFile = OutputPath;
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

/// Creates F as a fresh temporary file ending in .Ext.
static llvm::Error createTemp(TempFile &F, const char *Ext) {
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("qdc", Ext, F.Path))
    return makeError("cannot create a temporary file: " + EC.message());
  return llvm::Error::success();
}

/// The contents of F, which a tool wrote; What names it in the error.
static llvm::Expected<std::string> readBack(const TempFile &F,
                                            const llvm::Twine &What) {
  auto Buffer = llvm::MemoryBuffer::getFile(F.Path);
  if (!Buffer)
    return makeError("cannot read " + What + ": " +
                     Buffer.getError().message());
  return (*Buffer)->getBuffer().str();
}

/// The device compile of a CUDA-dialect source for Arch.
static std::vector<std::string> cudaArgs(const std::string &Arch,
                                         const CompileOptions &Opts) {
  std::vector<std::string> Args = commonArgs(Opts);
  Args.insert(Args.end(),
              {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + Arch,
               "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version"});
  if (!Opts.Libdevice.empty())
    Args.insert(Args.end(),
                {"-DQD_HAVE_LIBDEVICE=1", "-Xclang", "-mlink-builtin-bitcode",
                 "-Xclang", Opts.Libdevice});
  return Args;
}

static std::vector<std::string> rocmBitcode(llvm::StringRef Arch);

/// The device compile of a HIP-dialect source for Arch.
static std::vector<std::string> hipArgs(const std::string &Arch,
                                        const CompileOptions &Opts) {
  std::vector<std::string> Args = commonArgs(Opts);
  Args.insert(Args.end(), {"-x", "hip", "--cuda-device-only",
                           "--offload-arch=" + Arch, "-nogpuinc", "-nogpulib"});
  std::vector<std::string> Bitcode = rocmBitcode(Arch);
  if (!Bitcode.empty())
    Args.push_back("-DQD_HAVE_OCML=1");
  for (const std::string &BC : Bitcode)
    Args.insert(Args.end(),
                {"-Xclang", "-mlink-builtin-bitcode", "-Xclang", BC});
  return Args;
}

llvm::Expected<std::string> qdc::compileCudaToPtx(const std::string &Source,
                                                  const std::string &Arch,
                                                  const CompileOptions &Opts) {
  TempFile Out;
  if (llvm::Error E = createTemp(Out, "ptx"))
    return E;
  std::vector<std::string> Args = cudaArgs(Arch, Opts);
  Args.insert(Args.end(), {"-S", "-o", std::string(Out.Path)});
  clang::EmitAssemblyAction Action;
  if (llvm::Error E = runClang(Args, Opts.InputPath + "." + Arch + ".cu",
                               Source, Action, Opts.Verbose))
    return E;
  return readBack(Out, "the PTX for " + Arch);
}

/// The ROCm bitcode libraries for Arch, in link order, or empty when any is
/// missing.
static std::vector<std::string> rocmBitcode(llvm::StringRef Arch) {
  llvm::StringRef Dir = QDC_ROCM_BITCODE_DIR;
  if (Dir.empty() || !Arch.starts_with("gfx"))
    return {};
  bool Wave64 = Arch.starts_with("gfx9") || Arch.starts_with("gfx8");
  std::vector<std::string> Names = {
      "ocml.bc",
      "ockl.bc",
      "oclc_daz_opt_off.bc",
      "oclc_unsafe_math_off.bc",
      "oclc_finite_only_off.bc",
      "oclc_correctly_rounded_sqrt_on.bc",
      Wave64 ? "oclc_wavefrontsize64_on.bc" : "oclc_wavefrontsize64_off.bc",
      "oclc_isa_version_" + Arch.drop_front(3).str() + ".bc",
      "oclc_abi_version_500.bc"};
  std::vector<std::string> Out;
  for (const std::string &N : Names) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, N);
    if (!llvm::sys::fs::exists(Path))
      return {};
    Out.push_back(std::string(Path));
  }
  return Out;
}

/// Runs a program; its output goes into the error when it fails.
static llvm::Error runTool(llvm::ArrayRef<std::string> Args, bool Verbose) {
  TempFile Log;
  if (llvm::Error E = createTemp(Log, "log"))
    return E;
  if (Verbose) {
    llvm::errs() << "qdc: running";
    for (const std::string &A : Args)
      llvm::errs() << ' ' << A;
    llvm::errs() << '\n';
  }
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.Path.str(),
                                                Log.Path.str()};
  std::string ErrMsg;
  int RC = llvm::sys::ExecuteAndWait(Args[0], Argv, std::nullopt, Redirects, 0,
                                     0, &ErrMsg);
  if (RC == 0)
    return llvm::Error::success();
  auto Text = llvm::MemoryBuffer::getFile(Log.Path);
  return makeError(llvm::sys::path::filename(Args[0]) + " failed: " +
                   (Text ? (*Text)->getBuffer().trim().str() : ErrMsg));
}

llvm::Expected<std::string> qdc::assemblePtx(const std::string &Ptxas,
                                             const std::string &Ptx,
                                             const std::string &Arch,
                                             const CompileOptions &Opts) {
  TempFile In, Out;
  if (llvm::Error E = createTemp(In, "ptx"))
    return E;
  if (llvm::Error E = createTemp(Out, "cubin"))
    return E;
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In.Path, EC);
    if (EC)
      return makeError("cannot write " + In.Path + ": " + EC.message());
    OS << Ptx;
  }
  std::vector<std::string> Args = {
      Ptxas, "-arch=" + Arch,       "-O" + std::to_string(Opts.OptLevel),
      "-o",  std::string(Out.Path), std::string(In.Path)};
  if (Opts.DebugInfo)
    Args.push_back("-lineinfo");
  if (llvm::Error E = runTool(Args, Opts.Verbose))
    return E;
  return readBack(Out, "the SASS for " + Arch);
}

llvm::Expected<std::string> qdc::compileHipToHsaco(const std::string &Source,
                                                   const std::string &Arch,
                                                   const CompileOptions &Opts) {
  TempFile Object, Hsaco;
  if (llvm::Error E = createTemp(Object, "o"))
    return E;
  if (llvm::Error E = createTemp(Hsaco, "hsaco"))
    return E;
  std::vector<std::string> Args = hipArgs(Arch, Opts);
  Args.push_back("-c");
  clang::EmitObjAction Action;
  if (llvm::Error E =
          runClang(Args, Opts.InputPath + "." + Arch + ".hip", Source, Action,
                   Opts.Verbose, std::string(Object.Path)))
    return E;
  if (llvm::Error E = runTool(
          {QDC_LLD_EXECUTABLE, "-m", "elf64_amdgpu", "--no-undefined",
           "-shared", "-o", std::string(Hsaco.Path), std::string(Object.Path)},
          Opts.Verbose))
    return E;
  return readBack(Hsaco, "the HSACO for " + Arch);
}

llvm::Expected<std::string>
qdc::compileDeviceToLLVM(const std::string &Source, const std::string &Arch,
                         const CompileOptions &Opts) {
  TempFile Out;
  if (llvm::Error E = createTemp(Out, "ll"))
    return E;
  bool Amd = llvm::StringRef(Arch).starts_with("gfx");
  std::vector<std::string> Args =
      Amd ? hipArgs(Arch, Opts) : cudaArgs(Arch, Opts);
  Args.insert(Args.end(), {"-S", "-emit-llvm"});
  clang::EmitLLVMAction Action;
  if (llvm::Error E =
          runClang(Args, Opts.InputPath + "." + Arch + (Amd ? ".hip" : ".cu"),
                   Source, Action, Opts.Verbose, std::string(Out.Path)))
    return E;
  return readBack(Out, "the LLVM IR for " + Arch);
}

llvm::Error qdc::compileHostObject(const std::string &Source,
                                   const std::string &OutputPath,
                                   const std::string &PublicPrefix,
                                   const CompileOptions &Opts) {
  std::vector<std::string> Args = commonArgs(Opts);
  Args.insert(Args.end(), {"-x", "c++", "-c", "-fPIC"});
  llvm::LLVMContext Context;
  clang::EmitLLVMOnlyAction Action(&Context);
  if (llvm::Error E = runClang(Args, Opts.InputPath + ".host.cpp", Source,
                               Action, Opts.Verbose))
    return E;
  std::unique_ptr<llvm::Module> Mod = Action.takeModule();
  if (!Mod)
    return makeError("no code for " + Opts.InputPath);

  // Strong definitions outside the generated namespace become local;
  // inline functions and templates (linkonce/weak) keep their linkage.
  llvm::internalizeModule(*Mod, [&](const llvm::GlobalValue &GV) {
    return GV.getName().starts_with(PublicPrefix) || GV.hasLinkOnceLinkage() ||
           GV.hasWeakLinkage() || GV.hasCommonLinkage();
  });

  std::string Error;
  const llvm::Target *Target =
      llvm::TargetRegistry::lookupTarget(Mod->getTargetTriple(), Error);
  if (!Target)
    return makeError("no code generator for " + Mod->getTargetTriple() + ": " +
                     Error);
  llvm::TargetOptions TO;
  std::unique_ptr<llvm::TargetMachine> TM(Target->createTargetMachine(
      Mod->getTargetTriple(), "x86-64", "", TO, llvm::Reloc::PIC_, std::nullopt,
      Opts.OptLevel == 0 ? llvm::CodeGenOptLevel::None
                         : llvm::CodeGenOptLevel::Aggressive));
  Mod->setDataLayout(TM->createDataLayout());
  std::error_code EC;
  llvm::raw_fd_ostream OS(OutputPath, EC);
  if (EC)
    return makeError("cannot write " + OutputPath + ": " + EC.message());
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return makeError("cannot emit an object for " + Mod->getTargetTriple());
  PM.run(*Mod);
  return llvm::Error::success();
}
