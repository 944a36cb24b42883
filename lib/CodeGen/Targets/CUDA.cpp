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
// the toolkit's fatbinary. A module of many entries is assembled in parts
// (PtxParts.h).
//
//===----------------------------------------------------------------------===//

#include "../Compiler.h"
#include "GpuHooks.h"
#include "PtxParts.h"

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

  /// ptxas's command line for In to Out, for For: relocatable code (-c)
  /// for a part of a module.
  static std::vector<std::string> getPtxasArgs(const Toolchain &Tools,
                                               const OffloadTarget &For,
                                               llvm::StringRef In,
                                               llvm::StringRef Out,
                                               bool SplitCompile, bool Part) {
    const ToolchainOptions &TO = Tools.getOptions();
    std::vector<std::string> Args = {
        Tools.getPtxas(),
        "-arch=" + For.getName(),
        "-O" + std::to_string(TO.DeviceDebug ? 0 : TO.OptLevel),
        "-o",
        Out.str(),
        In.str()};
    if (Part)
      Args.push_back("-c");
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

  /// SASS for For from PTX, with ptxas: a module of more than
  /// --ptx-part-entries entries (when given) in parts joined by nvlink,
  /// where it can be cut and nothing asks for debug information; any other
  /// whole.
  llvm::Expected<std::string>
  assembleImage(const Compiler &C, const std::string &Ptx,
                const OffloadTarget &For) const override {
    const Toolchain &Tools = C.getToolchain();
    const ToolchainOptions &TO = Tools.getOptions();
    std::string What = "the SASS for " + For.getName();
    if (TO.PtxPartEntries && !TO.DeviceDebug && !TO.DebugInfo && !TO.LineInfo &&
        !Tools.getNvlink().empty())
      if (std::optional<std::vector<std::string>> Parts =
              splitPtx(Ptx, TO.PtxPartEntries))
        if (std::optional<std::string> Cubin =
                assembleParts(C, *Parts, For, What))
          return std::move(*Cubin);
    bool Split = llvm::StringRef(Ptx).count(".entry ") > 1 &&
                 Tools.ptxasAccepts("--split-compile");
    return C.runTool(
        Ptx, "ptx", "cubin",
        [&](llvm::StringRef In, llvm::StringRef Out) {
          return getPtxasArgs(Tools, For, In, Out, Split, /*Part=*/false);
        },
        What);
  }

  /// The parts assembled on their own, several at once, and joined; none
  /// when a part or the join fails (the module is then assembled whole,
  /// whose errors are those reported).
  static std::optional<std::string>
  assembleParts(const Compiler &C, llvm::ArrayRef<std::string> Parts,
                const OffloadTarget &For, const std::string &What) {
    const Toolchain &Tools = C.getToolchain();
    llvm::Expected<std::vector<std::string>> Objects = C.runToolEach(
        Parts, "ptx", "o",
        [&](llvm::StringRef In, llvm::StringRef Out) {
          return getPtxasArgs(Tools, For, In, Out, /*SplitCompile=*/false,
                              /*Part=*/true);
        },
        What);
    if (!Objects) {
      llvm::consumeError(Objects.takeError());
      return std::nullopt;
    }
    std::string PartsLog = C.takeToolLog();
    std::vector<std::pair<const std::string *, const char *>> Inputs;
    for (const std::string &O : *Objects)
      Inputs.push_back({&O, "o"});
    llvm::Expected<std::string> Cubin = C.runTool(
        Inputs, "cubin",
        [&](llvm::ArrayRef<std::string> In, llvm::StringRef Out) {
          std::vector<std::string> Args = {
              Tools.getNvlink(), "-arch=" + For.getName(), "-o", Out.str()};
          Args.insert(Args.end(), In.begin(), In.end());
          return Args;
        },
        What);
    if (!Cubin) {
      llvm::consumeError(Cubin.takeError());
      return std::nullopt;
    }
    C.prependToolLog(PartsLog);
    return std::move(*Cubin);
  }

  /// An object embeds one CUDA fat binary, as nvcc's do, when the toolkit
  /// has fatbinary: cuobjdump, nvdisasm and Nsight read it, and the driver
  /// picks the SASS for the GPU or JIT-compiles the newest PTX it can.
  ImageKind getPackageKind(const Toolchain &Tools) const override {
    return Tools.getFatbinary().empty() ? ImageKind::None : ImageKind::Fatbin;
  }

  llvm::Expected<std::string>
  packageImages(const Compiler &C,
                llvm::ArrayRef<const DeviceImage *> Images) const override {
    const Toolchain &Tools = C.getToolchain();
    std::vector<std::pair<const std::string *, const char *>> Inputs;
    for (const DeviceImage *I : Images)
      Inputs.push_back({&I->Data, I->Kind == ImageKind::PTX ? "ptx" : "cubin"});
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
    return C.runTool(Inputs, "fatbin", Fatbinary, "the CUDA fat binary");
  }
};

} // namespace

const DeviceHooks &codegen::getCudaHooks() {
  static const CudaHooks Hooks;
  return Hooks;
}
