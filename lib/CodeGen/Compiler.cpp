//===- Compiler.cpp - In-process Clang/LLVM compilation -------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each compile takes its command line from the toolchain,
// turns it into a Clang invocation (ClangInvocation.h), maps the generated
// source into the file system as a file beside the .qd, and runs a
// code-generation action. Clang's actions write files, so their output goes
// to a temporary file that is read back and removed; the host object is
// generated in memory.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"
#include "DeviceLinkage.h"
#include "HostParts.h"
#include "ImageTable.h"
#include "ImplicitHostDevice.h"
#include "KernelMarks.h"
#include "LLVMWorkarounds.h"
#include "LatencyVersions.h"
#include "Names.h"
#include "OptimizationLimit.h"
#include "StridedAddresses.h"
#include "TargetHooks.h"

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/Support/Error.h"
#include "qdc/Toolchain/ClangInvocation.h"
#include "qdc/Toolchain/PrecompiledHeader.h"
#include "qdc/Toolchain/WarningLog.h"

#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

using namespace qdc;
using namespace qdc::codegen;

static void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    applyLLVMWorkarounds();
  });
}

namespace {
/// A temporary file, removed when this goes out of scope.
class TempFile {
public:
  TempFile() = default;
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  ~TempFile() {
    if (Path.empty())
      return;
    llvm::sys::fs::remove(Path);
    llvm::sys::DontRemoveFileOnSignal(Path);
  }

  /// Creates a fresh file `qdc-*.<Ext>` in the temporary folder ($TMPDIR,
  /// else /tmp), removed also when qdc is interrupted or crashes.
  llvm::Error create(const char *Ext) {
    if (std::error_code EC =
            llvm::sys::fs::createTemporaryFile("qdc", Ext, Path))
      return makeError("cannot create a temporary file: " + EC.message());
    llvm::sys::RemoveFileOnSignal(Path);
    return llvm::Error::success();
  }
  /// The contents a tool wrote; What names them in the error.
  llvm::Expected<std::string> read(const llvm::Twine &What) const {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer)
      return makeError("cannot read " + What + ": " +
                       Buffer.getError().message());
    return (*Buffer)->getBuffer().str();
  }
  std::string path() const { return std::string(Path); }

private:
  llvm::SmallString<128> Path;
};
} // namespace

/// The file name Clang sees a generated source under: beside the .qd.
static std::string getSourceName(llvm::StringRef InputPath,
                                 const DeviceHooks &T,
                                 const OffloadTarget &Target) {
  return (InputPath + "." + Target.getName() + T.getSourceExtension()).str();
}

namespace {
/// What one compile of generated code needs besides its command line.
struct CompileJob {
  const ToolchainOptions &Options;
  /// The warnings printed about the .qd so far.
  WarningLog &Warnings;
  /// What it compiles for, as clang's summary line names it: "sm_80",
  /// "host".
  llvm::StringRef Target;
  /// A device image: only its kernels stay external (DeviceLinkage.h).
  bool Device = true;
  /// Nothing is printed: a probe whose failure is the answer.
  bool Quiet = false;
  /// What is printed is recorded here instead, for later.
  DeferredWarnings *Deferred = nullptr;
  /// A precompiled header to start from (-include-pch), if any.
  std::string Pch;
  /// Told of every file the compile reads, if any.
  std::shared_ptr<clang::DependencyCollector> Collector;
  /// Where the source comes from when it comes after the compile began
  /// (the Source argument is then unused); the action must be wrapped by
  /// LateSourceAction.
  LateSource *Late = nullptr;
};

/// Runs its action once the late source is in the main file's buffer, and
/// not at all when none came (the compile then ends unparsed).
class LateSourceAction : public clang::WrapperFrontendAction {
public:
  LateSourceAction(std::unique_ptr<clang::FrontendAction> Inner,
                   LateSource &Late)
      : WrapperFrontendAction(std::move(Inner)), Late(Late) {}

protected:
  void ExecuteAction() override {
    if (Late.fill())
      WrapperFrontendAction::ExecuteAction();
  }

private:
  LateSource &Late;
};
} // namespace

