//===- CUDA.cpp - NVIDIA GPUs: CUDA dialect, PTX and SASS -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The whole NVIDIA pipeline: the device source in Clang's CUDA dialect,
// compiled with libdevice to PTX for the target's PTX arch (the newest LLVM
// knows, for newer GPUs), and SASS from that PTX with the CUDA toolkit's
// ptxas when it is found; an object embeds them as one fat binary made by
// the toolkit's fatbinary. A module of many entries is cut into parts, each
// a module of its own, with a fat binary each (PtxParts.h).
//
//===----------------------------------------------------------------------===//

#include "../Compiler.h"
#include "GpuHooks.h"
#include "PtxParts.h"

#include "qdc/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace qdc;
using namespace qdc::codegen;

namespace {

class CudaHooks : public GpuHooks {
public:
  CudaHooks()
      : GpuHooks("NVIDIA GPUs", "qd/detail/prelude_cuda.h", ".cu", "cuda") {}

  std::vector<std::string>
  getDeviceArgs(const Toolchain &Tools,
                const OffloadTarget &Target) const override {
    std::vector<std::string> Args = Tools.getCompileArgs();
    Args.insert(Args.end(),
                {"-x", "cuda", "--cuda-device-only",
                 "--cuda-gpu-arch=" + Target.getName(), "-nocudainc",
                 "-nocudalib", "-Wno-unknown-cuda-version"});
    // nvcc's --use_fast_math: single precision flushes denormals, and
    // prelude_cuda.h picks libdevice's approximate functions.
    if (Tools.getOptions().FastMath)
      Args.insert(Args.end(), {"-fgpu-flush-denormals-to-zero",
                               "-fgpu-approx-transcendentals"});
    // -lineinfo: line tables for the GPU code alone (-g has them already);
    // -G: no optimization and full debug information (the last -O and -g
    // count).
    if (Tools.getOptions().DeviceDebug)
      Args.insert(Args.end(), {"-O0", "-g"});
    else if (Tools.getOptions().LineInfo && !Tools.getOptions().DebugInfo)
      Args.push_back("-gline-tables-only");
    if (!Tools.getLibdevice().empty())
      Args.insert(Args.end(),
                  {"-DQD_HAVE_LIBDEVICE=1", "-Xclang", "-mlink-builtin-bitcode",
                   "-Xclang", Tools.getLibdevice()});
    return Args;
  }

  llvm::Expected<std::string>
  compileImage(const Compiler &C, const std::string &Source,
               const OffloadTarget &Target) const override {
    llvm::Expected<std::string> Ptx =
        C.compileDevice(Source, *this, Target, Compiler::DeviceOutput::Assembly,
                        "ptx", "the PTX for " + Target.getName());
    if (Ptx) {
      keepFileNamesOnOneLine(*Ptx);
      if (C.getToolchain().getOptions().DeviceDebug)
        renameDebugReferences(*Ptx);
    }
    return Ptx;
  }

  /// With full debug information (-G), LLVM 19's NVPTX back end writes the
  /// debug sections' references to globals by their IR names (`.str`,
  /// `__func__.k_t0`), after its own pass renamed those globals for PTX
  /// ('.' became "_$_"): ptxas rejects them. The references take the
  /// globals' PTX names.
  static void renameDebugReferences(std::string &Ptx) {
    for (const char *Directive : {"\n.b64 ", "\n.b32 "})
      for (size_t At = Ptx.find(Directive); At != std::string::npos;
           At = Ptx.find(Directive, At + 1)) {
        size_t Begin = At + 6, End = Ptx.find_first_of(" \t\n/", Begin);
        if (End == std::string::npos || Begin == End ||
            llvm::isDigit(Ptx[Begin]))
          continue;
        std::string Name = Ptx.substr(Begin, End - Begin), Fixed;
        for (char Ch : Name)
          Fixed += Ch == '.' ? std::string("_$_") : std::string(1, Ch);
        Ptx.replace(Begin, Name.size(), Fixed);
      }
  }

