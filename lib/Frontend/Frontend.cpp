//===- Frontend.cpp - Parse a .qd file into the kernel IR -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parses the .qd file with the toolchain's parse command line
// (`clang -fsyntax-only -x c++ -isystem <prelude> -include qd/qd.h ...`)
// and hands the AST to the KIR builder.
//
//===----------------------------------------------------------------------===//

#include "qdc/Frontend/Frontend.h"

#include "ASTHelpers.h"
#include "ClangDiagSink.h"
#include "KIRBuilder.h"
#include "qdc/Toolchain/ClangInvocation.h"
#include "qdc/Toolchain/PrecompiledHeader.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>

using namespace qdc;

namespace {
/// Hands the parsed translation unit to the KIR builder.
class KIRConsumer : public clang::ASTConsumer {
public:
  KIRConsumer(clang::CompilerInstance &CI, DiagEngine &Diags,
              std::optional<kir::Module> &Out, bool CheckDeviceCode)
      : CI(CI), Diags(Diags), Out(Out), CheckDeviceCode(CheckDeviceCode) {}

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    Out = buildModule(Ctx, Diags, CheckDeviceCode);
  }

private:
  clang::CompilerInstance &CI;
  DiagEngine &Diags;
  std::optional<kir::Module> &Out;
  bool CheckDeviceCode;
};

/// Refuses `#line` numbers of 2^31 and more (C's limit; Clang only warns
/// with -pedantic): Clang's printer cannot show a source line numbered near
/// 2^32 and writes padding without end. The error is reported at the
/// directive, and every later diagnostic is suppressed, so none is printed
/// at such a line.
class LineNumberGuard : public clang::PPCallbacks {
public:
  LineNumberGuard(clang::SourceManager &SM, clang::DiagnosticsEngine &Engine,
                  DiagEngine &Diags)
      : SM(SM), Engine(Engine), Diags(Diags) {}

  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind, clang::FileID) override {
    if (Reason != RenameFile || Loc.isInvalid() || Loc.isMacroID())
      return;
    clang::PresumedLoc P = SM.getPresumedLoc(Loc);
    if (P.isInvalid() || P.getLine() <= 2147483647u)
      return;
    // The directive ends just before Loc, under the old numbering.
    clang::SourceLocation Directive = Loc.getLocWithOffset(-1);
    clang::OptionalFileEntryRef FE =
        SM.getFileEntryRefForID(SM.getFileID(Directive));
    SourceLoc At{FE ? FE->getName().str() : std::string(),
                 SM.getSpellingLineNumber(Directive), 1};
    Diags.report(DiagID::err_line_number_too_large, At)
        << std::to_string(P.getLine());
    Diags.flush(); // printed before everything after is suppressed
    Engine.setSuppressAllDiagnostics(true);
  }

private:
  clang::SourceManager &SM;
  clang::DiagnosticsEngine &Engine;
  DiagEngine &Diags;
};

/// Ends a macro-expansion bomb (`#define A1 A0 A0`, and so on 40 levels:
/// 2^40 tokens) early: past MaxExpansions expansions in one compile, the
/// error is reported where the expansion stands in the user's file, every
/// macro is undefined (what is left of the expansion is a few plain
/// identifiers) and every later diagnostic suppressed, before Clang's
/// record of every expansion fills the memory. Clang itself has no such
/// limit. The
/// limit is far above what real code reaches: test/e2e/language.qd, with
/// <qd/qd.h> and the C++ library's headers, expands macros 3,498 times.
class MacroExpansionGuard : public clang::PPCallbacks {
public:
  static constexpr uint64_t MaxExpansions = uint64_t(1) << 22;

  MacroExpansionGuard(clang::Preprocessor &PP, DiagEngine &Diags)
      : PP(PP), Diags(Diags) {}

