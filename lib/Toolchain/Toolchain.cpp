//===- Toolchain.cpp - Where the tools are and how to call Clang ----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lookup order for each tool, first found wins:
//
// - Clang's driver path and resource directory: beside the running qdc
//   (`<prefix>/lib/clang/<major>`, for a prefix that bundles them), else
//   beside the Clang library qdc runs on (`<libdir>/clang/<major>`);
// - ptxas and libdevice: $CUDA_PATH when set (and only there), else
//   /usr/local/cuda, else the toolkit of the ptxas on PATH; fatbinary
//   beside that ptxas;
// - ld.lld: beside qdc, beside the Clang library (`<libdir>/../bin`), then
//   `ld.lld-<major>` and `ld.lld` on PATH;
// - the ROCm bitcode: $ROCM_PATH/amdgcn/bitcode when set, else the ROCm and
//   Debian locations.
//
//===----------------------------------------------------------------------===//

#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/ReusedFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdlib>
#include <link.h>
#include <mutex>

using namespace qdc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// A, B, C and D joined by the path separator; empty parts are left out.
static std::string join(llvm::StringRef A, llvm::StringRef B,
                        llvm::StringRef C = {}, llvm::StringRef D = {}) {
  llvm::SmallString<256> P(A);
  for (llvm::StringRef Part : {B, C, D})
    if (!Part.empty())
      path::append(P, Part);
  return std::string(P);
}

static std::string getEnv(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? V : "";
}

/// The folder of the loaded shared library whose file name starts with
/// Stem, as the dynamic loader found it, or empty.
static std::string findLoadedLibraryDir(llvm::StringRef Stem) {
  struct Search {
    llvm::StringRef Stem;
    std::string Dir;
  } S{Stem, {}};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) {
        auto *S = static_cast<Search *>(Data);
        llvm::StringRef Name = Info->dlpi_name ? Info->dlpi_name : "";
        if (!path::filename(Name).starts_with(S->Stem))
          return 0;
        S->Dir = path::parent_path(Name).str();
        return 1;
      },
      &S);
  return S.Dir;
}

/// The resource directory a Clang driver at `<Prefix>/bin/clang` uses.
static std::string getResourceDir(llvm::StringRef Prefix) {
  return join(Prefix, "lib", "clang", std::to_string(LLVM_VERSION_MAJOR));
}

/// The first of Names found in Dirs (in order), then on PATH when
/// SearchPath is set, or empty.
static std::string findProgram(llvm::ArrayRef<std::string> Names,
                               llvm::ArrayRef<std::string> Dirs,
                               bool SearchPath) {
  for (const std::string &Dir : Dirs) {
    if (Dir.empty())
      continue;
    for (const std::string &N : Names)
      if (llvm::ErrorOr<std::string> P = llvm::sys::findProgramByName(N, {Dir}))
        return *P;
  }
  if (SearchPath)
    for (const std::string &N : Names)
      if (llvm::ErrorOr<std::string> P = llvm::sys::findProgramByName(N))
        return *P;
  return {};
}

