//===- DiagnosticTest.cpp - The diagnostic engine -------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "qdc/Support/Diagnostic.h"

#include "gtest/gtest.h"

using namespace qdc;

namespace {

TEST(DiagnosticTest, FormatSubstitutesArguments) {
  EXPECT_EQ(
      formatMessage("kernel '%0' must return 'void', not '%1'", {"k", "int"}),
      "kernel 'k' must return 'void', not 'int'");
  EXPECT_EQ(formatMessage("%1 before %0", {"a", "b"}), "b before a");
  EXPECT_EQ(formatMessage("no args", {}), "no args");
}

TEST(DiagnosticTest, TableGivesLevelsAndNames) {
  EXPECT_EQ(getDefaultLevel(DiagID::err_sp_nested), DiagLevel::Error);
  EXPECT_EQ(getDefaultLevel(DiagID::warn_sp_empty), DiagLevel::Warning);
  EXPECT_EQ(getDefaultLevel(DiagID::note_sp_first_block), DiagLevel::Note);
  EXPECT_EQ(getName(DiagID::err_sp_exclusive), "err_sp_exclusive");
}

TEST(DiagnosticTest, EveryFormatFollowsClangConventions) {
  for (unsigned I = 0; I < static_cast<unsigned>(DiagID::NumDiags); ++I) {
    llvm::StringRef F = getFormat(static_cast<DiagID>(I));
    ASSERT_FALSE(F.empty());
    EXPECT_FALSE(F.ends_with(".")) << F.str();
    // Lower-case first word, unless it names a construct (QD_..., qd::...).
    EXPECT_TRUE(islower(F[0]) || F[0] == '\'' || F.starts_with("QD_") ||
                F.starts_with("qd::"))
        << F.str();
  }
}

TEST(DiagnosticTest, EngineCountsAndForwards) {
  CollectingDiagSink Sink;
  DiagEngine Diags(Sink);
  Diags.report(DiagID::err_sp_nested, {"t.qd", 3, 5});
  Diags.report(DiagID::note_sp_enclosing_block, {"t.qd", 2, 3});
  Diags.report(DiagID::warn_sp_empty, {"t.qd", 7, 3});
  EXPECT_EQ(Diags.getNumErrors(), 1u);
  EXPECT_EQ(Diags.getNumWarnings(), 1u);
  ASSERT_EQ(Sink.Diags.size(), 3u);
  EXPECT_EQ(Sink.Diags[0].Loc.Line, 3u);
  EXPECT_EQ(Sink.Diags[1].Level, DiagLevel::Note);
}

TEST(DiagnosticTest, WerrorUpgradesWarnings) {
  CollectingDiagSink Sink;
  DiagEngine Diags(Sink);
  Diags.setWarningsAsErrors(true);
  Diags.report(DiagID::warn_sp_empty, {"t.qd", 7, 3});
  EXPECT_TRUE(Diags.hasErrors());
  ASSERT_EQ(Sink.Diags.size(), 1u);
  EXPECT_EQ(Sink.Diags[0].Level, DiagLevel::Error);
}

TEST(DiagnosticTest, IgnoredWarningTakesItsNotesAlong) {
  CollectingDiagSink Sink;
  DiagEngine Diags(Sink);
  Diags.setIgnoreWarnings(true);
  Diags.report(DiagID::warn_sp_empty, {"t.qd", 7, 3});
  Diags.report(DiagID::note_sp_first_block, {"t.qd", 2, 3}) << "k";
  Diags.report(DiagID::err_sp_nested, {"t.qd", 9, 3});
  Diags.report(DiagID::note_sp_enclosing_block, {"t.qd", 8, 3});
  ASSERT_EQ(Sink.Diags.size(), 2u);
  EXPECT_EQ(Sink.Diags[0].ID, DiagID::err_sp_nested);
  EXPECT_EQ(Sink.Diags[1].ID, DiagID::note_sp_enclosing_block);
  EXPECT_EQ(Diags.getNumWarnings(), 0u);
}

TEST(DiagnosticTest, MessageUsesArguments) {
  CollectingDiagSink Sink;
  DiagEngine Diags(Sink);
  Diags.report(DiagID::err_kernel_return_type, {"t.qd", 1, 1}) << "k"
                                                               << "int";
  ASSERT_EQ(Sink.Diags.size(), 1u);
  EXPECT_EQ(Sink.Diags[0].getMessage(),
            "kernel 'k' cannot return 'int'; kernels return 'void', a "
            "scalar type or a trivially copyable struct declared at namespace "
            "scope");
}

} // namespace
