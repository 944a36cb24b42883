//===- DynamicLibrary.h - dlopen with errors as qd::Error -------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libqdrt links no vendor library: the CUDA driver and the HIP
// runtime are opened at run time and their functions resolved by name.
//
//===----------------------------------------------------------------------===//

#ifndef QDRT_DYNAMICLIBRARY_H
#define QDRT_DYNAMICLIBRARY_H

#include <string>

namespace qd::rt {

class DynamicLibrary {
public:
  /// Opens the first of Names that loads; throws qd::Error naming them all
  /// and the loader's message otherwise.
  explicit DynamicLibrary(std::initializer_list<const char *> Names);
  /// Leaves the library loaded (see DynamicLibrary.cpp).
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;

  /// The address of Symbol; throws qd::Error when it is missing.
  void *symbol(const char *Symbol) const;
  const std::string &name() const { return Name; }

private:
  void *Library = nullptr;
  std::string Name;
};

} // namespace qd::rt

#endif // QDRT_DYNAMICLIBRARY_H
