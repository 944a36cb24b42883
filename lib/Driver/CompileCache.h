//===- CompileCache.h - Outputs of earlier identical compiles ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qdc's own compile cache (--cache-dir, QDC_CACHE_DIR), what ccache's direct
// mode is to a C++ compiler: ccache cannot hold a qdc compile, which writes
// an object and a header. An entry is found by a hash of what the compile
// is given (the command, the folder it runs in, the input's text, qdc and
// the tools it found); it holds the files the input read, each with the
// hash of its text, and the outputs. A later compile with the same key
// whose dependencies all still hash the same gets the outputs without
// parsing anything, unless a file has appeared in one of the user's include
// folders that an #include could find before the one it read. Only
// compiles that printed nothing are stored, so that a hit, which prints
// nothing, loses no warning. An entry that does not read back whole is a
// miss: the cache can cost a compile, never give a wrong output. Private to
// lib/Driver.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_DRIVER_COMPILECACHE_H
#define QDC_LIB_DRIVER_COMPILECACHE_H

#include "Outputs.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc {

class CompileCache {
public:
  /// The cache entry of this compile, or none when Opts asks for no cache
  /// or for a compile it does not hold (anything but objects written to
  /// files, --save-temps, -v, -dryrun, --resource-usage, -Xptxas).
  static std::optional<CompileCache> open(const DriverOptions &Opts,
                                          const OutputPaths &Paths,
                                          const Toolchain &Tools,
                                          llvm::StringRef InputText);

  /// Writes the outputs of an earlier identical compile to Paths; false
  /// (nothing written) when there is none.
  bool restore(const OutputPaths &Paths);

  /// Stores the outputs just written to Paths with the files the input
  /// read (Dependencies); Printed: whether the compile printed anything,
  /// when nothing is stored.
  void store(const OutputPaths &Paths,
             const std::vector<std::string> &Dependencies, bool Printed);

private:
  CompileCache(std::string Dir, std::string Key,
               std::vector<std::string> SearchDirs)
      : Dir(std::move(Dir)), Key(std::move(Key)),
        SearchDirs(std::move(SearchDirs)) {}
  std::string getEntryDir() const;
  /// Appends "<what> <key>" to the cache's log.
  void log(llvm::StringRef What) const;

  std::string Dir;
  std::string Key;
  /// The folders an #include of the input searches that the user chose
  /// (the input's own, -I, -isystem): a file that appears in one of them
  /// after a compile was stored may be what an #include finds now.
  std::vector<std::string> SearchDirs;
};

} // namespace qdc

#endif // QDC_LIB_DRIVER_COMPILECACHE_H
