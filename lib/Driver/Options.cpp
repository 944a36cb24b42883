//===- Options.cpp - The qdc command line ---------------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CLI11 spells long options with two dashes; clang's habits
// (-fsyntax-only, -Werror, -std=) have one. Those spellings are rewritten to
// CLI11's before parsing and back again in --help, from one table.
//
//===----------------------------------------------------------------------===//

#include "qdc/Driver/Options.h"
#include "qdc/Support/Error.h"
#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"

#include <CLI/CLI.hpp>

using namespace qdc;

namespace {
/// The single-dash long options (`-fsyntax-only`, `-MF`), as the
/// declarations spell them (Parser::dash1); CLI11 reads them with two
/// dashes.
using SingleDashList = std::vector<std::string>;

std::string toCLI11Spelling(llvm::StringRef Arg,
                            const SingleDashList &SingleDashOptions) {
  // -W<name>, -Wno-<name>, -Werror=<name>, -Wno-error=<name>: qdc's own
  // warnings, or passed to Clang.
  if (Arg.starts_with("-W") && Arg.size() > 2 && Arg != "-Werror")
    return "--warning=" + Arg.drop_front(2).str();
  if (Arg == "-use_fast_math") // nvcc's short spelling of --use_fast_math
    return "--use_fast_math";
  // clang's -O is -O1; -Os and -Oz optimize as -O2 does.
  if (Arg == "-O")
    return "-O1";
  if (Arg == "-Os" || Arg == "-Oz")
    return "-O2";
  // clang's and nvcc's: print the commands, run none.
  if (Arg == "-###" || Arg == "-dryrun" || Arg == "--dryrun")
    return "--print-commands-only";
  // nvcc's --keep: the intermediate files, in the current folder.
  if (Arg == "-keep" || Arg == "--keep")
    return "--save-temps=cwd";
  if (Arg == "-keep-dir")
    return "--keep-dir";
  if (Arg == "-fdiagnostics-color")
    return "--fdiagnostics-color=always";
  // -save-temps and --save-temps keep them in the current folder, as clang.
  if (Arg == "-save-temps" || Arg == "--save-temps")
    return "--save-temps=cwd";
  if (Arg.starts_with("-save-temps="))
    return "-" + Arg.str();
  for (llvm::StringRef Opt : SingleDashOptions)
    if (Arg == Opt || Arg.starts_with((Opt + "=").str()))
      return "-" + Arg.str();
  return Arg.str();
}

/// Shows single-dash long options the way users type them.
class QdcFormatter : public CLI::Formatter {
public:
  explicit QdcFormatter(const SingleDashList &SingleDashOptions)
      : SingleDashOptions(SingleDashOptions) {}
  std::string make_option_name(const CLI::Option *Opt,
                               bool IsPositional) const override {
    std::string Name = CLI::Formatter::make_option_name(Opt, IsPositional);
    for (llvm::StringRef Dash : SingleDashOptions) {
      std::string Long = "-" + Dash.str();
      size_t Pos = Name.find(Long);
      if (Pos != std::string::npos &&
          (Pos + Long.size() == Name.size() || Name[Pos + Long.size()] == ','))
        Name.erase(Pos, 1);
    }
    return Name;
  }

private:
  const SingleDashList &SingleDashOptions;
};

/// The --emit values, in EmitKind's order, and their help.
const char *const EmitNames[] = {
#define QDC_OUTPUT_KIND(ENUM, NAME, STAGE, HELP) NAME,
#include "qdc/Driver/OutputKinds.def"
};
const char *const EmitHelp[] = {
#define QDC_OUTPUT_KIND(ENUM, NAME, STAGE, HELP) HELP,
#include "qdc/Driver/OutputKinds.def"
};

std::vector<std::string> getEmitNames() {
  return {std::begin(EmitNames), std::end(EmitNames)};
}

/// "What to produce: obj (default: object and header), header, ...".
std::string getEmitHelp() {
  std::string Help = "What to produce: ";
  for (size_t I = 0; I < std::size(EmitNames); ++I) {
    Help += (I ? ", " : "") + std::string(EmitNames[I]);
    if (*EmitHelp[I])
      Help += " (" + std::string(EmitHelp[I]) + ")";
  }
  return Help;
}

struct Parser {
  CLI::App App{"qdc: an ahead-of-time compiler for annotated C++ kernels "
               "(.qd) with concurrent streams",
               "qdc"};
  DriverOptions Opts;
  std::vector<std::string> Inputs;
  std::string Emit;
  std::string PlanFormat = "text";
  std::string OptLevel = "3";
  std::vector<std::string> Archs;
  std::vector<std::string> Gencode;
  std::string Language, DiagnosticsColor;
  bool ShowVersion = false, DumpVersion = false, CompileOnly = false,
       PIC = false, MMD = false, MM = false;

