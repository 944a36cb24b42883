//===- Diagnostic.cpp - Diagnostics with a source location ----------------===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#include "qdc/Support/Diagnostic.h"

#include "llvm/Support/ErrorHandling.h"

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
      if (IgnoreWarnings)
        D.Level = DiagLevel::Ignored;
      else if (WarningsAsErrors)
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
  Sink.handle(D);
}
