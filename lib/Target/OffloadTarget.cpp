//===- OffloadTarget.cpp - One --offload-arch, parsed once ----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "qdc/Target/OffloadTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace qdc;

namespace {
struct VendorInfo {
  llvm::StringRef Prefix, Name;
  ImageKind Image;
};
struct ImageKindInfo {
  llvm::StringRef Constant, Extension;
  bool Text;
  llvm::StringRef Section;
  unsigned Alignment;
};
} // namespace

static const VendorInfo Vendors[] = {
#define QDC_VENDOR(ENUM, PREFIX, NAME, IMAGE) {PREFIX, NAME, ImageKind::IMAGE},
#include "qdc/Target/Targets.def"
};

static const ImageKindInfo ImageKinds[] = {
    {"", "", false, "", 0},
#define QDC_IMAGE_KIND(ENUM, ABI_CONSTANT, EXTENSION, TEXT, SECTION, ALIGN)    \
  {#ABI_CONSTANT, EXTENSION, TEXT, SECTION, ALIGN},
#include "qdc/Target/Targets.def"
};

static const VendorInfo &getInfo(Vendor V) {
  return Vendors[static_cast<unsigned>(V)];
}

llvm::StringRef qdc::getImageKindConstant(ImageKind K) {
  return ImageKinds[static_cast<unsigned>(K)].Constant;
}

llvm::StringRef qdc::getImageKindExtension(ImageKind K) {
  return ImageKinds[static_cast<unsigned>(K)].Extension;
}

bool qdc::isTextImage(ImageKind K) {
  return ImageKinds[static_cast<unsigned>(K)].Text;
}

bool qdc::isPackageImage(ImageKind K) {
  return !getImageKindSection(K).empty();
}

llvm::StringRef qdc::getImageKindSection(ImageKind K) {
  return ImageKinds[static_cast<unsigned>(K)].Section;
}

unsigned qdc::getImageKindAlignment(ImageKind K) {
  return ImageKinds[static_cast<unsigned>(K)].Alignment;
}

/// The newest NVIDIA architecture LLVM 19's NVPTX back end knows.
static constexpr unsigned NewestPtxSm = 90;

llvm::Expected<OffloadTarget> OffloadTarget::parse(llvm::StringRef Name) {
  // nvcc's compute_XX (PTX for XX) is sm_XX's PTX, which qdc always
  // includes.
  if (Name.starts_with("compute_"))
    return parse((getInfo(Vendor::NVIDIA).Prefix + Name.drop_front(8)).str());
  llvm::StringRef Rest = Name;
  if (Rest.consume_front(getInfo(Vendor::AMD).Prefix) && !Rest.empty() &&
      llvm::all_of(Rest, llvm::isAlnum))
    return OffloadTarget(Vendor::AMD, Name.str());
  // sm_XX, or sm_XXa (the architecture-specific features of sm_90a...).
  Rest = Name;
  unsigned Sm = 0;
  if (Rest.consume_front(getInfo(Vendor::NVIDIA).Prefix)) {
    llvm::StringRef Features = Rest.ends_with("a") ? "a" : "";
    if (!Rest.drop_back(Features.size()).getAsInteger(10, Sm) && Sm >= 50)
      return OffloadTarget(Vendor::NVIDIA, Name.str(), Sm, Features.str());
  }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "--offload-arch=" + Name +
          ": not a GPU architecture (sm_50 or newer for NVIDIA, "
          "gfxNNN for AMD)");
}

OffloadTarget OffloadTarget::getNvidia(unsigned Major, unsigned Minor) {
  unsigned Sm = Major * 10 + Minor;
  return OffloadTarget(
      Vendor::NVIDIA, getInfo(Vendor::NVIDIA).Prefix.str() + std::to_string(Sm),
      Sm);
}

bool OffloadTarget::isSpelledAs(Vendor V, llvm::StringRef Name) {
  return Name.starts_with(getInfo(V).Prefix);
}

unsigned OffloadTarget::getSpelledNumber(Vendor V, llvm::StringRef Name) {
  unsigned N = 0;
  if (!Name.consume_front(getInfo(V).Prefix) || Name.consumeInteger(10, N))
    return 0;
  return N;
}

llvm::StringRef OffloadTarget::getVendorName() const { return getInfo(V).Name; }

ImageKind OffloadTarget::getImageKind() const { return getInfo(V).Image; }

OffloadTarget OffloadTarget::getPtxTarget() const {
  if (!isNvidia() || Number <= NewestPtxSm)
    return *this;
  return getNvidia(NewestPtxSm / 10, NewestPtxSm % 10);
}

unsigned OffloadTarget::getArchNumber() const {
  unsigned N = 0;
  if (isAmd())
    getIsaVersion().getAsInteger(16, N);
  return isNvidia() ? Number : N;
}

llvm::StringRef OffloadTarget::getIsaVersion() const {
  return isAmd() ? llvm::StringRef(Name).drop_front(
                       getInfo(Vendor::AMD).Prefix.size())
                 : llvm::StringRef();
}

bool OffloadTarget::hasWave64() const {
  // GCN (gfx8) and CDNA/GCN5 (gfx9): RDNA (gfx10 and newer) runs wave32.
  llvm::StringRef Isa = getIsaVersion();
  return isAmd() && (Isa.starts_with("9") || Isa.starts_with("8"));
}

bool qdc::hasVendor(llvm::ArrayRef<OffloadTarget> Targets, Vendor V) {
  return llvm::any_of(
      Targets, [V](const OffloadTarget &T) { return T.getVendor() == V; });
}
