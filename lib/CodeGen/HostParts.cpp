//===- HostParts.cpp - The host object made in two parts ------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each part goes through bitcode into an LLVM context of its own, since a
// context is used by one thread at a time. The globals with local linkage
// are named before the cut (SplitModule makes those used on both sides
// hidden globals), and after the join exactly those are made local again
// (llvm-objcopy's --localize-symbol, in this process): two objects of qdc
// linked together never share one of them.
//
//===----------------------------------------------------------------------===//

#include "HostParts.h"

#include "qdc/Support/DeepStack.h"
#include "qdc/Support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Binary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <optional>

using namespace qdc;

/// About 40 kernels of a few lines each: below it, cutting, joining and
/// the second context cost more than the second thread gains.
static constexpr size_t MinInstructions = 4000;

bool codegen::shouldEmitInParts(const llvm::Module &M) {
  size_t Instructions = 0;
  for (const llvm::Function &F : M)
    Instructions += F.getInstructionCount();
  return Instructions >= MinInstructions;
}

/// The machine code of one part, from its bitcode.
static llvm::Expected<std::string> emitPart(
    llvm::StringRef Bitcode,
    llvm::function_ref<std::unique_ptr<llvm::TargetMachine>()> MakeTarget) {
  llvm::LLVMContext Ctx;
  llvm::Expected<std::unique_ptr<llvm::Module>> Part =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(Bitcode, "host part"), Ctx);
  if (!Part)
    return Part.takeError();
  std::unique_ptr<llvm::TargetMachine> TM = MakeTarget();
  if (!TM)
    return makeError("no code generator for the host");
  (*Part)->setDataLayout(TM->createDataLayout());
  llvm::SmallString<0> Object;
  llvm::raw_svector_ostream OS(Object);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return makeError("cannot emit an object for " + (*Part)->getTargetTriple());
  PM.run(**Part);
  return std::string(Object.str());
}

/// Object with the symbols Names made local.
static llvm::Expected<std::string> localize(const std::string &Object,
                                            llvm::ArrayRef<std::string> Names) {
  llvm::objcopy::ConfigManager Config;
  for (const std::string &Name : Names)
    if (llvm::Error E = Config.Common.SymbolsToLocalize.addMatcher(
            llvm::objcopy::NameOrPattern::create(
                Name, llvm::objcopy::MatchStyle::Literal,
                [](llvm::Error E) { return E; })))
      return std::move(E);
  llvm::Expected<std::unique_ptr<llvm::object::Binary>> Binary =
      llvm::object::createBinary(llvm::MemoryBufferRef(Object, "host object"));
  if (!Binary)
    return Binary.takeError();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  if (llvm::Error E =
          llvm::objcopy::executeObjcopyOnBinary(Config, **Binary, OS))
    return std::move(E);
  OS.flush();
  return Out;
}

llvm::Expected<std::string> codegen::emitInParts(
    llvm::Module &M, unsigned Threads,
    llvm::function_ref<std::unique_ptr<llvm::TargetMachine>()> MakeTarget,
    llvm::function_ref<llvm::Expected<std::string>(const std::string &,
                                                   const std::string &)>
        Join) {
  std::vector<std::string> Local;
  unsigned Unnamed = 0;
  for (llvm::GlobalValue &GV : M.global_values()) {
    if (!GV.hasLocalLinkage())
      continue;
    if (!GV.hasName())
      GV.setName("qdc.unnamed." + llvm::Twine(Unnamed++));
    Local.push_back(GV.getName().str());
  }
  std::vector<llvm::SmallString<0>> Bitcode;
  llvm::SplitModule(
      M, 2,
      [&](std::unique_ptr<llvm::Module> Part) {
        llvm::raw_svector_ostream OS(Bitcode.emplace_back());
        llvm::WriteBitcodeToFile(*Part, OS);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/false);
  if (Bitcode.size() != 2)
    return makeError("internal error: the host module was cut in " +
                     std::to_string(Bitcode.size()) + " parts");
  std::optional<llvm::Expected<std::string>> Second;
  {
    std::optional<DeepStackThread> Worker;
    if (Threads > 1)
      Worker.emplace([&] { Second.emplace(emitPart(Bitcode[1], MakeTarget)); });
    llvm::Expected<std::string> First = emitPart(Bitcode[0], MakeTarget);
    if (Worker)
      Worker->join();
    else
      Second.emplace(emitPart(Bitcode[1], MakeTarget));
    if (!First) {
      if (!*Second)
        llvm::consumeError(Second->takeError());
      return First.takeError();
    }
    if (!*Second)
      return Second->takeError();
    llvm::Expected<std::string> Joined = Join(*First, **Second);
    if (!Joined)
      return Joined.takeError();
    return localize(*Joined, Local);
  }
}