  void MacroExpands(const clang::Token &, const clang::MacroDefinition &,
                    clang::SourceRange Range,
                    const clang::MacroArgs *) override {
    if (++Count != MaxExpansions + 1)
      return;
    const clang::SourceManager &SM = PP.getSourceManager();
    clang::SourceLocation Loc = SM.getExpansionLoc(Range.getBegin());
    SourceLoc At{SM.getFilename(Loc).str(), SM.getExpansionLineNumber(Loc),
                 SM.getExpansionColumnNumber(Loc)};
    Diags.report(DiagID::err_macro_expansions, At)
        << std::to_string(MaxExpansions);
    Diags.flush(); // printed before everything after is suppressed
    PP.getDiagnostics().setSuppressAllDiagnostics(true);
    std::vector<clang::IdentifierInfo *> Names;
    for (const auto &[Name, State] : PP.macros())
      Names.push_back(const_cast<clang::IdentifierInfo *>(Name));
    // The directives are this guard's (it lives as long as the
    // preprocessor), not from the preprocessor's allocator: a slab that code
    // inlined here starts is poisoned under AddressSanitizer, and Clang's
    // own (uninstrumented) allocations from its rest would be reported.
    for (clang::IdentifierInfo *Name : Names)
      if (PP.getMacroInfo(Name))
        PP.appendMacroDirective(Name, &Undefs.emplace_back(Loc));
  }

private:
  clang::Preprocessor &PP;
  DiagEngine &Diags;
  uint64_t Count = 0;
  std::deque<clang::UndefMacroDirective> Undefs;
};

class KIRAction : public clang::ASTFrontendAction {
public:
  KIRAction(ClangDiagSink &Sink, DiagEngine &Diags,
            std::optional<kir::Module> &Out, bool CheckDeviceCode)
      : Sink(Sink), Diags(Diags), Out(Out), CheckDeviceCode(CheckDeviceCode) {}

protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    Sink.setSourceManager(&CI.getSourceManager());
    CI.getPreprocessor().addPPCallbacks(std::make_unique<LineNumberGuard>(
        CI.getSourceManager(), CI.getDiagnostics(), Diags));
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<MacroExpansionGuard>(CI.getPreprocessor(), Diags));
    return std::make_unique<KIRConsumer>(CI, Diags, Out, CheckDeviceCode);
  }

private:
  ClangDiagSink &Sink;
  DiagEngine &Diags;
  std::optional<kir::Module> &Out;
  bool CheckDeviceCode;
};
} // namespace

/// Collects every file the preprocessor reads, system headers included.
class AllDependencies : public clang::DependencyCollector {
public:
  bool needSystemDependencies() override { return true; }
  bool sawDependency(llvm::StringRef Filename, bool, bool IsSystem, bool,
                     bool IsMissing) override {
    bool Keep = !IsMissing && Filename != "<built-in>";
    if (Keep && IsSystem)
      System.insert(Filename.str());
    return Keep;
  }
  /// The dependencies found in system folders (-isystem, qdc's prelude, the
  /// C++ library), which -MMD and -MM leave out.
  std::set<std::string> System;
};

/// The prelude every parse starts with.
constexpr llvm::StringLiteral Prelude = "qd/qd.h";

/// Builds the prelude's precompiled header (PrecompiledHeader.h) with the
/// parse's command line: nothing it reports is printed (the parse that
/// follows reports it, from the header itself, when none is built).
static bool buildPreludePch(const std::vector<std::string> &Args,
                            const std::string &Header, const std::string &Out,
                            std::vector<std::string> &Read) {
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> ArgDiags =
      createStderrDiagnostics();
  ArgDiags->setIgnoreAllWarnings(true);
  std::vector<std::string> Full = Args;
  Full.push_back(Header);
  std::shared_ptr<clang::CompilerInvocation> Inv =
      createCompilerInvocation(Full, *ArgDiags);
  if (!Inv)
    return false;
  Inv->getFrontendOpts().OutputFile = Out;
  clang::CompilerInstance CI;
  CI.setInvocation(std::move(Inv));
  CI.createDiagnostics(new clang::IgnoringDiagConsumer(),
                       /*ShouldOwnClient=*/true);
  auto Collector = std::make_shared<AllDependencies>();
  CI.addDependencyCollector(Collector);
  clang::GeneratePCHAction Action;
  bool OK = CI.ExecuteAction(Action);
  Read = Collector->getDependencies();
  return OK && !CI.getDiagnostics().hasErrorOccurred();
}

struct FrontendSession::Impl {
  FrontendOptions Opts;
  std::vector<std::string> Args;
  /// Before CI: its diagnostics consumer writes here.
  WarningLog Warnings;
  clang::CompilerInstance CI;
  std::unique_ptr<ClangDiagSink> Sink;
  /// Receives diagnostics when no invocation could be made.
  CollectingDiagSink Fallback;
  std::unique_ptr<DiagEngine> Diags;
  std::unique_ptr<KIRAction> Action;
  bool Begun = false;
  bool InvocationOK = false;
  std::optional<kir::Module> Module;
  std::shared_ptr<AllDependencies> Dependencies =
      std::make_shared<AllDependencies>();
  /// What the prelude's precompiled header was built from, when one is
  /// used: dependencies the parse itself does not read.
  std::vector<std::string> PreludeFiles;

