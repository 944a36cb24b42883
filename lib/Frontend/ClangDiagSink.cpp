//===- ClangDiagSink.cpp - qdc diagnostics through Clang's engine ---------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "ClangDiagSink.h"

#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/FileManager.h"

#include "llvm/Support/ErrorHandling.h"

using namespace qdc;

static clang::DiagnosticIDs::Level toClangLevel(DiagLevel L) {
  switch (L) {
  case DiagLevel::Ignored:
    return clang::DiagnosticIDs::Ignored;
  case DiagLevel::Note:
    return clang::DiagnosticIDs::Note;
  case DiagLevel::Warning:
    return clang::DiagnosticIDs::Warning;
  case DiagLevel::Error:
    return clang::DiagnosticIDs::Error;
  }
  llvm_unreachable("unknown DiagLevel");
}

unsigned ClangDiagSink::getCustomID(const Diagnostic &D) {
  auto Key = std::make_pair(static_cast<unsigned>(D.ID),
                            static_cast<unsigned>(D.Level));
  auto It = CustomIDs.find(Key);
  if (It != CustomIDs.end())
    return It->second;
  std::string Format = getFormat(D.ID).str();
  // A warning made an error names -Werror beside its flag, as clang's do.
  size_t Flag = Format.rfind(" [-W");
  if (D.Level == DiagLevel::Error &&
      getDefaultLevel(D.ID) == DiagLevel::Warning && Flag != std::string::npos)
    Format.insert(Flag + 2, "-Werror,");
  unsigned ID =
      Engine.getDiagnosticIDs()->getCustomDiagID(toClangLevel(D.Level), Format);
  CustomIDs[Key] = ID;
  return ID;
}

clang::SourceLocation ClangDiagSink::translate(const SourceLoc &Loc) {
  if (!SM || !Loc.isValid())
    return {};
  auto [It, Inserted] = Files.try_emplace(Loc.File);
  if (Inserted)
    It->second = SM->getFileManager().getOptionalFileRef(Loc.File);
  if (!It->second)
    return {};
  return SM->translateFileLineCol(*It->second, Loc.Line, Loc.Column);
}

void ClangDiagSink::handle(const Diagnostic &D) {
  clang::DiagnosticBuilder B = Engine.Report(translate(D.Loc), getCustomID(D));
  for (const std::string &Arg : D.Args)
    B << Arg;
}