  /// With -g, the `.loc` directives' comments repeat the source's path,
  /// newlines and all (a legal folder name), which splits the line and
  /// makes ptxas reject the PTX. Each path that `.file` names (escaped
  /// there) with a newline or carriage return is written with '?' for them
  /// wherever it appears raw.
  static void keepFileNamesOnOneLine(std::string &Ptx) {
    std::vector<std::string> Paths;
    for (size_t At = Ptx.find(".file"); At != std::string::npos;
         At = Ptx.find(".file", At + 1)) {
      size_t Open = Ptx.find('"', At);
      if (Open == std::string::npos || Ptx.find('\n', At) < Open)
        continue;
      std::string Path;
      bool Odd = false;
      for (size_t I = Open + 1; I + 1 < Ptx.size() && Ptx[I] != '"'; ++I) {
        if (Ptx[I] != '\\') {
          Path += Ptx[I];
          continue;
        }
        char E = Ptx[++I];
        Odd |= E == 'n' || E == 'r';
        Path += E == 'n' ? '\n' : E == 'r' ? '\r' : E;
      }
      if (Odd)
        Paths.push_back(Path);
    }
    // The comments may name the path relative to a folder above it: each
    // tail of it that still holds the newline, longest first.
    for (const std::string &Path : Paths)
      for (size_t From = 0; From != std::string::npos;
           From = Path.find('/', From + 1)) {
        std::string Tail = Path.substr(From ? From + 1 : 0);
        if (Tail.find_first_of("\n\r") == std::string::npos)
          break;
        std::string Safe = Tail;
        std::replace(Safe.begin(), Safe.end(), '\n', '?');
        std::replace(Safe.begin(), Safe.end(), '\r', '?');
        for (size_t At = Ptx.find(Tail); At != std::string::npos;
             At = Ptx.find(Tail, At + Safe.size()))
          Ptx.replace(At, Tail.size(), Safe);
      }
  }

  bool hasNativeImages(const Toolchain &Tools) const override {
    return !Tools.getPtxas().empty();
  }
  ImageKind getNativeImageKind() const override { return ImageKind::Cubin; }

  /// ptxas's command line for In to Out, for For.
  static std::vector<std::string>
  getPtxasArgs(const Toolchain &Tools, const OffloadTarget &For,
               llvm::StringRef In, llvm::StringRef Out, bool SplitCompile) {
    const ToolchainOptions &TO = Tools.getOptions();
    std::vector<std::string> Args = {
        Tools.getPtxas(),
        "-arch=" + For.getName(),
        "-O" + std::to_string(TO.DeviceDebug ? 0 : TO.OptLevel),
        "-o",
        Out.str(),
        In.str()};
    if (TO.DeviceDebug)
      Args.push_back("-g");
    else if (TO.DebugInfo || TO.LineInfo)
      Args.push_back("-lineinfo");
    if (TO.ResourceUsage)
      Args.push_back("-v");
    // Its work is per entry function: several are optimized at once, on as
    // many threads as the machine has. The SASS records ptxas's options, so
    // the count is the same whatever --threads says: the object is the same
    // byte for byte.
    if (SplitCompile)
      Args.insert(Args.end(), {"--split-compile", "0"});
    Args.insert(Args.end(), TO.PtxasArgs.begin(), TO.PtxasArgs.end());
    return Args;
  }

  /// The PTX for Arch as Cut's parts (cutPtx), which planned it from that
  /// PTX: anything else is qdc's error.
  static llvm::Expected<std::vector<std::string>>
  cutImage(llvm::StringRef Ptx, const ModuleCut &Cut, llvm::StringRef Arch) {
    if (std::optional<std::vector<std::string>> Parts = cutPtx(Ptx, Cut))
      return std::move(*Parts);
    return makeError("the PTX for " + Arch.str() +
                     " does not fit the cut of its module (an internal "
                     "error; --ptx-part-entries=0 keeps it whole)");
  }

  /// A module of more than --ptx-part-entries entries, in parts, when
  /// nothing asks for debug information (whose sections the cut does not
  /// know).
  std::optional<ModuleCut> planCut(const Compiler &C,
                                   llvm::ArrayRef<llvm::StringRef> Ptxs,
                                   const CutRules &Rules) const override {
    const ToolchainOptions &TO = C.getToolchain().getOptions();
    if (!TO.PtxPartEntries || TO.DeviceDebug || TO.DebugInfo || TO.LineInfo)
      return std::nullopt;
    return planPtxCut(Ptxs, TO.PtxPartEntries, Rules);
  }

  /// SASS for For from PTX, with ptxas: the whole module, or with Cut each
  /// of its parts, several at once (each whole-program code, as the
  /// module's would be). A part's errors are the module's.
  llvm::Error assembleImage(const Compiler &C, const std::string &Ptx,
                            const OffloadTarget &For, const ModuleCut *Cut,
                            DeviceImage &Out) const override {
    const Toolchain &Tools = C.getToolchain();
    std::string What = "the SASS for " + For.getName();
    if (Cut) {
      llvm::Expected<std::vector<std::string>> Parts =
          cutImage(Ptx, *Cut, For.getName());
      if (!Parts)
        return Parts.takeError();
      std::vector<ToolInputs> Jobs;
      for (const std::string &P : *Parts)
        Jobs.push_back({{&P, "ptx"}});
      llvm::Expected<std::vector<std::string>> Cubins = C.runToolEach(
          Jobs, "cubin",
          [&](llvm::ArrayRef<std::string> In, llvm::StringRef O) {
            return getPtxasArgs(Tools, For, In.front(), O,
                                /*SplitCompile=*/false);
          },
          What);
      if (!Cubins)
        return Cubins.takeError();
      Out.Parts = std::move(*Cubins);
      return llvm::Error::success();
    }
    bool Split = llvm::StringRef(Ptx).count(".entry ") > 1 &&
                 Tools.ptxasAccepts("--split-compile");
    llvm::Expected<std::string> Cubin = C.runTool(
        Ptx, "ptx", "cubin",
        [&](llvm::StringRef In, llvm::StringRef O) {
          return getPtxasArgs(Tools, For, In, O, Split);
        },
        What);
    if (!Cubin)
      return Cubin.takeError();
    Out.Data = std::move(*Cubin);
    return llvm::Error::success();
  }