  /// The single-dash long options declared, as written.
  SingleDashList SingleDash;

  Parser() {
    App.formatter(std::make_shared<QdcFormatter>(SingleDash));
    App.get_formatter()->column_width(34);
    App.allow_extras();
    App.set_help_flag("-h,--help", "Print this help and exit");
    addInputsAndOutputs();
    addTargets();
    addCodeGeneration();
    addPreprocessor();
    addDiagnostics();
    addDependencies();
    addInformation();
  }

  /// Name, a single-dash long option as the user writes it (`-MF`), as
  /// CLI11 reads it (`--MF`); the help and the messages show it as written.
  std::string dash1(const std::string &Name) {
    SingleDash.push_back(Name);
    return "-" + Name;
  }

private:
  void addInputsAndOutputs() {
    App.add_option("input", Inputs, "The .qd file to compile")
        ->type_name("<file.qd>");
    App.add_option("-o", Opts.OutputFile,
                   "Write the output to <file> (`-` for standard output)")
        ->type_name("<file>");
    App.add_option("-H", Opts.HeaderFile,
                   "Write the header to <file> (default: <stem>.qd.h beside "
                   "the object)")
        ->type_name("<file>");
    App.add_option("--emit-python", Opts.PythonFile,
                   "Also write the nanobind source of the Python module "
                   "to <file> (with the object)")
        ->type_name("<file>");
    App.add_option("--namespace", Opts.Namespace,
                   "Namespace of the generated header (default: the file's "
                   "stem)")
        ->type_name("<name>");
    App.add_option("--emit", Emit, getEmitHelp())
        ->type_name("<kind>")
        ->check(CLI::IsMember(getEmitNames()));
    App.add_option("--plan-format", PlanFormat,
                   "Format of --emit=stream-plan: text or dot (Graphviz)")
        ->type_name("<format>")
        ->check(CLI::IsMember({"text", "dot"}));
    App.add_flag("-c", CompileOnly, "Compile to an object (the default)");
    App.add_option("-x", Language,
                   "Language of the input: qd (the only one; c++ is taken "
                   "as qd)")
        ->type_name("<language>")
        ->check(CLI::IsMember({"qd", "c++"}));
    App.add_option("--save-temps", Opts.SaveTemps,
                   "Keep the intermediate files of an object's compile (the "
                   "device source, the launcher source, each GPU image) in "
                   "the current folder (cwd, the default), beside the "
                   "object (obj) or in a folder (also --keep, "
                   "--keep-dir <dir>, as nvcc spells them)")
        ->type_name("<where>");
    App.add_option("--keep-dir", Opts.SaveTemps,
                   "nvcc's: keep the intermediate files in <dir>")
        ->type_name("<dir>");
    App.add_option("--cache-dir", Opts.CacheDir,
                   "Keep the outputs of object compiles in <dir> and reuse "
                   "them when the same command, input and included files "
                   "come again (also the environment variable "
                   "QDC_CACHE_DIR; an empty <dir>: no cache)")
        ->type_name("<dir>")
        ->envname("QDC_CACHE_DIR");
    App.add_flag(dash1("-fPIC") + "," + dash1("-fpic"), PIC,
                 "Accepted: objects are always position independent");
  }

  void addTargets() {
    App.add_option("--offload-arch", Archs,
                   "GPU architectures to compile for, comma-separated "
                   "(default: sm_80, whose PTX the driver compiles for any "
                   "newer NVIDIA GPU); none for CPU code only; native for "
                   "this machine's NVIDIA GPUs")
        ->type_name("<arch,...>")
        ->delimiter(',')
        ->allow_extra_args(false);
    App.add_option(dash1("-arch"), Archs,
                   "nvcc's spelling of --offload-arch: sm_XX or compute_XX")
        ->type_name("<arch>")
        ->allow_extra_args(false);
    App.add_option(dash1("-gencode"), Gencode,
                   "nvcc's arch=compute_XX,code=sm_XX: compiles for sm_XX")
        ->type_name("<spec>")
        ->allow_extra_args(false);
  }