Toolchain::Toolchain(const char *Argv0, ToolchainOptions O)
    : Opts(std::move(O)), PtxasHelp(std::make_shared<PtxasQuery>()) {
  static int Anchor;
  std::string Exe = fs::getMainExecutable(Argv0, &Anchor);
  std::string BinDir = path::parent_path(Exe).str();
  std::string Prefix = path::parent_path(BinDir).str();
  PreludeDir = join(Prefix, "include");

  // The Clang qdc runs on lives in `<ClangPrefix>/lib`.
  std::string ClangLibDir = findLoadedLibraryDir("libclang-cpp");
  std::string ClangPrefix =
      ClangLibDir.empty() ? "" : path::parent_path(ClangLibDir).str();
  if (fs::is_directory(getResourceDir(Prefix)) || ClangPrefix.empty())
    ClangDriver = join(Prefix, "bin", "clang");
  else
    ClangDriver = join(ClangPrefix, "bin", "clang");

  std::string Major = std::to_string(LLVM_VERSION_MAJOR);
  Lld = findProgram(
      {"ld.lld"}, {BinDir, ClangPrefix.empty() ? "" : join(ClangPrefix, "bin")},
      false);
  if (Lld.empty())
    Lld = findProgram({"ld.lld-" + Major, "ld.lld"}, {}, true);

  std::string CudaPath = getEnv("CUDA_PATH");
  std::string CudaRoot = CudaPath.empty() ? "/usr/local/cuda" : CudaPath;
  Ptxas = findProgram({"ptxas"}, {join(CudaRoot, "bin")}, CudaPath.empty());
  if (!Ptxas.empty() && !fs::is_directory(CudaRoot))
    CudaRoot = path::parent_path(path::parent_path(Ptxas)).str();
  if (!Ptxas.empty()) {
    Fatbinary =
        findProgram({"fatbinary"}, {path::parent_path(Ptxas).str()}, false);
  }
  std::string Bitcode = join(CudaRoot, "nvvm", "libdevice", "libdevice.10.bc");
  if (fs::exists(Bitcode))
    Libdevice = Bitcode;

  std::vector<std::string> RocmDirs;
  if (std::string Rocm = getEnv("ROCM_PATH"); !Rocm.empty())
    RocmDirs = {join(Rocm, "amdgcn", "bitcode")};
  else
    RocmDirs = {"/opt/rocm/amdgcn/bitcode",
                "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                "/usr/lib/aarch64-linux-gnu/amdgcn/bitcode"};
  for (const std::string &Dir : RocmDirs)
    if (fs::exists(join(Dir, "ocml.bc"))) {
      RocmBitcodeDir = Dir;
      break;
    }
}

std::string Toolchain::getHostCPU() const {
  llvm::Triple T(llvm::sys::getDefaultTargetTriple());
  return T.getArch() == llvm::Triple::x86_64 ? "x86-64" : "generic";
}

void Toolchain::appendPreprocessorArgs(std::vector<std::string> &Args) const {
  // A folder holding qd/qd.h is qdc's own headers (a build's CMake passes
  // the runtime's include folder with the target's): qdc reads them from
  // its prelude folder, as system headers, and never through -I.
  auto IsQdHeaders = [](const std::string &Dir) {
    return fs::exists(join(Dir, "qd", "qd.h"));
  };
  for (const std::string &Dir : Opts.IncludeDirs)
    if (!IsQdHeaders(Dir))
      Args.push_back("-I" + Dir);
  for (const std::string &Dir : Opts.SystemIncludeDirs)
    if (!IsQdHeaders(Dir))
      Args.insert(Args.end(), {"-isystem", Dir});
  for (const std::string &Def : Opts.Defines)
    Args.push_back("-D" + Def);
  for (const std::string &Name : Opts.Undefines)
    Args.push_back("-U" + Name);
  for (const std::string &File : Opts.ForcedIncludes)
    Args.insert(Args.end(), {"-include", File});
  // --debug checks asserts even where NDEBUG is defined (DESIGN 1.2).
  if (Opts.CheckIndices)
    Args.push_back("-UNDEBUG");
}

bool qdc::isQdcWarningOption(llvm::StringRef W) {
  if (!W.consume_front("error=") && !W.consume_front("no-error="))
    W.consume_front("no-");
  return W == "stream-race";
}

unsigned Toolchain::getThreads() const {
  if (Opts.Threads)
    return Opts.Threads;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

std::vector<std::string> Toolchain::getParseArgs(llvm::StringRef Input,
                                                 bool Color) const {
  std::vector<std::string> Args = {ClangDriver, "-fsyntax-only", "-x", "c++",
                                   "-std=" + Opts.Std};
  Args.push_back(Color ? "-fcolor-diagnostics" : "-fno-color-diagnostics");
  Args.insert(Args.end(),
              {"-isystem", PreludeDir, "-include", "qd/qd.h", "-D__QDC__=1"});
  appendPreprocessorArgs(Args);
  appendWarningArgs(Args);
  if (Opts.FastMath)
    Args.push_back("-ffast-math"); // __FAST_MATH__, as in the compiles
  Args.push_back(Input.str());
  return Args;
}

void Toolchain::appendWarningArgs(std::vector<std::string> &Args) const {
  // qdc runs Clang on a deep stack (runDriver): Clang's warning that its
  // usual 8 MiB run low would be wrong.
  Args.push_back("-Wno-stack-exhausted");
  if (Opts.WarningsAsErrors)
    Args.push_back("-Werror");
  if (Opts.IgnoreWarnings)
    Args.push_back("-w");
  for (const std::string &W : Opts.Warnings)
    if (!isQdcWarningOption(W))
      Args.push_back("-W" + W);
}

std::vector<std::string> Toolchain::getCompileArgs() const {
  std::vector<std::string> Args = {ClangDriver, "-std=" + Opts.Std,
                                   "-O" + std::to_string(Opts.OptLevel),
                                   // A system folder: its functions keep
                                   // their attributes (ImplicitHostDevice).
                                   "-isystem", PreludeDir};
  appendPreprocessorArgs(Args);
  // The user's, as in the parse: what is printed is chosen as it is
  // printed (WarningLog.h). Whether a declaration is used, and what it
  // shadows, are questions about the whole .qd as written, which only the
  // parse sees: a device compile has none of the host code, a kernel's
  // locals are declared again in each task (used in some), and its
  // parameters become locals.
  appendWarningArgs(Args);
  // As asked; otherwise clang's own choice (colour on a terminal).
  if (Opts.Color >= 0)
    Args.push_back(Opts.Color ? "-fcolor-diagnostics"
                              : "-fno-color-diagnostics");
  Args.insert(Args.end(),
              {"-Wno-shadow-all", "-Wno-unused-variable",
               "-Wno-unused-const-variable", "-Wno-unused-but-set-variable",
               "-Wno-unused-parameter", "-Wno-unused-function",
               "-Wno-unused-member-function", "-Wno-unused-template",
               "-Wno-unused-local-typedef", "-Wno-unused-private-field",
               "-Wno-unneeded-internal-declaration"});
  Args.push_back("-D__QDC__=1");
  if (Opts.CheckIndices)
    Args.push_back("-DQD_DEBUG=1");
  if (Opts.DebugInfo)
    Args.push_back("-gline-tables-only");
  if (Opts.FastMath)
    Args.push_back("-ffast-math");
  return Args;
}

std::vector<std::string> Toolchain::getHostArgs() const {
  std::vector<std::string> Args = getCompileArgs();
  Args.insert(Args.end(), {"-x", "c++", "-c", "-fPIC",
                           // A failed assert in CPU task code leaves the
                           // task (qd/detail/kernel.h), not the process.
                           "-D__assert_fail=qd_assert_fail_cpu_"});
  return Args;
}

static std::string hashText(llvm::StringRef Text) {
  return llvm::utohexstr(llvm::xxh3_64bits(Text), /*LowerCase=*/true);
}

/// A tool's answer kept at Path: the tool's stamp, the hash of the text,
/// then the text. Read back only whole and for the same stamp.
static std::optional<std::string> readAnswer(llvm::StringRef Path,
                                             llvm::StringRef Stamp) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  auto [KeptStamp, Rest] = (*Buffer)->getBuffer().split('\n');
  auto [Hash, Text] = Rest.split('\n');
  if (KeptStamp != Stamp || Text.empty() || Hash != hashText(Text))
    return std::nullopt;
  return Text.str();
}

/// Keeps Text at Path for readAnswer, written whole or not at all; a folder
/// that cannot be written keeps nothing.
static void keepAnswer(llvm::StringRef Path, llvm::StringRef Stamp,
                       llvm::StringRef Text) {
  if (fs::create_directories(path::parent_path(Path)))
    return;
  llvm::consumeError(llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << Stamp << '\n' << hashText(Text) << '\n' << Text;
    return llvm::Error::success();
  }));
}