std::unique_ptr<llvm::MemoryBuffer>
LateSource::makeBuffer(llvm::StringRef Name) {
  std::unique_ptr<llvm::WritableMemoryBuffer> Buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(Capacity + 1, Name);
  Data = Buffer->getBufferStart();
  std::memset(Data, ' ', Capacity);
  Data[Capacity] = '\n';
  return Buffer;
}

void LateSource::supply(std::string Source) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Text = std::move(Source);
    Supplied = true;
  }
  Ready.notify_all();
}

void LateSource::abandon() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Supplied = true;
  }
  Ready.notify_all();
}

bool LateSource::fill() {
  std::unique_lock<std::mutex> Lock(Mutex);
  Ready.wait(Lock, [&] { return Supplied; });
  if (!Data || Text.empty() || Text.size() > Capacity)
    return false;
  std::memcpy(Data, Text.data(), Text.size());
  Taken = true;
  return true;
}

/// Prints clang's summary of what a compile for one target printed, as
/// clang does for each side of a CUDA compile.
static void printSummary(const clang::DiagnosticConsumer &Client,
                         llvm::StringRef Target) {
  std::string Counts =
      formatDiagnosticCounts(Client.getNumWarnings(), Client.getNumErrors());
  if (!Counts.empty())
    llvm::errs() << Counts << " when compiling for " << Target << ".\n";
}

/// qdc's passes at the start of LLVM's pipeline: in a device image, its
/// kernels marked by calling convention before any pass (KernelMarks.h) and
/// its functions other than kernels made local (DeviceLinkage.h); then the
/// optimization limit (OptimizationLimit.h). In the middle, before the loop
/// unroller, a device image's strided addresses become pointers stepped by
/// their stride (StridedAddresses.h).
static void addQdcPasses(clang::CodeGenOptions &Opts, bool Device) {
  Opts.PassBuilderCallbacks.push_back([Device](llvm::PassBuilder &PB) {
    if (Device) {
      addKernelMarks(PB);
      addStridedAddresses(PB);
    }
    PB.registerPipelineStartEPCallback(
        [Device](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
          if (Device) {
            addDeviceInternalization(MPM);
            addLatencyVersions(MPM);
          }
          addOptimizationLimit(MPM);
        });
  });
}

/// Runs Action on Source, seen by Clang as the file InputName, with
/// Args; OutputPath, when given, is where the action writes.
static llvm::Error
runClang(std::vector<std::string> Args, const std::string &InputName,
         const std::string &Source, clang::FrontendAction &Action,
         const CompileJob &Job, const std::string &OutputPath = {}) {
  initializeTargets();
  const ToolchainOptions &TO = Job.Options;
  Args.push_back(InputName);
  if (TO.Verbose)
    echoCommand("compiling", Args);
  if (TO.PrintCommandsOnly) {
    if (!OutputPath.empty())
      Args.insert(Args.end(), {"-o", OutputPath});
    printQuotedCommand(Args);
    return llvm::Error::success();
  }
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> Diags =
      createStderrDiagnostics();
  // The clang driver's own warnings are about the command qdc made (the
  // CUDA version), not the user's code; -Werror must not stop on them.
  Diags->setIgnoreAllWarnings(true);
  std::shared_ptr<clang::CompilerInvocation> Inv =
      createCompilerInvocation(Args, *Diags);
  if (!Inv)
    return makeError("cannot set up the compilation of " + InputName);
  Inv->getPreprocessorOpts().addRemappedFile(
      InputName,
      (Job.Late ? Job.Late->makeBuffer(InputName)
                : llvm::MemoryBuffer::getMemBufferCopy(Source, InputName))
          .release());
  if (!OutputPath.empty())
    Inv->getFrontendOpts().OutputFile = OutputPath;
  if (!Job.Pch.empty())
    Inv->getPreprocessorOpts().ImplicitPCHInclude = Job.Pch;
  addQdcPasses(Inv->getCodeGenOpts(), Job.Device);
  // A diagnostic here is at a line of the user's source (#line), but the
  // text beside it is generated: no source lines are quoted.
  Inv->getDiagnosticOpts().ShowCarets = false;
  clang::CompilerInstance CI;
  CI.setInvocation(std::move(Inv));
  // The warnings run as the user asked; those about qdc's generated code,
  // and those the parse (or an earlier compile) printed, are not printed.
  if (Job.Quiet)
    CI.createDiagnostics(new clang::DiagnosticConsumer(), // counts only
                         /*ShouldOwnClient=*/true);
  else if (Job.Deferred)
    CI.createDiagnostics(Job.Deferred
                             ->createRecorder(CI.getDiagnosticOpts(),
                                              WarningFilter::UserCodeOnce,
                                              InputName)
                             .release(),
                         /*ShouldOwnClient=*/true);
  else
    CI.createDiagnostics(
        createWarningLogPrinter(CI.getDiagnosticOpts(), Job.Warnings,
                                WarningFilter::UserCodeOnce, InputName)
            .release(),
        /*ShouldOwnClient=*/true);
  if (Job.Collector)
    CI.addDependencyCollector(Job.Collector);
  bool OK = CI.ExecuteAction(Action);
  if (!Job.Quiet && !Job.Deferred)
    printSummary(*CI.getDiagnostics().getClient(), Job.Target);
  if (!OK) {
    // InputName is <input>.<target>.<extension>; the user never sees that
    // file, only the errors above at their own lines.
    llvm::StringRef Stem = llvm::sys::path::stem(InputName);
    return makeError("the code generated from " + llvm::sys::path::stem(Stem) +
                     " for " + llvm::sys::path::extension(Stem).drop_front() +
                     " did not compile");
  }
  return llvm::Error::success();
}

