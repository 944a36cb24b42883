//===- DynamicLibrary.cpp - dlopen with errors as qd::Error ---------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "DynamicLibrary.h"

#include "qd/runtime.h"

#include <dlfcn.h>

using namespace qd::rt;

DynamicLibrary::DynamicLibrary(std::initializer_list<const char *> Names) {
  std::string Tried, Why;
  for (const char *N : Names) {
    Library = dlopen(N, RTLD_NOW | RTLD_LOCAL);
    if (Library) {
      Name = N;
      return;
    }
    Tried += Tried.empty() ? N : std::string(", ") + N;
    const char *Msg = dlerror();
    Why = Msg ? Msg : "unknown reason";
  }
  throw qd::Error(Tried + " not found: " + Why);
}

// Vendor drivers start threads and register exit handlers of their own;
// unloading one while the process lives on crashes it at exit. The library
// stays loaded for the life of the process, as the CUDA runtime does.
DynamicLibrary::~DynamicLibrary() = default;

void *DynamicLibrary::symbol(const char *Symbol) const {
  void *Address = dlsym(Library, Symbol);
  if (!Address)
    throw qd::Error(std::string(Symbol) + " not found in " + Name);
  return Address;
}