/// One run of `ptxas --help`, its output going to a temporary file: started
/// once, waited for once. A run nobody asked about is waited for, and its
/// file removed, when the last toolchain holding it goes. With a folder of
/// answers, a ptxas of the same stamp (size, time, path) is not run again:
/// its answer is read from there (about 7 ms of a process less per
/// compile), and a run's answer is kept there.
struct Toolchain::PtxasQuery {
  std::mutex Lock;
  std::optional<llvm::sys::ProcessInfo> Run;
  std::string LogPath;
  std::optional<std::string> Text;
  /// Where this ptxas's answer is kept, and its stamp; empty: nowhere.
  std::string AnswerPath, Stamp;

  /// Starts the run, unless the answer is kept in AnswersDir; Text is set
  /// when it is, or when the run could not start.
  void start(llvm::StringRef Ptxas, llvm::StringRef AnswersDir) {
    if (Run || Text)
      return;
    if (!Ptxas.empty() && !AnswersDir.empty()) {
      Stamp = getFileStamp(Ptxas);
      if (!Stamp.empty()) {
        AnswerPath = join(AnswersDir, "ptxas-help-" + hashText(Stamp) + ".txt");
        if ((Text = readAnswer(AnswerPath, Stamp)))
          return;
      }
    }
    llvm::SmallString<128> Log;
    if (Ptxas.empty() ||
        fs::createTemporaryFile("qdc-ptxas-help", "txt", Log)) {
      Text.emplace();
      return;
    }
    LogPath = std::string(Log);
    llvm::sys::RemoveFileOnSignal(LogPath);
    std::optional<llvm::StringRef> Redirects[] = {
        std::nullopt, llvm::StringRef(LogPath), llvm::StringRef(LogPath)};
    llvm::StringRef Argv[] = {Ptxas, "--help"};
    bool Failed = false;
    llvm::sys::ProcessInfo P = llvm::sys::ExecuteNoWait(
        Ptxas, Argv, std::nullopt, Redirects, 0, nullptr, &Failed);
    if (Failed || P.Pid == llvm::sys::ProcessInfo::InvalidPid) {
      fs::remove(LogPath);
      llvm::sys::DontRemoveFileOnSignal(LogPath);
      Text.emplace();
      return;
    }
    Run = P;
  }
  /// Waits for the run and reads what it printed (empty when it failed).
  void finish() {
    if (!Run)
      return;
    llvm::sys::ProcessInfo Done = llvm::sys::Wait(*Run, std::nullopt);
    Run.reset();
    auto Buffer = llvm::MemoryBuffer::getFile(LogPath);
    fs::remove(LogPath);
    llvm::sys::DontRemoveFileOnSignal(LogPath);
    Text.emplace();
    if (Done.ReturnCode == 0 && Buffer)
      *Text = (*Buffer)->getBuffer().str();
    if (!AnswerPath.empty() && !Text->empty())
      keepAnswer(AnswerPath, Stamp, *Text);
  }
  ~PtxasQuery() { finish(); }
};