/// Runs a program; its output goes into the error when it fails.
static llvm::Error runProgram(llvm::ArrayRef<std::string> Args,
                              const ToolchainOptions &TO,
                              std::string *Printed = nullptr) {
  if (Args.empty() || Args[0].empty())
    return makeError("a tool qdc needs was not found");
  TempFile Log;
  if (llvm::Error E = Log.create("log"))
    return E;
  if (TO.Verbose)
    echoCommand("running", Args);
  if (TO.PrintCommandsOnly) {
    printQuotedCommand(Args);
    return llvm::Error::success();
  }
  std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
  std::string LogPath = Log.path();
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, LogPath, LogPath};
  std::string ErrMsg;
  int RC = llvm::sys::ExecuteAndWait(Args[0], Argv, std::nullopt, Redirects, 0,
                                     0, &ErrMsg);
  if (RC == 0) {
    if (Printed) {
      llvm::Expected<std::string> Text = Log.read("the log");
      if (Text)
        *Printed = std::move(*Text);
      else
        llvm::consumeError(Text.takeError());
    }
    return llvm::Error::success();
  }
  llvm::Expected<std::string> Text = Log.read("the log");
  std::string Why = Text ? llvm::StringRef(*Text).trim().str() : ErrMsg;
  if (!Text)
    llvm::consumeError(Text.takeError());
  return makeError(llvm::sys::path::filename(Args[0]) + " failed: " + Why);
}

namespace {
/// Every file a compile reads, system headers too.
class AllDependencies : public clang::DependencyCollector {
  bool needSystemDependencies() override { return true; }
};
} // namespace

/// Builds the precompiled header of Text (the file Header) into Out with
/// Args, quietly, for Job's target; Read gets every file it read. A
/// getPrecompiledHeader builder.
static bool buildPch(const std::vector<std::string> &Args,
                     const std::string &Header, const std::string &Text,
                     const std::string &Out, std::vector<std::string> &Read,
                     CompileJob Job) {
  clang::GeneratePCHAction Action;
  Job.Quiet = true;
  auto Collector = std::make_shared<AllDependencies>();
  Job.Collector = Collector;
  llvm::Error E = runClang(Args, Header, Text, Action, Job, Out);
  Read = Collector->getDependencies();
  bool OK = !E;
  llvm::consumeError(std::move(E));
  return OK;
}