  /// An object embeds one CUDA fat binary, as nvcc's do, when the toolkit
  /// has fatbinary: cuobjdump, nvdisasm and Nsight read it, and the driver
  /// picks the SASS for the GPU or JIT-compiles the newest PTX it can.
  ImageKind getPackageKind(const Toolchain &Tools) const override {
    return Tools.getFatbinary().empty() ? ImageKind::None : ImageKind::Fatbin;
  }

  /// One fat binary of Images; with Cut, one a part, several at once, of
  /// each image's part.
  llvm::Error packageImages(const Compiler &C,
                            llvm::ArrayRef<const DeviceImage *> Images,
                            const ModuleCut *Cut,
                            DeviceImage &Package) const override {
    const Toolchain &Tools = C.getToolchain();
    // kind=elf (SASS) or ptx, and the arch by number and features: sm=90a.
    std::vector<std::string> Specs;
    for (const DeviceImage *I : Images) {
      llvm::Expected<OffloadTarget> Target = OffloadTarget::parse(I->Arch);
      if (!Target)
        return Target.takeError();
      Specs.push_back(std::string("--image3=kind=") +
                      (I->Kind == ImageKind::PTX ? "ptx" : "elf") +
                      ",sm=" + std::to_string(Target->getSmVersion()) +
                      Target->getFeatures().str() + ",file=");
    }
    auto Fatbinary = [&](llvm::ArrayRef<std::string> In, llvm::StringRef Out) {
      std::vector<std::string> Args = {Tools.getFatbinary(),
                                       "--create=" + Out.str(), "-64"};
      if (Tools.getOptions().DeviceDebug)
        Args.push_back("-g");
      for (size_t I = 0; I < Specs.size(); ++I)
        Args.push_back(Specs[I] + In[I]);
      return Args;
    };
    auto Extension = [](const DeviceImage *I) {
      return I->Kind == ImageKind::PTX ? "ptx" : "cubin";
    };
    if (!Cut) {
      ToolInputs Inputs;
      for (const DeviceImage *I : Images)
        Inputs.push_back({&I->Data, Extension(I)});
      llvm::Expected<std::string> Fatbin =
          C.runTool(Inputs, "fatbin", Fatbinary, "the CUDA fat binary");
      if (!Fatbin)
        return Fatbin.takeError();
      Package.Data = std::move(*Fatbin);
      return llvm::Error::success();
    }
    // Part P of each image: the PTX cut here, the SASS assembled in parts.
    size_t NumParts = Cut->Symbols.size();
    std::vector<std::vector<std::string>> PtxParts(Images.size());
    std::vector<ToolInputs> Jobs(NumParts);
    for (size_t I = 0; I < Images.size(); ++I) {
      const std::vector<std::string> *Parts = &Images[I]->Parts;
      if (Images[I]->Kind == ImageKind::PTX) {
        llvm::Expected<std::vector<std::string>> Cut1 =
            cutImage(Images[I]->Data, *Cut, Images[I]->Arch);
        if (!Cut1)
          return Cut1.takeError();
        PtxParts[I] = std::move(*Cut1);
        Parts = &PtxParts[I];
      }
      if (Parts->size() != NumParts)
        return makeError("the image for " + Images[I]->Arch + " has " +
                         std::to_string(Parts->size()) + " parts, its cut " +
                         std::to_string(NumParts) + " (an internal error)");
      for (size_t P = 0; P < NumParts; ++P)
        Jobs[P].push_back({&(*Parts)[P], Extension(Images[I])});
    }
    llvm::Expected<std::vector<std::string>> Fatbins =
        C.runToolEach(Jobs, "fatbin", Fatbinary, "the CUDA fat binary");
    if (!Fatbins)
      return Fatbins.takeError();
    Package.Parts = std::move(*Fatbins);
    Package.Cut = *Cut;
    return llvm::Error::success();
  }
};

} // namespace

const DeviceHooks &codegen::getCudaHooks() {
  static const CudaHooks Hooks;
  return Hooks;
}
