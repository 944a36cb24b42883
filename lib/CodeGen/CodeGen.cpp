//===- CodeGen.cpp - KIR to every generated artifact ----------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The order of work: the sources and the header; the device IR
// when that is all that was asked; else an image per --offload-arch, made
// by its target's hooks (PTX for sm arches, HSACO for gfx ones); SASS per
// PTX when ptxas is found; the launcher source with every image embedded;
// the host object. Nothing here depends on which targets exist.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/CodeGen.h"

#include "Compiler.h"
#include "Names.h"
#include "SourceGen.h"

#include "qdc/Support/Diagnostic.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

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

namespace {

class ArtifactBuilder {
public:
  ArtifactBuilder(const kir::Module &M, const CodeGenOptions &Opts,
                  const Toolchain &Tools)
      : M(M), Opts(Opts), Tools(Tools),
        C(Tools, Opts.InputPath, Opts.Warnings) {}

  llvm::Expected<Artifacts> run() {
    Out.DeviceSource = deviceSource(getHooksForDeviceSource(Opts.OffloadArchs));
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
    if (llvm::Error E = buildSass())
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
  /// source per arch (once per PTX arch, as buildImages), then the
  /// launcher.
  llvm::Error checkSources() {
    std::vector<std::string> Done;
    for (const std::string &Asked : Opts.OffloadArchs) {
      const TargetHooks &T = getHooksForArch(Asked);
      std::string Arch =
          T.getImageKind() == DeviceImage::PTX ? getPtxArch(Asked) : Asked;
      if (llvm::is_contained(Done, Arch))
        continue;
      Done.push_back(Arch);
      if (llvm::Error E = C.checkDeviceSource(deviceSource(T), T, Arch))
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
    for (const std::string &Arch : Opts.OffloadArchs) {
      const TargetHooks &T = getHooksForArch(Arch);
      llvm::Expected<std::string> IR = C.compileToLLVM(
          deviceSource(T), T,
          T.getImageKind() == DeviceImage::PTX ? getPtxArch(Arch) : Arch);
      if (!IR)
        return IR.takeError();
      Out.DeviceIR.emplace_back(Arch, std::move(*IR));
    }
    return llvm::Error::success();
  }

  /// The NVIDIA architecture LLVM's back end generates PTX for when asked
  /// for Arch: Arch itself, or for one newer than it knows (sm_100, sm_120)
  /// its newest, sm_90, whose PTX ptxas turns into SASS for Arch.
  static std::string getPtxArch(llvm::StringRef Arch) {
    unsigned Sm = 0;
    llvm::StringRef Number = Arch.drop_front(3);
    if (Number.ends_with("a"))
      Number = Number.drop_back();
    if (!Arch.starts_with("sm_") || Number.getAsInteger(10, Sm) ||
        Sm <= NewestPtxSm)
      return Arch.str();
    return "sm_" + std::to_string(NewestPtxSm);
  }
  static constexpr unsigned NewestPtxSm = 90;

  /// An image per arch; Images holds them by kind (PTX, then HSACO), each
  /// kind in --offload-arch order, as the runtime tries them. Archs newer
  /// than LLVM's share their PTX (getPtxArch), built once.
  llvm::Error buildImages() {
    for (const std::string &Asked : Opts.OffloadArchs) {
      const TargetHooks &T = getHooksForArch(Asked);
      std::string Arch =
          T.getImageKind() == DeviceImage::PTX ? getPtxArch(Asked) : Asked;
      if (Arch != Asked)
        SassArchs[Arch].push_back(Asked);
      if (llvm::any_of(Out.Images,
                       [&](const DeviceImage &I) { return I.Arch == Arch; }))
        continue;
      llvm::Expected<std::string> Image =
          T.compileImage(C, deviceSource(T), Arch);
      if (!Image)
        return Image.takeError();
      Out.Images.push_back({T.getImageKind(), Arch, std::move(*Image)});
    }
    llvm::stable_sort(Out.Images,
                      [](const DeviceImage &A, const DeviceImage &B) {
                        return A.ImageKind < B.ImageKind;
                      });
    NumPtx = llvm::count_if(Out.Images, [](const DeviceImage &I) {
      return I.ImageKind == DeviceImage::PTX;
    });
    return llvm::Error::success();
  }

  /// SASS beside each PTX when a CUDA toolkit is here: no JIT at load time
  /// on exactly that GPU; the PTX still serves newer ones.
  llvm::Error buildSass() {
    if (Tools.getPtxas().empty())
      return llvm::Error::success();
    std::vector<DeviceImage> Sass;
    for (size_t I = 0; I < NumPtx; ++I) {
      const DeviceImage &Ptx = Out.Images[I];
      // SASS for the PTX's own arch when it was asked for, and for each
      // newer arch asked for whose PTX this is.
      std::vector<std::string> Targets;
      if (llvm::is_contained(Opts.OffloadArchs, Ptx.Arch))
        Targets.push_back(Ptx.Arch);
      for (const std::string &Newer : SassArchs[Ptx.Arch])
        Targets.push_back(Newer);
      for (const std::string &Target : Targets) {
        llvm::Expected<std::string> Cubin = C.assemblePtx(Ptx.Data, Target);
        if (!Cubin)
          return Cubin.takeError();
        Sass.push_back({DeviceImage::Cubin, Target, std::move(*Cubin)});
      }
    }
    Out.Images.insert(Out.Images.begin() + NumPtx,
                      std::make_move_iterator(Sass.begin()),
                      std::make_move_iterator(Sass.end()));
    return llvm::Error::success();
  }

  const kir::Module &M;
  const CodeGenOptions &Opts;
  const Toolchain &Tools;
  Compiler C;
  Artifacts Out;
  std::map<const TargetHooks *, std::string> Sources;
  size_t NumPtx = 0;
  /// Per PTX arch, the newer archs asked for that get SASS from it.
  std::map<std::string, std::vector<std::string>> SassArchs;
};

} // namespace

llvm::Expected<Artifacts> qdc::emit(const kir::Module &M,
                                    const CodeGenOptions &Opts,
                                    const Toolchain &Tools) {
  return ArtifactBuilder(M, Opts, Tools).run();
}
