//===- HIP.cpp - AMD GPUs: HIP dialect and HSACO --------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The whole AMD pipeline: the device source in Clang's HIP dialect,
// compiled with the ROCm device libraries (when found) to an AMDGPU object,
// linked by ld.lld into an HSACO code object per gfx arch. An object embeds
// them as one clang offload bundle, HIP's fat binary (the format of
// clang/docs/ClangOffloadBundler.rst), in the section where clang's HIP
// objects hold theirs (.hip_fatbin).
//
//===----------------------------------------------------------------------===//

#include "../Compiler.h"
#include "GpuHooks.h"
#include "qdc/Support/Error.h"
#include "qdc/Target/OffloadBundle.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace qdc;
using namespace qdc::codegen;

/// The ROCm bitcode libraries for Target in link order; empty when the
/// folder or any of them is missing.
static std::vector<std::string> getRocmBitcode(const Toolchain &Tools,
                                               const OffloadTarget &Target) {
  if (Tools.getRocmBitcodeDir().empty())
    return {};
  bool Fast = Tools.getOptions().FastMath;
  std::vector<std::string> Names = {
      "ocml.bc", "ockl.bc", "oclc_daz_opt_off.bc",
      // -ffast-math is also -ffinite-math-only, and takes a faster sqrt.
      Fast ? "oclc_unsafe_math_on.bc" : "oclc_unsafe_math_off.bc",
      Fast ? "oclc_finite_only_on.bc" : "oclc_finite_only_off.bc",
      Fast ? "oclc_correctly_rounded_sqrt_off.bc"
           : "oclc_correctly_rounded_sqrt_on.bc",
      Target.hasWave64() ? "oclc_wavefrontsize64_on.bc"
                         : "oclc_wavefrontsize64_off.bc",
      "oclc_isa_version_" + Target.getIsaVersion().str() + ".bc",
      "oclc_abi_version_500.bc"};
  std::vector<std::string> Out;
  for (const std::string &N : Names) {
    llvm::SmallString<256> Path(Tools.getRocmBitcodeDir());
    llvm::sys::path::append(Path, N);
    if (!llvm::sys::fs::exists(Path))
      return {};
    Out.push_back(std::string(Path));
  }
  return Out;
}

namespace {

class HipHooks : public GpuHooks {
public:
  HipHooks() : GpuHooks("AMD GPUs", "qd/detail/prelude_hip.h", ".hip", "hip") {}

  std::vector<std::string>
  getDeviceArgs(const Toolchain &Tools,
                const OffloadTarget &Target) const override {
    std::vector<std::string> Args = Tools.getCompileArgs();
    Args.insert(Args.end(),
                {"-x", "hip", "--cuda-device-only",
                 "--offload-arch=" + Target.getName(), "-nogpuinc", "-nogpulib",
                 // No compilation-unit ID: Clang's hashes the command line,
                 // whose temporary output path would make every HSACO
                 // differ; one image per module has no statics to tell
                 // apart.
                 "-fuse-cuid=none"});
    std::vector<std::string> Bitcode = getRocmBitcode(Tools, Target);
    if (!Bitcode.empty())
      Args.push_back("-DQD_HAVE_OCML=1");
    for (const std::string &BC : Bitcode)
      Args.insert(Args.end(),
                  {"-Xclang", "-mlink-builtin-bitcode", "-Xclang", BC});
    return Args;
  }

  llvm::Expected<std::string>
  compileImage(const Compiler &C, const std::string &Source,
               const OffloadTarget &Target) const override {
    llvm::Expected<std::string> Object =
        C.compileDevice(Source, *this, Target, Compiler::DeviceOutput::Object,
                        "o", "the object for " + Target.getName());
    if (!Object)
      return Object.takeError();
    const std::string &Lld = C.getToolchain().getLld();
    if (Lld.empty())
      return makeError("ld.lld was not found; it links the HSACO for " +
                       Target.getName());
    auto Link = [&](llvm::StringRef In, llvm::StringRef Out) {
      return std::vector<std::string>{
          Lld,       "-m", "elf64_amdgpu", "--no-undefined",
          "-shared", "-o", Out.str(),      In.str()};
    };
    return C.runTool(*Object, "o", "hsaco", Link,
                     "the HSACO for " + Target.getName());
  }

  ImageKind getPackageKind(const Toolchain &) const override {
    return ImageKind::OffloadBundle;
  }

  /// The bundle of Images as clang's HIP toolchain makes it: the empty
  /// host entry, then a `hipv4` entry per gfx arch.
  llvm::Error packageImages(const Compiler &,
                            llvm::ArrayRef<const DeviceImage *> Images,
                            const ModuleCut *,
                            DeviceImage &Package) const override {
    std::vector<std::pair<std::string, llvm::StringRef>> Entries = {
        {getHostBundleEntryId(), ""}};
    for (const DeviceImage *I : Images)
      Entries.push_back({getHipBundleEntryId(I->Arch), I->Data});
    llvm::Expected<std::string> Bundle = makeOffloadBundle(Entries);
    if (!Bundle)
      return Bundle.takeError();
    Package.Data = std::move(*Bundle);
    return llvm::Error::success();
  }
};

} // namespace

const DeviceHooks &codegen::getHipHooks() {
  static const HipHooks Hooks;
  return Hooks;
}