void Toolchain::startPtxasHelp() const {
  std::lock_guard<std::mutex> Guard(PtxasHelp->Lock);
  PtxasHelp->start(Ptxas, Opts.ToolAnswersDir);
}

const std::string &Toolchain::getPtxasHelp() const {
  std::lock_guard<std::mutex> Guard(PtxasHelp->Lock);
  PtxasHelp->start(Ptxas, Opts.ToolAnswersDir);
  PtxasHelp->finish();
  return *PtxasHelp->Text;
}

bool Toolchain::ptxasAccepts(llvm::StringRef Option) const {
  return llvm::StringRef(getPtxasHelp()).contains((Option + " ").str());
}

std::vector<std::string> Toolchain::getPtxasArchs() const {
  llvm::StringRef Help = getPtxasHelp();
  // "--gpu-name ... Allowed values for this option:  'compute_100', ...,
  // 'sm_90a'.": the quoted NVIDIA target names of the first such list.
  size_t At = Help.find("--gpu-name");
  if (At == llvm::StringRef::npos)
    return {};
  Help = Help.drop_front(At);
  size_t Begin = Help.find("Allowed values for this option:");
  size_t End = Help.find("Default value:");
  if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos ||
      End < Begin)
    return {};
  llvm::SmallVector<llvm::StringRef, 64> Items;
  Help.slice(Begin, End).split(Items, '\'');
  std::vector<std::string> Archs;
  for (llvm::StringRef Item : Items)
    if (OffloadTarget::isSpelledAs(Vendor::NVIDIA, Item))
      Archs.push_back(Item.str());
  return Archs;
}

std::vector<OffloadTarget> qdc::detectNativeTargets(std::string &Why) {
  std::string Error;
  auto Lib =
      llvm::sys::DynamicLibrary::getPermanentLibrary("libcuda.so.1", &Error);
  if (!Lib.isValid()) {
    Why = "the CUDA driver (libcuda.so.1) is not installed";
    return {};
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using AttrFn = int (*)(int *, int, int);
  auto Init = reinterpret_cast<InitFn>(Lib.getAddressOfSymbol("cuInit"));
  auto Count =
      reinterpret_cast<CountFn>(Lib.getAddressOfSymbol("cuDeviceGetCount"));
  auto Get = reinterpret_cast<GetFn>(Lib.getAddressOfSymbol("cuDeviceGet"));
  auto Attr =
      reinterpret_cast<AttrFn>(Lib.getAddressOfSymbol("cuDeviceGetAttribute"));
  int N = 0;
  if (!Init || !Count || !Get || !Attr || Init(0) != 0 || Count(&N) != 0 ||
      N == 0) {
    Why = "the CUDA driver reports no GPU";
    return {};
  }
  std::vector<OffloadTarget> Out;
  for (int I = 0; I < N; ++I) {
    int Dev = 0, Major = 0, Minor = 0;
    // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR.
    if (Get(&Dev, I) != 0 || Attr(&Major, 75, Dev) != 0 ||
        Attr(&Minor, 76, Dev) != 0)
      continue;
    OffloadTarget T = OffloadTarget::getNvidia(Major, Minor);
    if (std::find(Out.begin(), Out.end(), T) == Out.end())
      Out.push_back(T);
  }
  if (Out.empty())
    Why = "the CUDA driver did not say what its GPUs are";
  return Out;
}