  void addCodeGeneration() {
    App.add_option("-O", OptLevel,
                   "Optimization level of the generated code "
                   "(0-3, default 3; -O is -O1, -Os and -Oz are -O2; the "
                   "last one counts)")
        ->type_name("<level>")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
        ->check(CLI::IsMember({"0", "1", "2", "3"}));
    App.add_flag("-g", Opts.Tools.DebugInfo,
                 "Line information in the generated code");
    App.add_flag("-G", Opts.Tools.DeviceDebug,
                 "nvcc's device debugging: the GPU code unoptimized, with "
                 "full debug information (cuda-gdb)");
    App.add_flag(dash1("-lineinfo"), Opts.Tools.LineInfo,
                 "Source lines in the GPU code for profilers (nvcc's "
                 "-lineinfo), without -g's debug information");
    App.add_option(dash1("-Xptxas"), Opts.Tools.PtxasArgs,
                   "Give <opt> to ptxas (comma-separated options as nvcc "
                   "takes them: -Xptxas -v,-warn-spills)")
        ->type_name("<opt>")
        ->delimiter(',')
        ->allow_extra_args(false);
    App.add_option("--ptx-part-entries", Opts.Tools.PtxPartEntries,
                   "Cut a module of more than <n> NVIDIA GPU entry "
                   "functions into modules of about <n>, assembled several "
                   "at once (default 256; 0: one module)")
        ->type_name("<n>");
    App.add_flag("--assert-record-per-part", Opts.Tools.AssertRecordPerPart,
                 "In a module cut into parts, give each part its own "
                 "assertion record, so that kernels that assert are cut "
                 "apart too; each synchronization then reads one record a "
                 "part (off by default)");
    App.add_flag("--resource-usage", Opts.Tools.ResourceUsage,
                 "Report each task's registers, spills, stack and shared "
                 "memory per NVIDIA architecture, as ptxas -v finds them");
    App.add_option("-t,--threads", Opts.Tools.Threads,
                   "Threads one compile uses: the host code is compiled "
                   "beside the GPU code, ptxas splits its work (nvcc's "
                   "--threads; 0, the default, is one per processor, 1 is "
                   "one step at a time)")
        ->type_name("<n>")
        ->check(CLI::Range(0u, 1024u));
    App.add_flag("--debug", Opts.Tools.CheckIndices,
                 "Check every field and ndarray index in device code: an "
                 "index out of bounds is a qd::Error at the next "
                 "synchronization");
    // The last of -ffast-math and -fno-fast-math wins, as in clang.
    App.add_flag_callback(
           dash1("-ffast-math") + ",--use_fast_math",
           [this] { Opts.Tools.FastMath = true; },
           "Fast, lossy floating point in device and CPU code: fast-math "
           "flags, approximate single-precision functions and division, "
           "denormals flushed on NVIDIA GPUs (as nvcc's --use_fast_math; off "
           "by default)")
        ->trigger_on_parse();
    App.add_flag_callback(
           dash1("-fno-fast-math"), [this] { Opts.Tools.FastMath = false; },
           "Turn -ffast-math off again")
        ->trigger_on_parse();
    // The last of -ffuse-tasks and -fno-fuse-tasks wins.
    App.add_flag_callback(
           dash1("-ffuse-tasks"), [this] { Opts.FuseTasks = true; },
           "Run consecutive small tasks (known ranges of at most 1024 "
           "iterations) as one launch of one block, and do_while loops of "
           "them inside it (the default)")
        ->trigger_on_parse();
    App.add_flag_callback(
           dash1("-fno-fuse-tasks"), [this] { Opts.FuseTasks = false; },
           "Launch every task on its own")
        ->trigger_on_parse();
  }

