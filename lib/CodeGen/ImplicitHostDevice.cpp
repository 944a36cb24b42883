//===- ImplicitHostDevice.cpp - User functions callable on the device -----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A preprocessor callback follows which file the parser is in:
// entering a user header pushes Clang's "force host and device" state (what
// `#pragma clang force_cuda_host_device begin` does), entering a system
// header pops it, and returning restores the state of the file returned to.
//
//===----------------------------------------------------------------------===//

#include "ImplicitHostDevice.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaCUDA.h"

using namespace qdc;
using namespace qdc::codegen;

namespace {

class UserFileTracker : public clang::PPCallbacks {
public:
  explicit UserFileTracker(clang::CompilerInstance &CI) : CI(CI) {}

  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind FileType,
                   clang::FileID) override {
    if (Reason != EnterFile && Reason != ExitFile)
      return;
    // Sema exists before the parser enters the main file.
    if (!CI.hasSema())
      return;
    const clang::SourceManager &SM = CI.getSourceManager();
    bool User = FileType == clang::SrcMgr::C_User &&
                SM.getFileID(SM.getExpansionLoc(Loc)) != SM.getMainFileID();
    if (User == Forced)
      return;
    clang::SemaCUDA &Cuda = CI.getSema().CUDA();
    if (User)
      Cuda.PushForceHostDevice();
    else
      Cuda.PopForceHostDevice();
    Forced = User;
  }

private:
  clang::CompilerInstance &CI;
  bool Forced = false;
};

class ImplicitHostDeviceAction : public clang::WrapperFrontendAction {
public:
  using WrapperFrontendAction::WrapperFrontendAction;

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override {
    if (CI.getLangOpts().CUDA)
      CI.getPreprocessor().addPPCallbacks(
          std::make_unique<UserFileTracker>(CI));
    return WrapperFrontendAction::BeginSourceFileAction(CI);
  }
};

} // namespace

std::unique_ptr<clang::FrontendAction>
codegen::withImplicitHostDevice(std::unique_ptr<clang::FrontendAction> Inner) {
  return std::make_unique<ImplicitHostDeviceAction>(std::move(Inner));
}
