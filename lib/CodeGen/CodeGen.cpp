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

#include "llvm/ADT/STLExtras.h"

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
      : M(M), Opts(Opts), Tools(Tools), C(Tools, Opts.InputPath) {}

  llvm::Expected<Artifacts> run() {
    Out.DeviceSource = deviceSource(getHooksForDeviceSource(Opts.OffloadArchs));
    Out.Header = generateHeader(M, Opts.Namespace);
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
      return Object.takeError();
    Out.Object = std::move(*Object);
    return std::move(Out);
  }

private:
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
      llvm::Expected<std::string> IR =
          C.compileToLLVM(deviceSource(T), T, Arch);
      if (!IR)
        return IR.takeError();
      Out.DeviceIR.emplace_back(Arch, std::move(*IR));
    }
    return llvm::Error::success();
  }

  /// An image per arch; Images holds them by kind (PTX, then HSACO), each
  /// kind in --offload-arch order, as the runtime tries them.
  llvm::Error buildImages() {
    for (const std::string &Arch : Opts.OffloadArchs) {
      const TargetHooks &T = getHooksForArch(Arch);
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
      llvm::Expected<std::string> Cubin = C.assemblePtx(Ptx.Data, Ptx.Arch);
      if (!Cubin)
        return Cubin.takeError();
      Sass.push_back({DeviceImage::Cubin, Ptx.Arch, std::move(*Cubin)});
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
};

} // namespace

llvm::Expected<Artifacts> qdc::emit(const kir::Module &M,
                                    const CodeGenOptions &Opts,
                                    const Toolchain &Tools) {
  return ArtifactBuilder(M, Opts, Tools).run();
}