  explicit Impl(FrontendOptions O) : Opts(std::move(O)) {
    int Color = Opts.Tools->getOptions().Color;
    Args = Opts.Tools->getParseArgs(
        Opts.InputFile, Color < 0 ? llvm::errs().has_colors() : Color == 1);
  }

  bool createInvocation() {
    // Problems with the arguments themselves (a bad -std=) print through a
    // plain engine: the real one is configured by the invocation.
    llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> ArgDiags =
        createStderrDiagnostics();
    std::shared_ptr<clang::CompilerInvocation> Inv =
        createCompilerInvocation(Args, *ArgDiags);
    if (!Inv)
      return false;
    // Clang reads the input from memory: it is read exactly once.
    Inv->getPreprocessorOpts().addRemappedFile(
        Opts.InputFile,
        llvm::MemoryBuffer::getMemBufferCopy(Opts.InputText, Opts.InputFile)
            .release());
    CI.setInvocation(std::move(Inv));
    CI.createDiagnostics(createWarningLogPrinter(CI.getDiagnosticOpts(),
                                                 Warnings, WarningFilter::None)
                             .release(),
                         /*ShouldOwnClient=*/true);
    Sink = std::make_unique<ClangDiagSink>(CI.getDiagnostics());
    Diags = std::make_unique<DiagEngine>(*Sink);
    Diags->setSourceOrder(true);
    Diags->setWarningsAsErrors(Opts.Tools->getOptions().WarningsAsErrors);
    Diags->setIgnoreWarnings(Opts.Tools->getOptions().IgnoreWarnings);
    for (const std::string &W : Opts.Tools->getOptions().Warnings) {
      if (W == "no-error") // -Wno-error undoes -Werror, for qdc's too
        Diags->setWarningsAsErrors(false);
      if (!isQdcWarningOption(W))
        continue;
      llvm::StringRef Name = W;
      if (Name.consume_front("error=")) { // as clang: on, and an error
        Diags->setWarningEnabled(DiagID::warn_stream_race, true);
        Diags->setWarningAsError(DiagID::warn_stream_race, true);
      } else if (Name.consume_front("no-error=")) {
        Diags->setWarningAsError(DiagID::warn_stream_race, false);
      } else {
        Diags->setWarningEnabled(DiagID::warn_stream_race,
                                 !Name.starts_with("no-"));
      }
    }
    return true;
  }
};

FrontendSession::FrontendSession(FrontendOptions Opts)
    : P(std::make_unique<Impl>(std::move(Opts))) {
  P->InvocationOK = P->createInvocation();
  if (!P->InvocationOK)
    P->Diags = std::make_unique<DiagEngine>(P->Fallback);
}

FrontendSession::~FrontendSession() {
  if (P->Begun)
    P->Action->EndSourceFile();
}

std::optional<kir::Module> FrontendSession::parse() {
  // The passes report after the frontend: on success, everything is sorted
  // together when the driver asks how many errors there were.
  std::optional<kir::Module> M = parseSource();
  if (!M)
    P->Diags->flush();
  return M;
}

std::optional<kir::Module> FrontendSession::parseSource() {
  if (!P->InvocationOK || P->Begun)
    return std::nullopt;
  if (P->Opts.Tools->getOptions().Verbose)
    echoCommand("parsing", P->Args);
  if (P->Opts.Tools->getOptions().PrintCommandsOnly)
    printQuotedCommand(P->Args);
  clang::CompilerInstance &CI = P->CI;
  if (!CI.createTarget())
    return std::nullopt;
  const auto &Inputs = CI.getFrontendOpts().Inputs;
  if (Inputs.size() != 1)
    return std::nullopt;
  CI.addDependencyCollector(P->Dependencies);
  usePreludePch();
  P->Action = std::make_unique<KIRAction>(*P->Sink, *P->Diags, P->Module,
                                          P->Opts.CheckDeviceCode);
  if (!P->Action->BeginSourceFile(CI, Inputs[0]))
    return std::nullopt;
  P->Begun = true;
  if (llvm::Error E = P->Action->Execute()) {
    llvm::consumeError(std::move(E));
    return std::nullopt;
  }
  if (CI.getDiagnostics().hasErrorOccurred() && !P->Module)
    return std::nullopt;
  return std::move(P->Module);
}

