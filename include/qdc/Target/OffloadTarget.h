//===- OffloadTarget.h - One --offload-arch, parsed once --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An --offload-arch value ("sm_90a", "gfx90a") is parsed once, in the
// driver, into an OffloadTarget, as clang parses into OffloadArch; every
// later question (which vendor, which image, which PTX it compiles through,
// what the wavefront is) is asked of it, and no other code reads the
// spelling. The vendors and image kinds are the rows of Targets.def.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_TARGET_OFFLOADTARGET_H
#define QDC_TARGET_OFFLOADTARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc {

enum class Vendor {
#define QDC_VENDOR(ENUM, PREFIX, NAME, IMAGE) ENUM,
#include "qdc/Target/Targets.def"
};

/// A device image a module embeds; the values are the ABI's
/// (qdrt_image_kind), in the order the runtime tries them.
enum class ImageKind {
  None,
#define QDC_IMAGE_KIND(ENUM, ABI_CONSTANT, EXTENSION, TEXT, SECTION, ALIGN)    \
  ENUM,
#include "qdc/Target/Targets.def"
};

/// The descriptor's constant for K ("QDRT_IMAGE_PTX").
llvm::StringRef getImageKindConstant(ImageKind K);
/// The extension of a file holding an image of kind K ("ptx").
llvm::StringRef getImageKindExtension(ImageKind K);
/// The descriptor's value for K (QDRT_IMAGE_PTX is 1): the kinds are
/// declared in the order of qdrt_image_kind's values, after None (0).
inline unsigned getImageKindNumber(ImageKind K) {
  return static_cast<unsigned>(K);
}
/// Whether images of kind K are NUL-terminated text (PTX).
bool isTextImage(ImageKind K);
/// Whether an image of kind K packs a target's images of every arch (a
/// CUDA fat binary, a clang offload bundle).
bool isPackageImage(ImageKind K);
/// The object section a package of kind K is embedded in (".nv_fatbin"),
/// and its alignment; empty and 0 for other kinds.
llvm::StringRef getImageKindSection(ImageKind K);
unsigned getImageKindAlignment(ImageKind K);

class OffloadTarget {
public:
  /// Name as an --offload-arch gives it: `sm_<N>` or `sm_<N>a` (N >= 50)
  /// for NVIDIA (nvcc's `compute_<N>` is `sm_<N>`), `gfx<alnum>` for AMD;
  /// an error naming the option otherwise.
  static llvm::Expected<OffloadTarget> parse(llvm::StringRef Name);
  /// The NVIDIA GPU of compute capability Major.Minor (sm_<Major><Minor>).
  static OffloadTarget getNvidia(unsigned Major, unsigned Minor);
  /// Whether Name is spelled as a target of vendor V ("sm_100f" is
  /// NVIDIA's, though parse takes only `a` as a feature suffix), and the
  /// number that follows the vendor's prefix (100), 0 when none does.
  static bool isSpelledAs(Vendor V, llvm::StringRef Name);
  static unsigned getSpelledNumber(Vendor V, llvm::StringRef Name);

  /// The name as the user and the tools spell it ("sm_90a").
  const std::string &getName() const { return Name; }
  Vendor getVendor() const { return V; }
  bool isNvidia() const { return V == Vendor::NVIDIA; }
  bool isAmd() const { return V == Vendor::AMD; }
  /// The vendor's name in messages ("NVIDIA").
  llvm::StringRef getVendorName() const;
  /// The image the device compile makes (PTX, HSACO); NVIDIA targets also
  /// get SASS (Cubin) from their PTX when ptxas is found.
  ImageKind getImageKind() const;

  /// NVIDIA: the SM number (90 for sm_90a) and the feature suffix ("a").
  unsigned getSmVersion() const { return Number; }
  llvm::StringRef getFeatures() const { return Features; }
  /// NVIDIA: the target LLVM's back end generates PTX for: this one, or
  /// for one newer than LLVM knows (sm_100, sm_120) the newest it knows,
  /// whose PTX ptxas turns into SASS for this one. Other vendors: itself.
  OffloadTarget getPtxTarget() const;

  /// The number the runtime's image table carries (qdrt_image::arch_number):
  /// NVIDIA's SM number (90 for sm_90a), AMD's gfx digits read as
  /// hexadecimal (0x90a for gfx90a, 0x1100 for gfx1100).
  unsigned getArchNumber() const;

  /// AMD: the ISA version of the ROCm device libraries ("90a" for
  /// gfx90a), and whether its wavefronts have 64 lanes (GCN, CDNA).
  llvm::StringRef getIsaVersion() const;
  bool hasWave64() const;

  bool operator==(const OffloadTarget &O) const { return Name == O.Name; }
  bool operator!=(const OffloadTarget &O) const { return !(*this == O); }

private:
  OffloadTarget(Vendor V, std::string Name, unsigned Number = 0,
                std::string Features = {})
      : V(V), Name(std::move(Name)), Number(Number),
        Features(std::move(Features)) {}

  Vendor V;
  std::string Name;
  unsigned Number;
  std::string Features;
};

/// Whether any of Targets is of vendor V.
bool hasVendor(llvm::ArrayRef<OffloadTarget> Targets, Vendor V);

} // namespace qdc

#endif // QDC_TARGET_OFFLOADTARGET_H
