//===- ImageTable.h - The device images in the host object ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_IMAGETABLE_H
#define QDC_LIB_CODEGEN_IMAGETABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace qdc {
struct DeviceImage;
} // namespace qdc

namespace qdc::codegen {

/// Defines the image table the launcher declares (names::Images, an array
/// of qdrt_image, abi.h) in Mod, each image a constant of its own; an image
/// in parts as a qdrt_image_parts, a constant a part.
llvm::Error defineImages(llvm::Module &Mod,
                         llvm::ArrayRef<const DeviceImage *> Images);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_IMAGETABLE_H