llvm::Expected<std::string>
Compiler::compileDevice(const std::string &Source, const DeviceHooks &T,
                        const OffloadTarget &Target, DeviceOutput Output,
                        const char *Ext, const llvm::Twine &What) const {
  std::vector<std::string> Args = T.getDeviceArgs(Tools, Target);
  switch (Output) {
  case DeviceOutput::Assembly:
    Args.push_back("-S");
    break;
  case DeviceOutput::LLVM:
    Args.insert(Args.end(), {"-S", "-emit-llvm"});
    break;
  case DeviceOutput::Object:
    Args.push_back("-c");
    break;
  }
  auto MakeAction = [Output]() -> std::unique_ptr<clang::FrontendAction> {
    std::unique_ptr<clang::FrontendAction> Action;
    if (Output == DeviceOutput::Assembly)
      Action = std::make_unique<clang::EmitAssemblyAction>();
    else if (Output == DeviceOutput::LLVM)
      Action = std::make_unique<clang::EmitLLVMAction>();
    else
      Action = std::make_unique<clang::EmitObjAction>();
    return withImplicitHostDevice(std::move(Action));
  };
  TempFile Out;
  if (llvm::Error E = Out.create(Ext))
    return std::move(E);
  if (llvm::Error E =
          runDeviceClang(Args, Source, T, Target, MakeAction, Out.path()))
    return std::move(E);
  return Out.read(What);
}

std::string Compiler::getDevicePch(const DeviceHooks &T,
                                   const OffloadTarget &Target) const {
  const ToolchainOptions &TO = Tools.getOptions();
  if (TO.PchDir.empty() || TO.PrintCommandsOnly || TO.Verbose)
    return "";
  std::vector<std::string> Args = T.getDeviceArgs(Tools, Target);
  // As the launcher's (getLauncherPch): the prelude's own instantiations
  // made once, in the header. A one-kernel device check 4.3 -> 2.9 ms of
  // Clang's front end (performance.md, "Compile time").
  Args.push_back("-fpch-instantiate-templates");
  std::string Text = ("#include <" + T.getPrelude() + ">\n").str();
  std::lock_guard<std::mutex> Lock(DevicePchMutex);
  auto [It, New] = DevicePchs.try_emplace(Target.getName());
  if (New)
    It->second = getPrecompiledHeader(
        TO.PchDir, "device-" + Target.getName(), Args, Text,
        [&](const std::vector<std::string> &Args, const std::string &Header,
            const std::string &Out, std::vector<std::string> &Read) {
          return buildPch(Args, Header, Text, Out, Read,
                          {TO, Warnings, Target.getName(), /*Device=*/true});
        },
        nullptr, T.getLanguage());
  return It->second;
}

llvm::Error Compiler::runDeviceClang(
    const std::vector<std::string> &Args, const std::string &Source,
    const DeviceHooks &T, const OffloadTarget &Target,
    llvm::function_ref<std::unique_ptr<clang::FrontendAction>()> MakeAction,
    const std::string &OutputPath) const {
  std::string InputName = getSourceName(InputPath, T, Target);
  CompileJob Job{Tools.getOptions(), Warnings, Target.getName()};
  std::string Pch = getDevicePch(T, Target);
  if (!Pch.empty()) {
    DeferredWarnings Held;
    CompileJob WithPch = Job;
    WithPch.Pch = Pch;
    WithPch.Deferred = &Held;
    std::unique_ptr<clang::FrontendAction> Action = MakeAction();
    llvm::Error E =
        runClang(Args, InputName, Source, *Action, WithPch, OutputPath);
    if (!E) {
      auto [NumWarnings, NumErrors] = Held.replay(Warnings, llvm::errs());
      if (std::string Counts = formatDiagnosticCounts(NumWarnings, NumErrors);
          !Counts.empty())
        llvm::errs() << Counts << " when compiling for " << Target.getName()
                     << ".\n";
      return llvm::Error::success();
    }
    llvm::consumeError(std::move(E));
  }
  std::unique_ptr<clang::FrontendAction> Action = MakeAction();
  llvm::Error E = runClang(Args, InputName, Source, *Action, Job, OutputPath);
  // The header, not the code, failed: the next compile builds it again.
  if (!Pch.empty() && !E)
    discardPrecompiledHeader(Pch);
  return E;
}

llvm::Expected<std::string>
Compiler::runTool(const std::string &Input, const char *InExt,
                  const char *OutExt,
                  llvm::function_ref<std::vector<std::string>(llvm::StringRef,
                                                              llvm::StringRef)>
                      MakeArgs,
                  const llvm::Twine &What) const {
  return runTool(
      {{&Input, InExt}}, OutExt,
      [&](llvm::ArrayRef<std::string> In, llvm::StringRef Out) {
        return MakeArgs(In.front(), Out);
      },
      What);
}

