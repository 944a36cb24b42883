//===- Driver.cpp - The qdc pipeline --------------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Options -> frontend (Clang AST -> KIR) -> pass pipeline ->
// verifier -> output. Problems with a source location are Clang-style
// diagnostics; problems without one (a missing file, a bad option) are
// `qdc: error: ...`. Any error means exit code 1 and no output written;
// outputs are replaced atomically.
//
//===----------------------------------------------------------------------===//

#include "qdc/Driver/Driver.h"
#include "Output.h"
#include "CompileCache.h"
#include "Outputs.h"
#include "qdc/CodeGen/CodeGen.h"
#include "qdc/Driver/Options.h"
#include "qdc/Frontend/Frontend.h"
#include "qdc/KIR/Printer.h"
#include "qdc/KIR/Verifier.h"
#include "qdc/Support/DeepStack.h"
#include "qdc/Support/Error.h"
#include "qdc/Transforms/Passes.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <unistd.h>

using namespace qdc;

/// The largest input qdc reads.
constexpr uint64_t MaxInputBytes = 64u << 20;

/// Reads the input once (it may be a FIFO), at most MaxInputBytes; the
/// message names the file.
static llvm::Expected<std::string> readInput(llvm::StringRef Path) {
  auto Err = [&](const llvm::Twine &Why) {
    return makeError(Why + ": '" + Path + "'");
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
  std::string Text;
  char Chunk[1 << 16];
  while (Text.size() <= MaxInputBytes) {
    llvm::Expected<size_t> N = llvm::sys::fs::readNativeFile(*F, Chunk);
    if (!N) {
      llvm::sys::fs::closeFile(*F);
      return Err("cannot read input (" + llvm::toString(N.takeError()) + ")");
    }
    if (*N == 0)
      break;
    Text.append(Chunk, *N);
  }
  llvm::sys::fs::closeFile(*F);
  if (Text.size() > MaxInputBytes)
    return Err("input is larger than 64 MiB");
  return Text;
}

/// A UTF-16 byte-order mark: Clang reads UTF-8 only and would stop with no
/// position. Reported at the file's first byte.
static bool checkEncoding(llvm::StringRef Path, llvm::StringRef Text) {
  if (!Text.starts_with("\xFF\xFE") && !Text.starts_with("\xFE\xFF"))
    return true;
  llvm::WithColor(llvm::errs(), llvm::HighlightColor::Error)
      << Path << ":1:1: error: ";
  llvm::errs() << "the file is UTF-16 (it starts with a UTF-16 byte-order "
                  "mark); qdc reads UTF-8\n";
  return false;
}

/// The pipeline, on the thread runDriver makes.
/// The generated host code declares the namespace NS at global scope (the
/// file's stem, or --namespace) beside the .qd's own globals: a global
/// field, function, variable or type of that name would collide with it
/// there. (A kernel may share it: its definition is replaced by the
/// generated code.)
static void checkNamespaceFree(const FrontendSession &Session,
                               llvm::StringRef InputFile, const std::string &NS,
                               DiagEngine &Diags) {
  // `a::b` is declared as `namespace a { namespace b`: `a` may collide.
  llvm::StringRef Outer = llvm::StringRef(NS).split("::").first;
  std::optional<FrontendSession::GlobalDeclaration> Clash =
      Session.findGlobalDeclaration(Outer);
  if (!Clash)
    return;
  if (Clash->InSystemHeader)
    Diags.report(DiagID::err_namespace_is_library_name, SourceLoc())
        << llvm::sys::path::filename(InputFile) << NS;
  else
    Diags.report(DiagID::err_name_is_generated_namespace, Clash->Loc) << Outer;
}

/// Whether the architectures asked for were checked (checkNvidiaArchs), and
/// the exit code: once per run of qdc, whatever the number of inputs.
using ArchCheck = std::optional<int>;

static int compileInput(const DriverOptions &Opts, Toolchain &Tools,
                        ArchCheck &Archs);

/// Every NVIDIA architecture asked for is one the installed ptxas compiles
/// for (CUDA 13 dropped sm_50 to sm_72, for one); 0 when so. Reads ptxas's
/// --help, which the driver starts before the parse: the check comes after
/// it, before any output is written.
static int checkNvidiaArchs(const DriverOptions &Opts, const Toolchain &Tools) {
  std::vector<std::string> Known;
  for (const OffloadTarget &Target : Opts.Targets) {
    if (!Target.isNvidia())
      continue;
    if (Known.empty())
      Known = Tools.getPtxasArchs();
    if (Known.empty() || llvm::is_contained(Known, Target.getName()))
      continue;
    // In order of the number: sm_75, ..., sm_90a, sm_100, ...
    llvm::sort(Known, [](const std::string &A, const std::string &B) {
      auto Key = [](const std::string &Name) {
        return std::make_pair(
            OffloadTarget::getSpelledNumber(Vendor::NVIDIA, Name), Name);
      };
      return Key(A) < Key(B);
    });
    std::string List;
    for (const std::string &K : Known)
      List += (List.empty() ? "" : ", ") + K;
    return reportError("--offload-arch=" + Target.getName() +
                       ": the CUDA toolkit's ptxas (" + Tools.getPtxas() +
                       ") does not compile for it; it compiles for " + List);
  }
  return 0;
}

/// Several inputs write their outputs by their stems: two inputs of one
/// stem in different folders (`x/k.qd y/k.qd`) would write one `k.o`, the
/// second over the first. 0 when every output is distinct.
static int checkDistinctOutputs(const DriverOptions &Opts) {
  if (Opts.InputFiles.size() < 2 || Opts.SyntaxOnly || Opts.DepsOnly)
    return 0;
  std::vector<std::pair<std::string, std::string>> Seen; // (path, input)
  for (const std::string &Input : Opts.InputFiles) {
    DriverOptions One = Opts;
    One.InputFile = Input;
    llvm::Expected<OutputPaths> P = getOutputPaths(One);
    if (!P) {
      llvm::consumeError(P.takeError()); // compileInput reports it
      continue;
    }
    for (const auto &[Opt, Path] : P->list()) {
      for (const auto &[Other, OtherInput] : Seen)
        if (namesSameFile(Path, Other))
          return reportError("'" + OtherInput + "' and '" + Input +
                             "' would both write '" + Path +
                             "'; compile them one at a time, each with its "
                             "own -o");
      Seen.push_back({Path, Input});
    }
  }
  return 0;
}

static int runPipelineOnArgs(llvm::ArrayRef<const char *> Args) {
  llvm::Expected<std::optional<DriverOptions>> Parsed =
      parseOptions(Args, llvm::outs());
  if (!Parsed)
    return reportError(llvm::toString(Parsed.takeError()));
  if (!*Parsed)
    return 0; // --help or --version
  const DriverOptions &Opts = **Parsed;

  Toolchain Tools(Args.empty() ? "qdc" : Args[0], Opts.Tools);
  if (Opts.PrintVersion) {
    auto Found = [](const std::string &Path) {
      return Path.empty() ? std::string("not found") : Path;
    };
    llvm::outs() << "CUDA: ptxas " << Found(Tools.getPtxas()) << ", libdevice "
                 << Found(Tools.getLibdevice()) << "\nROCm device libraries: "
                 << Found(Tools.getRocmBitcodeDir())
                 << "\nld.lld: " << Found(Tools.getLld())
                 << "\nheaders: " << Tools.getPreludeDir() << '\n';
    return 0;
  }
  if (Opts.PrintIncludeDir) {
    llvm::outs() << Tools.getPreludeDir() << '\n';
    return 0;
  }
  if (Opts.PrintClangdConfig) {
    // What qdc's parse of a .qd adds to a C++ compile (getParseArgs), for
    // clangd, which otherwise cannot tell what a .qd file is. In a CMake
    // project clangd borrows a C++ file's command for a .qd; the flags
    // added here come after it and win.
    llvm::outs() << "# Written by qdc --print-clangd-config: clangd reads .qd "
                    "files as qdc does.\n"
                 << "If:\n  PathMatch: .*\\.qd\n"
                 << "CompileFlags:\n  Add: [-xc++, -std=" << Opts.Tools.Std
                 << ", -isystem, \"" << Tools.getPreludeDir()
                 << "\", -D__QDC__=1]\n";
    return 0;
  }
  if (Opts.PrintPasses) {
    for (const PassInfo &P : getPasses())
      llvm::outs() << llvm::left_justify(P.Name, 24) << P.Description << '\n';
    return 0;
  }
  if (Opts.InputFiles.empty())
    return reportError("no input file");
  if (int RC = checkDistinctOutputs(Opts))
    return RC;
  // Several inputs: each compiled on its own, the others still compiled
  // when one fails, as clang does.
  int Status = 0;
  ArchCheck Archs;
  for (const std::string &Input : Opts.InputFiles) {
    DriverOptions One = Opts;
    One.InputFile = Input;
    Status = std::max(Status, compileInput(One, Tools, Archs));
    if (Archs && *Archs)
      break; // said once; every input would fail alike
  }
  return Status;
}

/// Compiles Opts.InputFile to its outputs; the exit code.
static int compileInput(const DriverOptions &Opts, Toolchain &Tools,
                        ArchCheck &Archs) {
  // Whether the compile printed anything: only silent compiles are cached.
  uint64_t Printed = llvm::errs().tell();
  if (!Opts.Namespace.empty())
    if (llvm::Error E = checkGeneratedNamespace(Opts.Namespace))
      return reportError(llvm::toString(std::move(E)));
  llvm::Expected<std::string> Input = readInput(Opts.InputFile);
  if (!Input)
    return reportError(llvm::toString(Input.takeError()));
  if (!checkEncoding(Opts.InputFile, *Input))
    return 1;
  // Where every output goes, checked before any work: no output may name
  // the input or another output.
  OutputPaths Paths;
  if (!Opts.SyntaxOnly) {
    llvm::Expected<OutputPaths> P = getOutputPaths(Opts);
    if (!P)
      return reportError(llvm::toString(P.takeError()));
    Paths = std::move(*P);
    if (llvm::Error E = checkOutputPaths(Opts.InputFile, Paths.list()))
      return reportError(llvm::toString(std::move(E)));
  }

  std::optional<CompileCache> Cache =
      CompileCache::open(Opts, Paths, Tools, *Input);
  if (Cache && Cache->restore(Paths))
    return 0;

  // ptxas says which architectures it has while the parse runs.
  if (!Archs && llvm::any_of(Opts.Targets, [](const OffloadTarget &T) {
        return T.isNvidia();
      }))
    Tools.startPtxasHelp();
  size_t InputBytes = Input->size();
  FrontendOptions FOpts;
  FOpts.InputFile = Opts.InputFile;
  FOpts.InputText = std::move(*Input);
  FOpts.Tools = &Tools;
  FOpts.CheckDeviceCode = !Opts.Targets.empty();
  FrontendSession Session(std::move(FOpts));
  // The launcher's host compile sets up beside the parse.
  std::unique_ptr<EarlyHostCompile> EarlyHost =
      beginEarlyHostCompile(Opts, Tools, Session.getWarningLog(), InputBytes);
  std::optional<kir::Module> M = Session.parse();
  // Ends with clang's "N errors generated." when anything was reported.
  auto Summarize = [&] {
    std::string Summary = Session.getSummary();
    if (!Summary.empty())
      llvm::errs() << Summary << '\n';
  };
  // A cached object was made with this ptxas and these architectures:
  // only a compile checks them, after the parse (whose errors and their
  // count come first).
  if (!M) {
    Summarize();
    if (!Archs)
      Archs = checkNvidiaArchs(Opts, Tools);
    return 1;
  }
  if (!Archs)
    Archs = checkNvidiaArchs(Opts, Tools);
  if (*Archs) {
    Summarize();
    return *Archs;
  }
  // The rules code generation adds run when code is generated or checked
  // (-fsyntax-only), not for the dumps.
  bool Dump = isDump(Opts.Emit);
  M->FuseTasks = Opts.FuseTasks;
  runPipeline(*M, Session.getDiags(), Opts.StopAfter,
              /*ForCodeGen=*/!Dump);
  checkNamespaceFree(Session, Opts.InputFile,
                     getGeneratedNamespace(Opts.InputFile, Opts.Namespace),
                     Session.getDiags());
  if (Opts.Emit == EmitKind::Python || !Opts.PythonFile.empty())
    checkPythonForms(*M, Session.getDiags());
  if (Session.getNumErrors()) {
    Summarize();
    return 1;
  }
  Summarize(); // the warnings
  if (Opts.StopAfter.empty())
    if (llvm::Error E = kir::verifyModule(*M))
      return reportError("internal error: invalid kernel IR: " +
                         llvm::toString(std::move(E)));
  if (Opts.DepsOnly) {
    // -M, -MM: the rule alone, to -MF, -o or standard output, as clang's.
    std::string Target = Opts.DepfileTarget;
    if (Target.empty())
      Target = llvm::sys::path::stem(Opts.InputFile).str() + ".o";
    std::string To = !Opts.DepfilePath.empty()  ? Opts.DepfilePath
                     : !Opts.OutputFile.empty() ? Opts.OutputFile
                                                : "-";
    OutputSet Set;
    Set.add(To, makeDepfile(Target, Session.getDependencies(!Opts.UserDepsOnly),
                            Opts.PhonyDeps));
    return Set.commit();
  }
  if (Opts.SyntaxOnly)
    return checkGeneratedCode(Opts, *M, Tools, Session.getWarningLog(),
                              EarlyHost.get());

  if (Dump) {
    OutputSet Set;
    Set.add(Paths.Main, produceOutput({Opts, *M}));
    addDepfile(Set, Opts, Paths, Session.getDependencies(!Opts.UserDepsOnly));
    return Set.commit();
  }
  // Index checks report through the module's assertion record.
  M->UsesAsserts = M->UsesAsserts || Opts.Tools.CheckIndices;
  int Status = writeOutputs(Opts, Paths, *M, Tools,
                            Session.getDependencies(!Opts.UserDepsOnly),
                            Session.getWarningLog(), EarlyHost.get());
  if (Cache && Status == 0)
    Cache->store(Paths, Session.getDependencies(/*IncludeSystem=*/true),
                 llvm::errs().tell() != Printed);
  return Status;
}

/// An LLVM fatal error (a construct a back end cannot compile) ends qdc with
/// an error and exit code 1, its temporaries removed, not an abort with a
/// stack dump.
static void onFatalError(void *, const char *Reason, bool) {
  llvm::errs() << "qdc: error: the code generator failed: " << Reason << '\n';
  llvm::sys::RunInterruptHandlers();
  _exit(1);
}

int qdc::runDriver(llvm::ArrayRef<const char *> Args) {
  llvm::install_fatal_error_handler(onFatalError);
  // Clang and qdc recurse over the AST: deeply nested input needs a deep
  // stack, as clang's own driver gives its compiler; qdc's own walks are
  // bounded, and what still exhausts it is an error (DeepStack.cpp).
  return runOnDeepStack([&] { return runPipelineOnArgs(Args); });
}