  void addPreprocessor() {
    App.add_option("-I", Opts.Tools.IncludeDirs,
                   "Add <dir> to the include search path")
        ->type_name("<dir>")
        ->allow_extra_args(false);
    App.add_option("-D", Opts.Tools.Defines, "Define macro <name>[=<value>]")
        ->type_name("<macro>")
        ->allow_extra_args(false);
    App.add_option("-U", Opts.Tools.Undefines, "Undefine macro <name>")
        ->type_name("<macro>")
        ->allow_extra_args(false);
    App.add_option(dash1("-isystem"), Opts.Tools.SystemIncludeDirs,
                   "Add <dir> to the system include search path")
        ->type_name("<dir>")
        ->allow_extra_args(false);
    App.add_option(dash1("-include"), Opts.Tools.ForcedIncludes,
                   "Include <file> before the input")
        ->type_name("<file>")
        ->allow_extra_args(false);
    App.add_option(dash1("-std"), Opts.Tools.Std,
                   "C++ standard of the input "
                   "(default: c++20)")
        ->type_name("<std>");
  }

  void addDiagnostics() {
    App.add_flag(dash1("-fsyntax-only"), Opts.SyntaxOnly,
                 "Check the file, report problems, write nothing");
    App.add_flag(dash1("-Werror"), Opts.Tools.WarningsAsErrors,
                 "Treat warnings as errors");
    App.add_flag("-w", Opts.Tools.IgnoreWarnings, "Suppress all warnings");
    // -W<name> and -Wno-<name>, rewritten to this (see toCLI11Spelling).
    App.add_option("--warning", Opts.Tools.Warnings)
        ->allow_extra_args(false)
        ->group("");
    App.add_flag_callback(
           dash1("-fcolor-diagnostics"), [this] { Opts.Tools.Color = 1; },
           "Color diagnostics")
        ->trigger_on_parse();
    App.add_flag_callback(
           dash1("-fno-color-diagnostics"), [this] { Opts.Tools.Color = 0; },
           "No color in diagnostics")
        ->trigger_on_parse();
    App.add_option(dash1("-fdiagnostics-color"), DiagnosticsColor,
                   "Color diagnostics: always, never or auto")
        ->type_name("<when>")
        ->check(CLI::IsMember({"always", "never", "auto"}));
    App.add_flag("-v", Opts.Tools.Verbose, "Show the commands qdc runs");
    App.add_flag("--print-commands-only", Opts.Tools.PrintCommandsOnly,
                 "Print the commands qdc would run after the parse, and run "
                 "none of them; write nothing (spelled -###)")
        ->group("");
  }

  void addDependencies() {
    App.add_flag(dash1("-MD"), Opts.WriteDepfile,
                 "Write a depfile listing every file the input includes");
    App.add_flag(dash1("-MMD"), MMD,
                 "As -MD, without the system headers (qdc's own, the C++ "
                 "library, -isystem folders)");
    App.add_flag(dash1("-M"), Opts.DepsOnly,
                 "Write the dependency rule (to -MF, -o or standard output) "
                 "and compile nothing");
    App.add_flag(dash1("-MM"), MM, "As -M, without the system headers");
    App.add_option(dash1("-MF"), Opts.DepfilePath,
                   "Write the depfile to <file> (implies -MD; default: the "
                   "object's name with .d)")
        ->type_name("<file>");
    App.add_option(dash1("-MT"), Opts.DepfileTarget,
                   "Target of the depfile's rule (default: the object)")
        ->type_name("<target>");
    App.add_flag(dash1("-MP"), Opts.PhonyDeps,
                 "Add an empty rule for each dependency, so that a deleted "
                 "header does not stop make");
  }

  void addInformation() {
    App.add_flag("--version", ShowVersion, "Print the version and exit");
    App.add_flag(dash1("-dumpversion"), DumpVersion,
                 "Print the version and exit");
    App.add_flag("--print-include-dir", Opts.PrintIncludeDir,
                 "Print the folder that holds <qd/qd.h> and exit");
    App.add_flag("--print-clangd-config", Opts.PrintClangdConfig,
                 "Print a .clangd file that makes clangd read .qd files as "
                 "qdc does (C++20, qdc's headers) and exit");
    App.add_flag("--print-passes", Opts.PrintPasses,
                 "List the KIR passes in pipeline order and exit");
    App.add_option("--stop-after", Opts.StopAfter,
                   "Run the pass pipeline up to and including <pass>")
        ->type_name("<pass>");
  }
};

} // namespace

