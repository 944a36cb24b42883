//===- CodeGen.cpp - KIR to every generated artifact ----------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The order of work: the sources and the header; the device IR
// when that is all that was asked; else an image per --offload-arch, made
// by its target's hooks (PTX for NVIDIA, HSACO for AMD); native code beside
// the images whose target makes it (SASS beside PTX when ptxas is found);
// the launcher source with every image embedded; the host object. Nothing
// here depends on which targets exist.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/CodeGen.h"

#include "Compiler.h"
#include "Names.h"
#include "SourceGen.h"

#include "qdc/Support/Diagnostic.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace qdc;
using namespace qdc::codegen;

std::string qdc::getGeneratedNamespace(llvm::StringRef InputFile,
                                       llvm::StringRef Override) {
  return names::getNamespace(InputFile, Override);
}

llvm::Error qdc::checkGeneratedNamespace(llvm::StringRef Name) {
  return names::checkNamespace(Name);
}

llvm::StringRef
qdc::getDeviceSourceExtension(llvm::ArrayRef<OffloadTarget> Targets) {
  return getHooksForDeviceSource(Targets).getSourceExtension();
}

namespace {

class ArtifactBuilder {
public:
  ArtifactBuilder(const kir::Module &M, const CodeGenOptions &Opts,
                  const Toolchain &Tools)
      : M(M), Opts(Opts), Tools(Tools),
        C(Tools, Opts.InputPath, Opts.Warnings) {}

  llvm::Expected<Artifacts> run() {
    Out.DeviceSource = deviceSource(getHooksForDeviceSource(Opts.Targets));
    Out.Header = generateHeader(M, Opts.Namespace, Opts.InputPath);
    if (Opts.Stage == CodeGenStage::Check) {
      if (llvm::Error E = checkSources())
        return std::move(E);
      return std::move(Out);
    }
    if (Opts.Stage == CodeGenStage::Sources)
      return std::move(Out);
    if (Opts.Stage == CodeGenStage::DeviceIR) {
      if (llvm::Error E = buildDeviceIR())
        return std::move(E);
      return std::move(Out);
    }
    if (llvm::Error E = buildImages())
      return std::move(E);
    if (Opts.Stage == CodeGenStage::Images)
      return std::move(Out);
    if (llvm::Error E = buildNativeImages())
      return std::move(E);
    Out.LauncherSource =
        generateLauncherSource(M, Opts.Namespace, Opts.InputPath, Out.Images);
    if (Opts.Stage == CodeGenStage::Launcher)
      return std::move(Out);
    llvm::Expected<std::string> Object = C.compileHostObject(
        Out.LauncherSource, names::getMangledPrefix(Opts.Namespace));
    if (!Object)
      return explainHostFailure(Object.takeError());
    Out.Object = std::move(*Object);
    return std::move(Out);
  }

private:
  /// The parse checked the names it saw (findGlobalDeclaration); the
  /// runtime's headers bring in more of the C library's: a host compile
  /// that failed on the generated namespace says so.
  llvm::Error explainHostFailure(llvm::Error E) {
    if (!C.isLibraryName(Opts.Namespace))
      return E;
    llvm::consumeError(std::move(E));
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        formatMessage(
            getFormat(DiagID::err_namespace_is_library_name),
            {llvm::sys::path::filename(Opts.InputPath).str(), Opts.Namespace}));
  }

  /// Each compile the object would need, as -fsyntax-only: a device
  /// source per target (once per PTX target, as buildImages), then the
  /// launcher.
  llvm::Error checkSources() {
    std::vector<OffloadTarget> Done;
    for (const OffloadTarget &Asked : Opts.Targets) {
      const DeviceHooks &T = getHooksForTarget(Asked);
      OffloadTarget Target = Asked.getPtxTarget();
      if (llvm::is_contained(Done, Target))
        continue;
      Done.push_back(Target);
      if (llvm::Error E = C.checkDeviceSource(deviceSource(T), T, Target))
        return E;
    }
    std::string Launcher =
        generateLauncherSource(M, Opts.Namespace, Opts.InputPath, {});
    if (llvm::Error E = C.checkHostSource(Launcher))
      return explainHostFailure(std::move(E));
    return llvm::Error::success();
  }

  /// The device source for T, generated once.
  const std::string &deviceSource(const TargetHooks &T) {
    std::string &Source = Sources[&T];
    if (Source.empty())
      Source = generateDeviceSource(M, T, Opts.InputPath);
    return Source;
  }

  llvm::Error buildDeviceIR() {
    for (const OffloadTarget &Target : Opts.Targets) {
      const DeviceHooks &T = getHooksForTarget(Target);
      OffloadTarget Through = Target.getPtxTarget();
      llvm::Expected<std::string> IR = C.compileDevice(
          deviceSource(T), T, Through, Compiler::DeviceOutput::LLVM, "ll",
          "the LLVM IR for " + Through.getName());
      if (!IR)
        return IR.takeError();
      Out.DeviceIR.emplace_back(Target.getName(), std::move(*IR));
    }
    return llvm::Error::success();
  }

