//===- PtxParts.h - A large PTX module cut into parts -----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ptxas takes more than linear time in the number of entry functions of one
// module (1.46 ms an entry at 1,000, 2.08 ms at 8,000), and with
// --split-compile it keeps about 0.5 MB an entry (3.9 GB at 8,000). With
// --ptx-part-entries, a module of many entries is assembled in parts: each
// part is compiled with `ptxas -c` on its own (several at once), and nvlink
// joins the parts into one cubin, the module the runtime loads. It is not
// the default: relocatable code is slower (ptxas calls its 64-bit division
// instead of inlining it, and schedules otherwise): GEMM 1.54x and the 3-D
// convolution 1.36x of their whole-module time on an H200.
//
// A part is a complete PTX module: the header, then the top-level items it
// needs, in their order. Entries that share an item other than a
// declaration (a local function, a variable, a string) are in one part, so
// each variable stays one object; a variable of external linkage
// (`.visible`, a field or the assert record) is defined in one part and
// declared `.extern` in the others, which nvlink resolves; one of weak
// linkage (a reduction's shared array, a static of an inline function) is
// defined in each part that uses it, and nvlink keeps one. Anything the cut
// does not know (a directive other than those LLVM's NVPTX back end writes
// for qdc's code, debug sections, unbalanced text) leaves the module whole.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_CODEGEN_TARGETS_PTXPARTS_H
#define QDC_CODEGEN_TARGETS_PTXPARTS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc::codegen {

/// Ptx cut into parts of at most EntriesPerPart entry functions each
/// (entries that must stay together may make a part larger), in the order
/// of their entries; std::nullopt when it cannot be cut or is one part.
std::optional<std::vector<std::string>> splitPtx(llvm::StringRef Ptx,
                                                 unsigned EntriesPerPart);

} // namespace qdc::codegen

#endif // QDC_CODEGEN_TARGETS_PTXPARTS_H