llvm::Expected<std::string> Compiler::runTool(
    llvm::ArrayRef<std::pair<const std::string *, const char *>> Inputs,
    const char *OutExt,
    llvm::function_ref<std::vector<std::string>(llvm::ArrayRef<std::string>,
                                                llvm::StringRef)>
        MakeArgs,
    const llvm::Twine &What) const {
  ToolLog.clear();
  return runToolLogged(Inputs, OutExt, MakeArgs, What.str(), ToolLog);
}

llvm::Expected<std::vector<std::string>> Compiler::runToolEach(
    llvm::ArrayRef<ToolInputs> Jobs, const char *OutExt,
    llvm::function_ref<std::vector<std::string>(llvm::ArrayRef<std::string>,
                                                llvm::StringRef)>
        MakeArgs,
    const llvm::Twine &What) const {
  size_t N = Jobs.size();
  std::vector<std::optional<llvm::Expected<std::string>>> Outs(N);
  std::vector<std::string> Logs(N);
  std::string Name = What.str();
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I = Next++; I < N; I = Next++)
      Outs[I].emplace(runToolLogged(Jobs[I], OutExt, MakeArgs, Name, Logs[I]));
  };
  const ToolchainOptions &TO = Tools.getOptions();
  unsigned Threads = TO.Verbose || TO.PrintCommandsOnly
                         ? 1
                         : std::min<size_t>(Tools.getThreads(), N);
  {
    std::vector<std::thread> Workers;
    for (unsigned T = 1; T < Threads; ++T) {
      try {
        Workers.emplace_back(Work);
      } catch (const std::system_error &) {
        break; // no more threads: the ones there do the rest
      }
    }
    Work();
    for (std::thread &W : Workers)
      W.join();
  }
  ToolLog.clear();
  std::vector<std::string> Results;
  std::optional<llvm::Error> First;
  for (size_t I = 0; I < N; ++I) {
    ToolLog += Logs[I];
    if (!*Outs[I]) {
      if (!First)
        First = Outs[I]->takeError();
      else
        llvm::consumeError(Outs[I]->takeError());
      continue;
    }
    Results.push_back(std::move(**Outs[I]));
  }
  if (First)
    return std::move(*First);
  return Results;
}

llvm::Expected<std::string> Compiler::runToolLogged(
    llvm::ArrayRef<std::pair<const std::string *, const char *>> Inputs,
    const char *OutExt,
    llvm::function_ref<std::vector<std::string>(llvm::ArrayRef<std::string>,
                                                llvm::StringRef)>
        MakeArgs,
    const std::string &What, std::string &Log) const {
  std::vector<TempFile> In(Inputs.size());
  std::vector<std::string> InPaths;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (llvm::Error E = In[I].create(Inputs[I].second))
      return std::move(E);
    std::error_code EC;
    llvm::raw_fd_ostream OS(In[I].path(), EC);
    if (EC)
      return makeError("cannot write " + In[I].path() + ": " + EC.message());
    OS << *Inputs[I].first;
    InPaths.push_back(In[I].path());
  }
  TempFile Out;
  if (llvm::Error E = Out.create(OutExt))
    return std::move(E);
  if (llvm::Error E =
          runProgram(MakeArgs(InPaths, Out.path()), Tools.getOptions(), &Log))
    return std::move(E);
  return Out.read(What);
}

llvm::Error Compiler::checkDeviceSource(const std::string &Source,
                                        const DeviceHooks &T,
                                        const OffloadTarget &Target) const {
  std::vector<std::string> Args = T.getDeviceArgs(Tools, Target);
  Args.push_back("-fsyntax-only");
  return runDeviceClang(Args, Source, T, Target, [] {
    return withImplicitHostDevice(std::make_unique<clang::SyntaxOnlyAction>());
  });
}