std::string qdc::getHelpText() {
  Parser P;
  return P.App.help();
}

/// The most response files one command line may read, and their size.
constexpr unsigned MaxResponseFiles = 64;
constexpr uint64_t MaxResponseFileBytes = 1 << 20;

/// Replaces each `@file` by the arguments in it (GNU quoting), nested ones
/// too. A file that is missing, not a regular file or too large is an
/// error, as is a chain of more than MaxResponseFiles.
static llvm::Error
expandResponseFiles(llvm::SmallVectorImpl<const char *> &Argv,
                    llvm::StringSaver &Saver) {
  unsigned Expanded = 0;
  for (size_t I = 1; I < Argv.size();) {
    llvm::StringRef Arg = Argv[I];
    if (!Arg.starts_with("@") || Arg.size() == 1) {
      ++I;
      continue;
    }
    llvm::StringRef Path = Arg.drop_front();
    auto Fail = [&](const llvm::Twine &Why) {
      return makeError("response file '" + Path + "' " + Why);
    };
    if (++Expanded > MaxResponseFiles)
      return makeError("more than " + llvm::Twine(MaxResponseFiles) +
                       " response files; does '" + Path + "' include itself?");
    llvm::sys::fs::file_status Status;
    if (llvm::sys::fs::status(Path, Status) || !llvm::sys::fs::exists(Status))
      return Fail("does not exist");
    if (llvm::sys::fs::is_directory(Status))
      return Fail("is a directory");
    if (!llvm::sys::fs::is_regular_file(Status))
      return Fail("is not a regular file");
    if (Status.getSize() > MaxResponseFileBytes)
      return Fail("is larger than 1 MiB");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
        llvm::MemoryBuffer::getFile(Path);
    if (!Text)
      return Fail("cannot be read: " + Text.getError().message());
    llvm::SmallVector<const char *, 16> Tokens;
    llvm::cl::TokenizeGNUCommandLine((*Text)->getBuffer(), Saver, Tokens);
    Argv.erase(Argv.begin() + I);
    Argv.insert(Argv.begin() + I, Tokens.begin(), Tokens.end());
  }
  return llvm::Error::success();
}

/// Options whose value is empty or missing, which CLI11 would take the next
/// argument for or pass on as an input.
static llvm::Error checkValues(llvm::ArrayRef<const char *> Argv) {
  for (size_t I = 1; I < Argv.size(); ++I) {
    llvm::StringRef Arg = Argv[I];
    llvm::StringRef Next = I + 1 < Argv.size() ? Argv[I + 1] : "";
    if (Arg == "-std=" || Arg == "--std=")
      return makeError("-std= needs a language standard, e.g. -std=c++20");
    if (Arg == "--offload-arch=" || (Arg == "--offload-arch" && Next.empty()))
      return makeError("--offload-arch needs a GPU architecture, e.g. "
                       "--offload-arch=sm_80");
    if (Arg == "-D" ? Next.empty() || Next.starts_with("=")
                    : Arg.starts_with("-D="))
      return makeError("-D needs a macro name, e.g. -D NAME=VALUE");
  }
  return llvm::Error::success();
}

/// "unknown argument" for Left, what CLI11 left of an argument, named as
/// the user wrote it: a single-dash word whose first letters are a short
/// option (`-verify`, `-ccbin`) leaves only its end (`-erify`, `-bin`).
/// With the nearest option name, when one is close.
static llvm::Error reportUnknown(llvm::StringRef Left,
                                 llvm::ArrayRef<const char *> Argv,
                                 const Parser &P) {
  std::string Written = Left.str();
  if (!Left.starts_with("--"))
    for (size_t I = 1; I < Argv.size(); ++I) {
      llvm::StringRef A(Argv[I]);
      if (A.starts_with("-") && !A.starts_with("--") && A != Left &&
          A.size() > Left.size() && A.ends_with(Left.drop_front()))
        Written = A.str();
    }
  // The name part (before '='), compared with every option's spellings.
  llvm::StringRef Name = llvm::StringRef(Written).split('=').first;
  std::string Best;
  unsigned BestDistance = 3; // at most two edits away
  for (const CLI::Option *Opt : P.App.get_options()) {
    std::vector<std::string> Names = Opt->get_lnames();
    for (const std::string &L : Names) {
      std::string Spelled = "--" + L;
      for (llvm::StringRef Dash : P.SingleDash)
        if (Spelled.substr(1) == Dash)
          Spelled = Dash.str();
      unsigned D = Name.edit_distance(Spelled, true, BestDistance);
      if (D < BestDistance) {
        BestDistance = D;
        Best = Spelled;
      }
    }
  }
  std::string Message = "unknown argument: '" + Written + "'";
  if (!Best.empty() && Best != Name)
    Message += "; did you mean '" + Best + "'?";
  return makeError(Message);
}

