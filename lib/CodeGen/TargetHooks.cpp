//===- TargetHooks.cpp - Which target's hooks serve an --offload-arch -----===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The targets themselves are in Targets/, one file each.
//
//===----------------------------------------------------------------------===//

#include "TargetHooks.h"
#include "qdc/Support/Error.h"

#include "llvm/Support/ErrorHandling.h"

using namespace qdc;
using namespace qdc::codegen;

llvm::Error DeviceHooks::assembleImage(const Compiler &, const std::string &,
                                       const OffloadTarget &For,
                                       const ModuleCut *, DeviceImage &) const {
  return makeError("no native code is made for " + For.getName());
}

llvm::Error DeviceHooks::packageImages(const Compiler &,
                                       llvm::ArrayRef<const DeviceImage *>,
                                       const ModuleCut *, DeviceImage &) const {
  return makeError("this target's images are embedded one by one");
}

const DeviceHooks &codegen::getHooksForTarget(const OffloadTarget &Target) {
  switch (Target.getVendor()) {
  case Vendor::NVIDIA:
    return getCudaHooks();
  case Vendor::AMD:
    return getHipHooks();
  }
  llvm_unreachable("a vendor without hooks");
}

const DeviceHooks &
codegen::getHooksForDeviceSource(llvm::ArrayRef<OffloadTarget> Targets) {
  if (Targets.empty() || hasVendor(Targets, Vendor::NVIDIA))
    return getCudaHooks();
  return getHooksForTarget(Targets.front());
}