  /// An image per target; Images holds them by kind (PTX, then HSACO),
  /// each kind in --offload-arch order, as the runtime tries them. Targets
  /// newer than LLVM's share their PTX (getPtxTarget), built once.
  llvm::Error buildImages() {
    for (const OffloadTarget &Asked : Opts.Targets) {
      const DeviceHooks &T = getHooksForTarget(Asked);
      OffloadTarget Target = Asked.getPtxTarget();
      if (Target != Asked)
        NativeTargets[Target.getName()].push_back(Asked);
      if (llvm::any_of(Out.Images, [&](const DeviceImage &I) {
            return I.Arch == Target.getName();
          }))
        continue;
      llvm::Expected<std::string> Image =
          T.compileImage(C, deviceSource(T), Target);
      if (!Image)
        return Image.takeError();
      Out.Images.push_back({Target.getImageKind(), Target.getName(),
                            Target.getArchNumber(), std::move(*Image)});
    }
    llvm::stable_sort(Out.Images,
                      [](const DeviceImage &A, const DeviceImage &B) {
                        return A.Kind < B.Kind;
                      });
    return llvm::Error::success();
  }

  /// Native code beside each image whose target makes it (SASS beside
  /// PTX when ptxas is found): no JIT at load time on exactly that GPU;
  /// the portable image still serves newer ones. It follows the images it
  /// was made from, before the next kind.
  llvm::Error buildNativeImages() {
    std::vector<DeviceImage> Native;
    size_t End = 0;
    for (size_t I = 0; I < Out.Images.size(); ++I) {
      // An image's name is its target's, as parsed.
      OffloadTarget Target =
          llvm::cantFail(OffloadTarget::parse(Out.Images[I].Arch));
      const DeviceHooks &T = getHooksForTarget(Target);
      if (!T.hasNativeImages(Tools))
        continue;
      End = I + 1;
      // For the image's own target when it was asked for, and for each
      // newer target asked for whose image this is.
      std::vector<OffloadTarget> For;
      if (llvm::is_contained(Opts.Targets, Target))
        For.push_back(Target);
      for (const OffloadTarget &Newer : NativeTargets[Target.getName()])
        For.push_back(Newer);
      for (const OffloadTarget &F : For) {
        llvm::Expected<std::string> Code =
            T.assembleImage(C, Out.Images[I].Data, F);
        if (!Code)
          return Code.takeError();
        reportResources(F, C.takeToolLog());
        Native.push_back({T.getNativeImageKind(), F.getName(),
                          F.getArchNumber(), std::move(*Code)});
      }
    }
    Out.Images.insert(Out.Images.begin() + End,
                      std::make_move_iterator(Native.begin()),
                      std::make_move_iterator(Native.end()));
    if (Tools.getOptions().ResourceUsage && Native.empty())
      llvm::errs() << "qdc: warning: --resource-usage reports what ptxas "
                      "finds for NVIDIA architectures; "
                   << (llvm::any_of(Out.Images,
                                    [](const DeviceImage &I) {
                                      return I.Kind == ImageKind::PTX;
                                    })
                           ? "ptxas (the CUDA toolkit) was not found"
                           : "none is compiled for")
                   << "\n";
    return llvm::Error::success();
  }

  /// What the native assembler said of F's code: with --resource-usage,
  /// each task's registers, spills, stack and shared memory as a remark at
  /// its .qd line; with -Xptxas -v, its own lines.
  void reportResources(const OffloadTarget &F, llvm::StringRef Log) const {
    const ToolchainOptions &TO = Tools.getOptions();
    if (llvm::any_of(TO.PtxasArgs, [](const std::string &A) {
          return A == "-v" || A == "--verbose";
        }))
      llvm::errs() << Log << (Log.ends_with("\n") ? "" : "\n");
    if (!TO.ResourceUsage)
      return;
    llvm::Regex Entry("Compiling entry function '([^']+)'");
    llvm::Regex Frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill "
                      "stores, ([0-9]+) bytes spill loads");
    llvm::Regex Used("Used ([0-9]+) registers");
    llvm::Regex Shared("([0-9]+) bytes smem");
    std::string Task, Stack = "0", Stores = "0", Loads = "0";
    llvm::SmallVector<llvm::StringRef, 8> Got;
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    Log.split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      if (Entry.match(Line, &Got)) {
        Task = Got[1].str();
        Stack = Stores = Loads = "0";
      } else if (Frame.match(Line, &Got)) {
        Stack = Got[1].str(), Stores = Got[2].str(), Loads = Got[3].str();
      } else if (!Task.empty() && Used.match(Line, &Got)) {
        std::string Registers = Got[1].str();
        std::string Smem = Shared.match(Line, &Got) ? Got[1].str() : "0";
        SourceLoc Loc = findTask(Task);
        llvm::errs() << (Loc.isValid() ? Loc.File : Opts.InputPath) << ':'
                     << Loc.Line << ':' << Loc.Column << ": remark: task '"
                     << Task << "' for " << F.getName() << ": " << Registers
                     << " registers, " << Stack << " bytes stack, " << Stores
                     << " bytes spill stores, " << Loads
                     << " bytes spill loads, " << Smem
                     << " bytes shared memory\n";
        Task.clear();
      }
    }
  }
  /// Where task Name (an entry function) comes from in the .qd.
  SourceLoc findTask(llvm::StringRef Name) const {
    for (const kir::Kernel &K : M.Kernels)
      for (const kir::Task &Tk : K.Tasks)
        if (Tk.Name == Name)
          return Tk.Loc;
    return {};
  }

  const kir::Module &M;
  const CodeGenOptions &Opts;
  const Toolchain &Tools;
  Compiler C;
  Artifacts Out;
  std::map<const TargetHooks *, std::string> Sources;
  /// Per image target, the newer targets asked for whose native code is
  /// made from its image.
  std::map<std::string, std::vector<OffloadTarget>> NativeTargets;
};

} // namespace

llvm::Expected<Artifacts> qdc::emit(const kir::Module &M,
                                    const CodeGenOptions &Opts,
                                    const Toolchain &Tools) {
  return ArtifactBuilder(M, Opts, Tools).run();
}
