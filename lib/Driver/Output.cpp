//===- Output.cpp - Errors without a location, and atomic outputs ---------===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#include "Output.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace qdc;

int qdc::reportError(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "qdc") << Msg << '\n';
  return 1;
}

int qdc::writeOutput(const std::string &Path, llvm::StringRef Text) {
  if (llvm::Error E = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
        OS << Text;
        return llvm::Error::success();
      }))
    return reportError("cannot write '" + Path +
                       "': " + llvm::toString(std::move(E)));
  return 0;
}
