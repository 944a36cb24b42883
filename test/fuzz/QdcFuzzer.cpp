//===- QdcFuzzer.cpp - libFuzzer target for the frontend and code generation
//===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Feeds bytes to the frontend as a .qd file (in memory: the
// file is never on disk), runs every pass, and, for inputs that check
// cleanly, code generation in memory: the device sources and the header,
// and with QDC_FUZZ_FULL=1 also the images, the launcher and the object.
// A crash, a hang, a sanitizer report or an LLVM fatal error is a finding;
// diagnostics are not. utils/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/CodeGen.h"
#include "qdc/Frontend/Frontend.h"
#include "qdc/KIR/Verifier.h"
#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Transforms/Passes.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/thread.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace {
const char *Argv0 = "qdc-fuzz";

/// An LLVM fatal error is a finding: stop so libFuzzer records the input.
void onFatalError(void *, const char *Reason, bool) {
  std::fprintf(stderr, "qdc-fuzz: LLVM fatal error: %s\n", Reason);
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***Argv) {
  Argv0 = (*Argv)[0];
  llvm::install_fatal_error_handler(onFatalError);
  return 0;
}

namespace {
/// One input, as qdc runs it.
void compile(const uint8_t *Data, size_t Size) {
  static const qdc::Toolchain Tools(Argv0, qdc::ToolchainOptions{});
  qdc::FrontendOptions FOpts;
  FOpts.InputFile = "fuzz.qd";
  FOpts.InputText.assign(reinterpret_cast<const char *>(Data), Size);
  FOpts.Tools = &Tools;
  qdc::FrontendSession Session(std::move(FOpts));
  std::optional<qdc::kir::Module> M = Session.parse();
  if (!M)
    return;
  qdc::runPipeline(*M, Session.getDiags(), {}, /*ForCodeGen=*/true);
  if (Session.getNumErrors())
    return;
  if (llvm::Error E = qdc::kir::verifyModule(*M)) {
    std::fprintf(stderr, "qdc-fuzz: invalid kernel IR: %s\n",
                 llvm::toString(std::move(E)).c_str());
    std::abort();
  }
  qdc::CodeGenOptions CG;
  CG.InputPath = "fuzz.qd";
  CG.Namespace = qdc::getGeneratedNamespace("fuzz.qd", "");
  static const bool Full = std::getenv("QDC_FUZZ_FULL") != nullptr;
  CG.Stage = Full ? qdc::CodeGenStage::Object : qdc::CodeGenStage::Sources;
  llvm::Expected<qdc::Artifacts> A = qdc::emit(*M, CG, Tools);
  if (!A)
    llvm::consumeError(A.takeError()); // an error, reported: not a finding
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // On a stack as deep as qdc's own (runDriver).
  llvm::thread Worker(std::optional<unsigned>(1u << 30),
                      [&] { compile(Data, Size); });
  Worker.join();
  return 0;
}
