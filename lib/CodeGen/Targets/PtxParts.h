//===- PtxParts.h - A large PTX module cut into modules of its own -*- C++
//-*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ptxas takes more than linear time in the number of entry functions of one
// module (1.46 ms an entry at 1,000, 2.08 ms at 8,000), and with
// --split-compile it keeps about 0.5 MB an entry (3.9 GB at 8,000). A module
// of more than --ptx-part-entries entries is cut into parts, each a complete
// module of its own: ptxas assembles each whole (whole-program code, as the
// module's), several at once, and the runtime loads each part as a module,
// finding each entry and field in the part that defines it (abi.h,
// QDRT_IMAGE_FATBIN_PARTS).
//
// A part is the header, then the top-level items it needs, in their order.
// Entries that share an item other than a declaration (a local function, a
// variable, a string, a field) are in one part, so that each variable stays
// one object; a weak `.shared` array (a reduction's) is per block wherever
// it is, and a string literal is constant: each is defined in each part
// that uses it; an extern declaration
// goes where it is used; a variable the rules name (the assert record,
// CutRules) is defined in every part, each part's own, and joins nothing.
// The cut is planned from every architecture's PTX of one source, so that
// each part defines the same entries and variables for all of them (one fat
// binary a part). Anything
// the cut does not know (a directive other than those LLVM's NVPTX back end
// writes for qdc's code, debug sections, unbalanced text) leaves the module
// whole.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_CODEGEN_TARGETS_PTXPARTS_H
#define QDC_CODEGEN_TARGETS_PTXPARTS_H

#include "qdc/CodeGen/CodeGen.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc::codegen {

/// The cut of the module whose PTX for each architecture is Ptxs into parts
/// of at most EntriesPerPart entry functions each (entries that must stay
/// together may make a part larger), in the order of their entries;
/// std::nullopt when one of them cannot be cut or the module is one part.
std::optional<ModuleCut> planPtxCut(llvm::ArrayRef<llvm::StringRef> Ptxs,
                                    unsigned EntriesPerPart,
                                    const CutRules &Rules = {});

/// Ptx, one of the PTX planPtxCut planned Cut from, as Cut's parts: a
/// complete module each; std::nullopt when it does not fit the cut.
std::optional<std::vector<std::string>> cutPtx(llvm::StringRef Ptx,
                                               const ModuleCut &Cut);

} // namespace qdc::codegen

#endif // QDC_CODEGEN_TARGETS_PTXPARTS_H
