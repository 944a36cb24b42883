//===- ClangInvocation.cpp - Clang invocations from command lines ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The clang driver turns a command line into jobs; qdc keeps
// the first, the compile (cc1) job, and runs it in process. What the driver
// would run after it (a device link, an offload bundler) qdc does itself.
//
//===----------------------------------------------------------------------===//

#include "qdc/Toolchain/ClangInvocation.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <vector>

using namespace qdc;

llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine>
qdc::createStderrDiagnostics() {
  auto DiagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  DiagOpts->ShowColors = llvm::errs().has_colors();
  return clang::CompilerInstance::createDiagnostics(
      DiagOpts.get(),
      new clang::TextDiagnosticPrinter(llvm::errs(), DiagOpts.get()));
}

std::string qdc::formatDiagnosticCounts(unsigned W, unsigned E) {
  if (!W && !E)
    return "";
  std::string Out;
  if (W)
    Out += std::to_string(W) + (W == 1 ? " warning" : " warnings");
  if (W && E)
    Out += " and ";
  if (E)
    Out += std::to_string(E) + (E == 1 ? " error" : " errors");
  return Out + " generated";
}

void qdc::echoCommand(llvm::StringRef What, llvm::ArrayRef<std::string> Args) {
  llvm::errs() << "qdc: " << What << " with:";
  for (const std::string &A : Args)
    llvm::errs() << ' ' << A;
  llvm::errs() << '\n';
}

void qdc::printQuotedCommand(llvm::ArrayRef<std::string> Args) {
  for (const std::string &A : Args) {
    llvm::errs() << " \"";
    for (char C : A) {
      if (C == '"' || C == '\\' || C == '$')
        llvm::errs() << '\\';
      llvm::errs() << C;
    }
    llvm::errs() << '"';
  }
  llvm::errs() << '\n';
}

std::shared_ptr<clang::CompilerInvocation>
qdc::createCompilerInvocation(llvm::ArrayRef<std::string> Args,
                              clang::DiagnosticsEngine &Diags) {
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  // The driver passes the command line's colour choice on to the compile
  // it makes, as clang's does.
  Diags.getDiagnosticOptions().ShowColors =
      clang::CreateAndPopulateDiagOpts(Argv)->ShowColors;
  clang::driver::Driver TheDriver(Argv[0], llvm::sys::getDefaultTargetTriple(),
                                  Diags);
  // Generated sources are mapped into the file system, not on disk.
  TheDriver.setCheckInputsExist(false);
  std::unique_ptr<clang::driver::Compilation> C(
      TheDriver.BuildCompilation(Argv));
  if (!C || C->containsError() || C->getJobs().empty())
    return nullptr;
  const clang::driver::Command &Job = *C->getJobs().begin();
  if (llvm::StringRef(Job.getCreator().getName()) != "clang")
    return nullptr;
  llvm::ArrayRef<const char *> CC1Args = Job.getArguments();
  if (!CC1Args.empty() && llvm::StringRef(CC1Args.front()) == "-cc1")
    CC1Args = CC1Args.drop_front();
  auto Inv = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*Inv, CC1Args, Diags, Argv[0]))
    return nullptr;
  Inv->getFrontendOpts().DisableFree = false;
  return Inv;
}
