//===- EarlyHostCompileTest.cpp - A compile begun before its source ------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// lib/CodeGen's LateSource and Compiler::compileHostIR(LateSource &): a
// compile set up on one thread before another hands it its source parses
// that source (its errors at the source's own lines); one handed a source
// larger than its buffer, or none, parses nothing and says so, so that the
// caller compiles the source as usual.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "qdc/Toolchain/Toolchain.h"
#include "qdc/Toolchain/WarningLog.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>

using namespace qdc;
using namespace qdc::codegen;

namespace {

TEST(LateSourceTest, WritesWhatItIsHandedOverTheSpaces) {
  LateSource Late(16);
  std::unique_ptr<llvm::MemoryBuffer> Buffer = Late.makeBuffer("a.cpp");
  ASSERT_EQ(Buffer->getBufferSize(), 17u);
  EXPECT_EQ(Buffer->getBuffer(), std::string(16, ' ') + "\n");
  std::thread Handing([&] { Late.supply("int x;"); });
  EXPECT_TRUE(Late.fill());
  Handing.join();
  EXPECT_TRUE(Late.wasTaken());
  EXPECT_EQ(Buffer->getBuffer(), "int x;" + std::string(10, ' ') + "\n");
}

TEST(LateSourceTest, ASourceLargerThanTheBufferIsNotTaken) {
  LateSource Late(4);
  std::unique_ptr<llvm::MemoryBuffer> Buffer = Late.makeBuffer("a.cpp");
  Late.supply("int x;");
  EXPECT_FALSE(Late.fill());
  EXPECT_FALSE(Late.wasTaken());
  EXPECT_EQ(Late.getText(), "int x;");
  EXPECT_EQ(Buffer->getBuffer(), "    \n");
}

TEST(LateSourceTest, AbandonedItEndsTheWait) {
  LateSource Late(8);
  std::unique_ptr<llvm::MemoryBuffer> Buffer = Late.makeBuffer("a.cpp");
  std::thread Abandoning([&] { Late.abandon(); });
  EXPECT_FALSE(Late.fill());
  Abandoning.join();
  EXPECT_FALSE(Late.wasTaken());
}

/// The host compile of Source begun before it is handed over, as the
/// driver begins it beside the frontend's parse; what it printed goes to
/// Printed.
std::unique_ptr<HostIR> compileLate(const std::string &Source, size_t Capacity,
                                    std::string &Printed) {
  Toolchain Tools("qdc-unittests", ToolchainOptions{});
  Compiler C(Tools, "late.qd");
  LateSource Late(Capacity);
  std::unique_ptr<HostIR> Host;
  std::thread Worker(
      [&] { Host = C.compileHostIR(Late, /*SyntaxOnly=*/true); });
  Late.supply(Source);
  Worker.join();
  if (Host) {
    WarningLog Log;
    llvm::raw_string_ostream OS(Printed);
    Host->Diagnostics.replay(Log, OS);
  }
  return Host;
}

TEST(EarlyHostCompileTest, ParsesTheSourceHandedAfterItBegan) {
  std::string Printed;
  std::unique_ptr<HostIR> Host =
      compileLate("int twice(int x) { return 2 * x; }\n", 4096, Printed);
  ASSERT_TRUE(Host);
  EXPECT_FALSE(Host->Failure) << *Host->Failure;
  EXPECT_EQ(Printed, "");
}

TEST(EarlyHostCompileTest, ReportsAnErrorAtTheLineOfTheHandedSource) {
  std::string Printed;
  std::unique_ptr<HostIR> Host = compileLate(
      "int a;\n#line 7 \"late.qd\"\nint f() { return undeclared_name; }\n",
      4096, Printed);
  ASSERT_TRUE(Host);
  EXPECT_TRUE(Host->Failure);
  EXPECT_NE(Printed.find("late.qd:7:18: error: use of undeclared identifier "
                         "'undeclared_name'"),
            std::string::npos)
      << Printed;
}

TEST(EarlyHostCompileTest, ASourceThatDoesNotFitIsLeftToTheCaller) {
  std::string Printed;
  EXPECT_FALSE(compileLate("int f() { return 1; }\n", 8, Printed));
  EXPECT_EQ(Printed, "");
}

} // namespace