/// --offload-arch (and nvcc's spellings) into P.Opts.Targets: `none`,
/// `host` or `cpu` alone for the CPU alone, `native` for the GPUs of this
/// machine, each other value parsed by OffloadTarget.
static llvm::Error parseTargets(Parser &P) {
  if (P.Archs.empty())
    return llvm::Error::success();
  std::vector<OffloadTarget> &Targets = P.Opts.Targets;
  Targets.clear();
  if (P.Archs.size() == 1 &&
      llvm::is_contained({"none", "host", "cpu"}, P.Archs[0]))
    return llvm::Error::success();
  std::vector<OffloadTarget> Native;
  if (llvm::is_contained(P.Archs, "native")) {
    std::string Why;
    Native = detectNativeTargets(Why);
    if (Native.empty())
      return makeError("--offload-arch=native: no GPU found on this machine (" +
                       Why + "); name the architectures instead");
  }
  auto Add = [&](const OffloadTarget &T) {
    if (!llvm::is_contained(Targets, T))
      Targets.push_back(T);
  };
  for (const std::string &Arch : P.Archs) {
    if (Arch == "native") {
      llvm::for_each(Native, Add);
      continue;
    }
    llvm::Expected<OffloadTarget> T = OffloadTarget::parse(Arch);
    if (!T)
      return T.takeError();
    Add(*T);
  }
  return llvm::Error::success();
}

/// What CLI11 left over: the inputs, or an unknown option named as the
/// user wrote it.
static llvm::Error takeInputs(Parser &P, llvm::ArrayRef<const char *> Argv) {
  for (const std::string &Extra : P.App.remaining()) {
    llvm::StringRef E(Extra);
    if (E.starts_with("--") && !E.starts_with("---")) {
      // Map back to what the user typed.
      for (llvm::StringRef Dash : P.SingleDash)
        if (E.drop_front() == Dash ||
            E.drop_front().starts_with((Dash + "=").str()))
          E = E.drop_front();
    }
    if (E.starts_with("-") && E != "-")
      return reportUnknown(E, Argv, P);
    P.Inputs.push_back(Extra);
  }
  P.Opts.InputFiles = P.Inputs;
  if (!P.Inputs.empty())
    P.Opts.InputFile = P.Inputs[0];
  return llvm::Error::success();
}

/// The options that read several of CLI11's values into one of ours.
static llvm::Error combineOptions(Parser &P) {
  if (!P.DiagnosticsColor.empty() && P.DiagnosticsColor != "auto")
    P.Opts.Tools.Color = P.DiagnosticsColor == "always";
  // nvcc's -gencode arch=compute_90,code=sm_90: the code is what runs.
  for (const std::string &G : P.Gencode) {
    llvm::StringRef Code = llvm::StringRef(G).split("code=").second;
    if (Code.empty())
      return makeError("-gencode " + G +
                       ": expected arch=compute_XX,code=sm_XX");
    P.Archs.push_back(Code.split(',').first.str());
  }
  P.Opts.Emit = EmitKind::Object;
  for (size_t I = 0; I < std::size(EmitNames); ++I)
    if (P.Emit == EmitNames[I])
      P.Opts.Emit = static_cast<EmitKind>(I);
  P.Opts.Tools.OptLevel = static_cast<unsigned>(std::stoi(P.OptLevel));
  if (P.MMD)
    P.Opts.WriteDepfile = P.Opts.UserDepsOnly = true;
  if (P.MM)
    P.Opts.DepsOnly = P.Opts.UserDepsOnly = true;
  if (!P.Opts.DepfilePath.empty() && !P.Opts.DepsOnly)
    P.Opts.WriteDepfile = true;
  P.Opts.PlanAsDot = P.PlanFormat == "dot";
  return parseTargets(P);
}