void FrontendSession::usePreludePch() {
  const ToolchainOptions &TO = P->Opts.Tools->getOptions();
  if (TO.PchDir.empty() || TO.PrintCommandsOnly || TO.Verbose)
    return;
  // The parse's command line without its input, its colors and the -include
  // options: the prelude's comes first, the user's after it.
  std::vector<std::string> Args;
  for (size_t I = 0; I + 1 < P->Args.size(); ++I) {
    llvm::StringRef A = P->Args[I];
    if (A == "-include" && I + 2 < P->Args.size()) {
      ++I;
      continue;
    }
    if (A != "-fcolor-diagnostics" && A != "-fno-color-diagnostics")
      Args.push_back(A.str());
  }
  std::vector<std::string> Files;
  std::string Pch = getPrecompiledHeader(TO.PchDir, "prelude", Args,
                                         ("#include <" + Prelude + ">\n").str(),
                                         buildPreludePch, &Files);
  if (Pch.empty())
    return;
  clang::PreprocessorOptions &PPO = P->CI.getPreprocessorOpts();
  auto It = llvm::find(PPO.Includes, Prelude);
  if (It == PPO.Includes.end())
    return;
  PPO.Includes.erase(It);
  PPO.ImplicitPCHInclude = Pch;
  for (std::string &F : Files)
    if (!llvm::StringRef(F).starts_with(TO.PchDir))
      P->PreludeFiles.push_back(std::move(F));
}

DiagEngine &FrontendSession::getDiags() { return *P->Diags; }

WarningLog &FrontendSession::getWarningLog() { return P->Warnings; }

std::optional<FrontendSession::GlobalDeclaration>
FrontendSession::findGlobalDeclaration(llvm::StringRef Name) const {
  if (!P->Begun || !P->CI.hasASTContext())
    return std::nullopt;
  clang::ASTContext &Ctx = P->CI.getASTContext();
  for (const clang::NamedDecl *D :
       Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name))) {
    const clang::FunctionDecl *FD = D->getAsFunction();
    if (llvm::isa<clang::NamespaceDecl>(D) ||
        (FD && frontend::hasAnnotation(FD, "qd.kernel")))
      continue;
    return GlobalDeclaration{
        frontend::SourceInfo(Ctx).getLoc(D->getLocation()),
        Ctx.getSourceManager().isInSystemHeader(D->getLocation())};
  }
  return std::nullopt;
}

unsigned FrontendSession::getNumErrors() const {
  if (!P->InvocationOK)
    return 1;
  P->Diags->flush(); // what is counted is what was printed
  return P->CI.getDiagnostics().getNumErrors();
}

std::string FrontendSession::getSummary() const {
  if (!P->InvocationOK)
    return "";
  P->Diags->flush();
  // What was printed, as clang's own line counts (after a fatal error the
  // engine still counts what it no longer prints).
  const clang::DiagnosticConsumer *Client = P->CI.getDiagnostics().getClient();
  unsigned E = Client ? Client->getNumErrors() : getNumErrors();
  unsigned W = Client ? Client->getNumWarnings() : getNumWarnings();
  std::string Counts = formatDiagnosticCounts(W, E);
  return Counts.empty() ? Counts : Counts + ".";
}

unsigned FrontendSession::getNumWarnings() const {
  if (!P->InvocationOK)
    return 0;
  P->Diags->flush();
  return P->CI.getDiagnostics().getNumWarnings();
}

const std::vector<std::string> &FrontendSession::getClangArgs() const {
  return P->Args;
}

std::vector<std::string>
FrontendSession::getDependencies(bool IncludeSystem) const {
  std::vector<std::string> Out = {P->Opts.InputFile};
  llvm::StringRef PchDir = P->Opts.Tools->getOptions().PchDir;
  // The prelude's files (all in system folders) where the parse read them:
  // first, as its -include.
  std::set<std::string> Seen;
  if (IncludeSystem)
    for (const std::string &D : P->PreludeFiles)
      if (Seen.insert(D).second)
        Out.push_back(D);
  for (const std::string &D : P->Dependencies->getDependencies())
    if (D != P->Opts.InputFile && !Seen.count(D) &&
        (PchDir.empty() || !llvm::StringRef(D).starts_with(PchDir)) &&
        (IncludeSystem || !P->Dependencies->System.count(D)))
      Out.push_back(D);
  return Out;
}