bool Compiler::isLibraryName(llvm::StringRef Name) const {
  if (Tools.getOptions().PrintCommandsOnly)
    return false;
  // Whether `namespace Name {}` compiles after the launcher's headers,
  // with the user's options.
  auto Compiles = [&](llvm::StringRef NS) {
    std::string Probe =
        "#include <qd/detail/launcher.h>\nnamespace " + NS.str() + " {}\n";
    clang::SyntaxOnlyAction Action;
    CompileJob Job{Tools.getOptions(), Warnings, "host",
                   /*Device=*/false, /*Quiet=*/true};
    Job.Pch = getLauncherPch();
    llvm::Error E = runClang(Tools.getHostArgs(), InputPath + ".probe.cpp",
                             Probe, Action, Job);
    bool OK = !E;
    llvm::consumeError(std::move(E));
    return OK;
  };
  // The same shape with names nothing declares: when that fails too, the
  // options are the cause, not the name.
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, "::");
  std::string Control;
  for (size_t I = 0; I < Parts.size(); ++I)
    Control += (I ? "::qdc_probe_" : "qdc_probe_") + std::to_string(I) + "_";
  return Compiles(Control) && !Compiles(Name);
}

HostIR::HostIR() = default;
HostIR::~HostIR() = default;

std::unique_ptr<HostIR> Compiler::compileHostIR(const std::string &Source,
                                                bool SyntaxOnly) const {
  return compileHostIR(Source, SyntaxOnly, /*Late=*/nullptr);
}

std::unique_ptr<HostIR> Compiler::compileHostIR(LateSource &Late,
                                                bool SyntaxOnly) const {
  return compileHostIR(std::string(), SyntaxOnly, &Late);
}

std::unique_ptr<HostIR> Compiler::compileHostIR(const std::string &Source,
                                                bool SyntaxOnly,
                                                LateSource *Late) const {
  std::string Pch = getLauncherPch();
  std::unique_ptr<HostIR> Host = compileHostIR(Source, SyntaxOnly, Pch, Late);
  if (Late && !Late->wasTaken())
    return nullptr;
  if (Pch.empty() || !Host->Failure)
    return Host;
  // A compile that fails with the precompiled header is run again without
  // it, so that what it reports is the plain compile's.
  Host = compileHostIR(Late ? Late->getText() : Source, SyntaxOnly, "",
                       /*Late=*/nullptr);
  // The header, not the code, failed: the next compile builds it again.
  if (!Host->Failure)
    discardPrecompiledHeader(Pch);
  return Host;
}

std::string Compiler::getLauncherPch() const {
  const ToolchainOptions &TO = Tools.getOptions();
  if (TO.PchDir.empty() || TO.PrintCommandsOnly || TO.Verbose)
    return "";
  static constexpr llvm::StringLiteral Text =
      "#include <qd/detail/launcher.h>\n";
  // The header's own pending instantiations are made once, when it is
  // built, not by every compile that starts from it: the host code's check
  // of a one-kernel file 285 M -> 73 M instructions. (Part of the key: a
  // header built without it is not taken for one built with it.)
  std::vector<std::string> HeaderArgs = Tools.getHostArgs();
  HeaderArgs.push_back("-fpch-instantiate-templates");
  std::lock_guard<std::mutex> Lock(PchMutex);
  if (!LauncherPch)
    LauncherPch = getPrecompiledHeader(
        TO.PchDir, "launcher", HeaderArgs, Text,
        [&](const std::vector<std::string> &Args, const std::string &Header,
            const std::string &Out, std::vector<std::string> &Read) {
          return buildPch(Args, Header, std::string(Text), Out, Read,
                          {TO, Warnings, "host", /*Device=*/false});
        });
  return *LauncherPch;
}

std::unique_ptr<HostIR> Compiler::compileHostIR(const std::string &Source,
                                                bool SyntaxOnly,
                                                const std::string &Pch,
                                                LateSource *Late) const {
  auto Host = std::make_unique<HostIR>();
  CompileJob Job{Tools.getOptions(), Warnings, "host", /*Device=*/false};
  Job.Deferred = &Host->Diagnostics;
  Job.Pch = Pch;
  Job.Late = Late;
  std::vector<std::string> Args = Tools.getHostArgs();
  std::unique_ptr<clang::FrontendAction> Action;
  clang::EmitLLVMOnlyAction *Emit = nullptr;
  if (SyntaxOnly) {
    Args.push_back("-fsyntax-only");
    Action = std::make_unique<clang::SyntaxOnlyAction>();
  } else {
    Host->Context = std::make_unique<llvm::LLVMContext>();
    auto EmitAction =
        std::make_unique<clang::EmitLLVMOnlyAction>(Host->Context.get());
    Emit = EmitAction.get();
    Action = std::move(EmitAction);
  }
  if (Late)
    Action = std::make_unique<LateSourceAction>(std::move(Action), *Late);
  if (llvm::Error E =
          runClang(Args, InputPath + ".host.cpp", Source, *Action, Job)) {
    Host->Failure = llvm::toString(std::move(E));
    return Host;
  }
  if (SyntaxOnly)
    return Host;
  Host->Module = Emit->takeModule();
  if (!Host->Module && !Tools.getOptions().PrintCommandsOnly)
    Host->Failure = "no code for " + InputPath;
  return Host;
}

