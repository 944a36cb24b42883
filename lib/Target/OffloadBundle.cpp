//===- OffloadBundle.cpp - HIP's fat binary, a clang offload bundle -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "qdc/Target/OffloadBundle.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <vector>

using namespace qdc;

std::string qdc::getHipBundleEntryId(llvm::StringRef Arch) {
  return "hipv4-amdgcn-amd-amdhsa--" + Arch.str();
}

std::string qdc::getHostBundleEntryId() {
  return "host-" +
         llvm::Triple(llvm::sys::getDefaultTargetTriple()).normalize();
}

std::string qdc::makeOffloadBundle(
    llvm::ArrayRef<std::pair<std::string, llvm::StringRef>> Entries,
    uint64_t Align) {
  std::string Out = "__CLANG_OFFLOAD_BUNDLE__";
  auto Put = [&](uint64_t V) {
    char Bytes[8];
    llvm::support::endian::write64le(Bytes, V);
    Out.append(Bytes, sizeof(Bytes));
  };
  // The header: the count, then each entry's offset, size, ID length, ID.
  uint64_t At = Out.size() + 8;
  for (const auto &[Id, Data] : Entries)
    At += 3 * 8 + Id.size();
  Put(Entries.size());
  std::vector<uint64_t> Offsets;
  for (const auto &[Id, Data] : Entries) {
    At = llvm::alignTo(At, Align);
    Offsets.push_back(At);
    Put(At);
    Put(Data.size());
    At += Data.size();
    Put(Id.size());
    Out += Id;
  }
  for (size_t I = 0; I < Entries.size(); ++I) {
    Out.resize(Offsets[I], '\0');
    Out += Entries[I].second;
  }
  return Out;
}
