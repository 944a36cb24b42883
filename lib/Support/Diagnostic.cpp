//===- Diagnostic.cpp - Diagnostics with a source location ----------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "qdc/Support/Diagnostic.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <tuple>

using namespace qdc;

namespace {
struct DiagInfo {
  const char *Name;
  DiagLevel Level;
  const char *Format;
};

constexpr DiagInfo DiagTable[] = {
#define QDC_DIAG(ID, LEVEL, FORMAT) {#ID, DiagLevel::LEVEL, FORMAT},
#include "qdc/Support/Diagnostics.def"
};

const DiagInfo &getInfo(DiagID ID) {
  auto Index = static_cast<unsigned>(ID);
  assert(Index < static_cast<unsigned>(DiagID::NumDiags) && "bad DiagID");
  return DiagTable[Index];
}
} // namespace

DiagLevel qdc::getDefaultLevel(DiagID ID) { return getInfo(ID).Level; }
llvm::StringRef qdc::getFormat(DiagID ID) { return getInfo(ID).Format; }
llvm::StringRef qdc::getName(DiagID ID) { return getInfo(ID).Name; }

llvm::StringRef qdc::getLevelName(DiagLevel Level) {
  switch (Level) {
  case DiagLevel::Ignored:
    return "ignored";
  case DiagLevel::Note:
    return "note";
  case DiagLevel::Warning:
    return "warning";
  case DiagLevel::Error:
    return "error";
  }
  llvm_unreachable("unknown DiagLevel");
}

std::string qdc::formatMessage(llvm::StringRef Format,
                               llvm::ArrayRef<std::string> Args) {
  std::string Out;
  Out.reserve(Format.size());
  for (size_t I = 0, E = Format.size(); I < E; ++I) {
    char C = Format[I];
    if (C == '%' && I + 1 < E && Format[I + 1] >= '0' && Format[I + 1] <= '9') {
      unsigned Index = Format[++I] - '0';
      if (Index < Args.size())
        Out += Args[Index];
      continue;
    }
    Out += C;
  }
  return Out;
}

llvm::raw_ostream &qdc::operator<<(llvm::raw_ostream &OS,
                                   const SourceLoc &Loc) {
  if (!Loc.isValid())
    return OS << "<unknown>";
  return OS << Loc.File << ':' << Loc.Line << ':' << Loc.Column;
}

DiagSink::~DiagSink() = default;

DiagBuilder::DiagBuilder(DiagEngine &Engine, DiagID ID, SourceLoc Loc)
    : Engine(Engine), Diag{ID, getDefaultLevel(ID), std::move(Loc), {}} {}

DiagBuilder::~DiagBuilder() { Engine.emit(std::move(Diag)); }

DiagBuilder &DiagBuilder::operator<<(llvm::StringRef Arg) {
  Diag.Args.push_back(Arg.str());
  return *this;
}

DiagBuilder &DiagBuilder::operator<<(int64_t Arg) {
  Diag.Args.push_back(std::to_string(Arg));
  return *this;
}

void DiagEngine::emit(Diagnostic D) {
  if (D.Level == DiagLevel::Note) {
    // A note belongs to the diagnostic before it.
    if (LastWasIgnored)
      return;
  } else {
    if (D.Level == DiagLevel::Warning) {
      bool AsError = WarningsAsErrors;
      for (auto [ID, V] : ErrorOverrides)
        if (ID == D.ID)
          AsError = V;
      if (IgnoreWarnings || llvm::is_contained(Disabled, D.ID))
        D.Level = DiagLevel::Ignored;
      else if (AsError)
        D.Level = DiagLevel::Error;
    }
    LastWasIgnored = D.Level == DiagLevel::Ignored;
    if (LastWasIgnored)
      return;
  }
  if (D.Level == DiagLevel::Error)
    ++NumErrors;
  else if (D.Level == DiagLevel::Warning)
    ++NumWarnings;
  if (SourceOrder)
    Pending.push_back(std::move(D));
  else
    Sink.handle(D);
}

void DiagEngine::flush() {
  // Each diagnostic with its notes is one unit, placed by its location.
  struct Unit {
    size_t File;
    unsigned Line, Column;
    size_t First, End; ///< [First, End) of Pending
  };
  std::vector<std::string> Files;
  auto FileIndex = [&](const std::string &F) {
    for (size_t I = 0; I < Files.size(); ++I)
      if (Files[I] == F)
        return I;
    Files.push_back(F);
    return Files.size() - 1;
  };
  std::vector<Unit> Units;
  for (size_t I = 0; I < Pending.size(); ++I) {
    const Diagnostic &D = Pending[I];
    if (D.Level == DiagLevel::Note && !Units.empty()) {
      Units.back().End = I + 1;
      continue;
    }
    // Diagnostics without a location keep their place after those before.
    const SourceLoc &L = D.Loc;
    Unit U{L.isValid() ? FileIndex(L.File) : ~size_t(0), L.Line, L.Column, I,
           I + 1};
    if (!L.isValid() && !Units.empty())
      U = {Units.back().File, Units.back().Line, Units.back().Column, I, I + 1};
    Units.push_back(U);
  }
  std::stable_sort(Units.begin(), Units.end(),
                   [](const Unit &A, const Unit &B) {
                     return std::tie(A.File, A.Line, A.Column) <
                            std::tie(B.File, B.Line, B.Column);
                   });
  std::vector<Diagnostic> Out;
  Out.swap(Pending);
  for (const Unit &U : Units)
    for (size_t I = U.First; I < U.End; ++I)
      Sink.handle(Out[I]);
}
