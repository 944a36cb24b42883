//===- DynamicLibrary.cpp - dlopen with errors as qd::Error ---------------===//
//
// Part of qdc.
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

DynamicLibrary::~DynamicLibrary() {
  if (Library)
    dlclose(Library);
}

void *DynamicLibrary::symbol(const char *Symbol) const {
  void *Address = dlsym(Library, Symbol);
  if (!Address)
    throw qd::Error(std::string(Symbol) + " not found in " + Name);
  return Address;
}
