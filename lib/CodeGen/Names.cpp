//===- Names.cpp - The names generated code uses --------------------------===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#include "Names.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace qdc;

std::string codegen::names::getNamespace(llvm::StringRef InputFile,
                                         llvm::StringRef Override) {
  if (!Override.empty())
    return Override.str();
  std::string NS = llvm::sys::path::stem(InputFile).str();
  for (char &C : NS)
    if (!llvm::isAlnum(C))
      C = '_';
  if (NS.empty() || llvm::isDigit(NS[0]))
    NS = "_" + NS;
  return NS;
}

std::string codegen::names::getMangledPrefix(llvm::StringRef Namespace) {
  std::string Prefix = "_ZN";
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Namespace.split(Parts, "::");
  for (llvm::StringRef Part : Parts)
    Prefix += std::to_string(Part.size()) + Part.str();
  return Prefix;
}