/// What must hold of the options together.
static llvm::Error checkCombination(const Parser &P) {
  const std::string &Keep = P.Opts.SaveTemps;
  if (!Keep.empty() && Keep != "cwd" && Keep != "obj" &&
      !llvm::sys::fs::is_directory(Keep))
    return makeError("--keep-dir / --save-temps=" + Keep +
                     ": no such folder; --save-temps takes cwd, obj or a "
                     "folder that exists");
  if (!P.Opts.StopAfter.empty() && !findPass(P.Opts.StopAfter))
    return makeError("unknown pass '" + P.Opts.StopAfter +
                     "' in --stop-after; --print-passes lists them");
  if (P.Opts.SyntaxOnly && !P.Emit.empty())
    return makeError("-fsyntax-only and --emit=" + P.Emit +
                     " cannot be used together");
  if (!P.Opts.PythonFile.empty() &&
      (P.Opts.SyntaxOnly || P.Opts.Emit != EmitKind::Object))
    return makeError("--emit-python=<file> goes with an object compile; "
                     "--emit=python writes the Python source alone");
  // Several inputs, as clang -c a.c b.c: each to its own <stem>.o and
  // <stem>.qd.h (and <stem>.d); an option naming one output is refused.
  if (P.Inputs.size() > 1) {
    const char *One = !P.Opts.OutputFile.empty()        ? "-o"
                      : !P.Opts.HeaderFile.empty()      ? "-H"
                      : !P.Opts.PythonFile.empty()      ? "--emit-python"
                      : !P.Opts.DepfilePath.empty()     ? "-MF"
                      : !P.Opts.DepfileTarget.empty()   ? "-MT"
                      : !P.Opts.Namespace.empty()       ? "--namespace"
                      : P.Opts.DepsOnly                 ? "-M or -MM"
                      : P.Opts.Emit != EmitKind::Object ? "--emit"
                                                        : nullptr;
    if (One)
      return makeError(std::string("cannot use ") + One + " with " +
                       std::to_string(P.Inputs.size()) +
                       " input files: each input gets its own outputs");
  }
  return llvm::Error::success();
}

llvm::Expected<std::optional<DriverOptions>>
qdc::parseOptions(llvm::ArrayRef<const char *> Args, llvm::raw_ostream &Out) {
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 32> Argv(Args.begin(), Args.end());
  if (llvm::Error E = expandResponseFiles(Argv, Saver))
    return E;
  if (llvm::Error E = checkValues(Argv))
    return E;

  Parser P;
  std::vector<std::string> Normalized;
  for (size_t I = Argv.size(); I > 1; --I) // CLI11 wants them reversed
    Normalized.push_back(toCLI11Spelling(Argv[I - 1], P.SingleDash));
  try {
    P.App.parse(Normalized);
  } catch (const CLI::CallForHelp &) {
    Out << P.App.help();
    return std::nullopt;
  } catch (const CLI::ParseError &E) {
    return makeError(E.what());
  }
  if (P.DumpVersion) {
    Out << QDC_VERSION << '\n';
    return std::nullopt;
  }
  if (P.ShowVersion) {
    Out << "qdc version " << QDC_VERSION << "\nLLVM version "
        << QDC_LLVM_VERSION << '\n';
    // The driver adds what it finds (it needs the toolchain).
    P.Opts.PrintVersion = true;
    return std::optional<DriverOptions>(std::move(P.Opts));
  }
  if (llvm::Error E = takeInputs(P, Argv))
    return std::move(E);
  if (llvm::Error E = combineOptions(P))
    return std::move(E);
  if (llvm::Error E = checkCombination(P))
    return std::move(E);
  P.Opts.CommandLine.assign(Argv.begin(), Argv.end());
  // The compile cache also keeps the precompiled headers and what ptxas
  // says of itself.
  if (!P.Opts.CacheDir.empty()) {
    P.Opts.Tools.PchDir = P.Opts.CacheDir + "/pch";
    P.Opts.Tools.ToolAnswersDir = P.Opts.CacheDir + "/tools";
  }
  return std::optional<DriverOptions>(std::move(P.Opts));
}