llvm::Error Compiler::finishHostCompile(HostIR &Host) const {
  auto [NumWarnings, NumErrors] =
      Host.Diagnostics.replay(Warnings, llvm::errs());
  if (std::string Counts = formatDiagnosticCounts(NumWarnings, NumErrors);
      !Counts.empty())
    llvm::errs() << Counts << " when compiling for host.\n";
  if (Host.Failure)
    return makeError(*Host.Failure);
  return llvm::Error::success();
}

llvm::Expected<std::string>
Compiler::emitHostObject(HostIR &Host,
                         llvm::ArrayRef<const DeviceImage *> Images,
                         llvm::StringRef PublicPrefix) const {
  if (llvm::Error E = finishHostCompile(Host))
    return std::move(E);
  if (Tools.getOptions().PrintCommandsOnly)
    return std::string();
  llvm::Module &Mod = *Host.Module;
  if (llvm::Error E = defineImages(Mod, Images))
    return std::move(E);

  // Only the generated namespace is public. Every other function is the
  // module's own, inline functions and templates too: a module's copy of
  // one may differ from another's (built with --debug, -DNDEBUG,
  // -ffast-math, or referring to its own assertion record), and the linker
  // must not pick one for all. Variables that are inline or templates keep
  // their linkage: one object across modules (a function's static, a type's
  // vtable and type_info) is what C++ promises for them.
  llvm::internalizeModule(Mod, [&](const llvm::GlobalValue &GV) {
    if (GV.getName().starts_with(PublicPrefix))
      return true;
    if (llvm::isa<llvm::Function>(GV))
      return false;
    return GV.hasLinkOnceLinkage() || GV.hasWeakLinkage() ||
           GV.hasCommonLinkage();
  });

  std::string Error;
  const llvm::Target *Target =
      llvm::TargetRegistry::lookupTarget(Mod.getTargetTriple(), Error);
  if (!Target)
    return makeError("no code generator for " + Mod.getTargetTriple() + ": " +
                     Error);
  auto MakeTarget = [&] {
    return std::unique_ptr<llvm::TargetMachine>(Target->createTargetMachine(
        Mod.getTargetTriple(), Tools.getHostCPU(), "", llvm::TargetOptions(),
        llvm::Reloc::PIC_, std::nullopt,
        Tools.getOptions().OptLevel == 0 ? llvm::CodeGenOptLevel::None
                                         : llvm::CodeGenOptLevel::Aggressive));
  };
  // A large module is made in two parts side by side (HostParts.h), where
  // ld.lld joins them.
  if (!Tools.getLld().empty() && shouldEmitInParts(Mod))
    return emitInParts(
        Mod, Tools.getThreads(), MakeTarget,
        [&](const std::string &A, const std::string &B) {
          return runTool(
              {{&A, "o"}, {&B, "o"}}, "o",
              [&](llvm::ArrayRef<std::string> In, llvm::StringRef Out) {
                return std::vector<std::string>{Tools.getLld(), "-r", "-o",
                                                Out.str(), In[0], In[1]};
              },
              "the host object");
        });
  std::unique_ptr<llvm::TargetMachine> TM = MakeTarget();
  Mod.setDataLayout(TM->createDataLayout());
  llvm::SmallString<0> Object;
  llvm::raw_svector_ostream OS(Object);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return makeError("cannot emit an object for " + Mod.getTargetTriple());
  PM.run(Mod);
  return std::string(Object.str());
}
