//===- CUDA.cpp - NVIDIA GPUs: CUDA dialect, PTX and SASS -----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The whole NVIDIA pipeline: the device source in Clang's CUDA dialect,
// compiled with libdevice to PTX for the target's PTX arch (the newest LLVM
// knows, for newer GPUs), and SASS from that PTX with the CUDA toolkit's
// ptxas when it is found.
//
//===----------------------------------------------------------------------===//

#include "../Compiler.h"
#include "GpuHooks.h"

using namespace qdc;
using namespace qdc::codegen;

namespace {

class CudaHooks : public GpuHooks {
public:
  CudaHooks() : GpuHooks("NVIDIA GPUs", "qd/detail/prelude_cuda.h", ".cu") {}

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
    if (!Tools.getLibdevice().empty())
      Args.insert(Args.end(),
                  {"-DQD_HAVE_LIBDEVICE=1", "-Xclang", "-mlink-builtin-bitcode",
                   "-Xclang", Tools.getLibdevice()});
    return Args;
  }

  llvm::Expected<std::string>
  compileImage(const Compiler &C, const std::string &Source,
               const OffloadTarget &Target) const override {
    return C.compileDevice(Source, *this, Target,
                           Compiler::DeviceOutput::Assembly, "ptx",
                           "the PTX for " + Target.getName());
  }

  bool hasNativeImages(const Toolchain &Tools) const override {
    return !Tools.getPtxas().empty();
  }
  ImageKind getNativeImageKind() const override { return ImageKind::Cubin; }

  /// SASS for For from PTX, with ptxas.
  llvm::Expected<std::string>
  assembleImage(const Compiler &C, const std::string &Ptx,
                const OffloadTarget &For) const override {
    const Toolchain &Tools = C.getToolchain();
    const ToolchainOptions &TO = Tools.getOptions();
    auto Ptxas = [&](llvm::StringRef In, llvm::StringRef Out) {
      std::vector<std::string> Args = {Tools.getPtxas(),
                                       "-arch=" + For.getName(),
                                       "-O" + std::to_string(TO.OptLevel),
                                       "-o",
                                       Out.str(),
                                       In.str()};
      if (TO.DebugInfo)
        Args.push_back("-lineinfo");
      return Args;
    };
    return C.runTool(Ptx, "ptx", "cubin", Ptxas,
                     "the SASS for " + For.getName());
  }
};

} // namespace

const DeviceHooks &codegen::getCudaHooks() {
  static const CudaHooks Hooks;
  return Hooks;
}
