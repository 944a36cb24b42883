//===- Output.cpp - Errors without a location, and the files a run writes -===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//
//===----------------------------------------------------------------------===//

#include "Output.h"
#include "qdc/Support/Error.h"

#include "llvm/Support/MemoryBuffer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace qdc;
namespace fs = llvm::sys::fs;

int qdc::reportError(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "qdc") << Msg << '\n';
  return 1;
}

/// Path made absolute, its folder resolved through links when it exists: two
/// spellings of one file give one string.
static std::string getCanonicalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Abs)), Real;
  if (!fs::real_path(Dir, Real)) {
    llvm::sys::path::append(Real, llvm::sys::path::filename(Abs));
    return std::string(Real);
  }
  return std::string(Abs);
}

/// Whether A and B name one file (existing or not).
static bool isSameFile(llvm::StringRef A, llvm::StringRef B) {
  bool Same = false;
  if (fs::exists(A) && fs::exists(B) && !fs::equivalent(A, B, Same))
    return Same;
  return getCanonicalPath(A) == getCanonicalPath(B);
}

bool qdc::isSpecialFile(llvm::StringRef Path) {
  fs::file_status Status;
  return !fs::status(Path, Status) && fs::exists(Status) &&
         !fs::is_regular_file(Status) && !fs::is_directory(Status);
}

bool qdc::namesSameFile(llvm::StringRef A, llvm::StringRef B) {
  if (A == "-" || B == "-")
    return A == B;
  return !isSpecialFile(A) && isSameFile(A, B);
}

llvm::Error qdc::checkOutputPaths(
    llvm::StringRef Input,
    llvm::ArrayRef<std::pair<std::string, std::string>> Outputs) {
  auto Fail = [](const llvm::Twine &Msg) { return makeError(Msg); };
  // A device (`-o /dev/null -H /dev/null`) takes any number of writers.
  for (size_t I = 0; I < Outputs.size(); ++I) {
    const auto &[Opt, Path] = Outputs[I];
    if (Path != "-" && !Input.empty() && isSameFile(Path, Input))
      return Fail(Opt + " '" + Path + "' names the input file");
    for (size_t J = 0; J < I; ++J) {
      const auto &[OtherOpt, Other] = Outputs[J];
      if (namesSameFile(Path, Other))
        return Fail(Opt + " '" + Path + "' names the same file as " + OtherOpt +
                    " '" + Other + "'");
    }
  }
  return llvm::Error::success();
}

namespace {
/// One output being written: a temporary beside a regular file, or the file
/// itself when it is not a regular one.
struct PendingFile {
  std::string Path;
  std::string Temp; ///< empty: written directly
};
} // namespace

/// Writes Contents to the open descriptor FD (closed here); "" on success,
/// else why not.
static std::string writeAll(int FD, llvm::StringRef Contents) {
  llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << Contents;
  OS.close();
  if (OS.has_error()) {
    std::string Why = OS.error().message();
    OS.clear_error();
    return Why;
  }
  return "";
}

/// Removes every temporary of Pending.
static void discard(const std::vector<PendingFile> &Pending) {
  for (const PendingFile &P : Pending)
    if (!P.Temp.empty()) {
      fs::remove(P.Temp);
      llvm::sys::DontRemoveFileOnSignal(P.Temp);
    }
}

/// Starts writing Path: its temporary (or, for a device or FIFO, the file
/// itself) gets Contents. "" on success, else why not.
static std::string stage(const std::string &Path, llvm::StringRef Contents,
                         PendingFile &Out) {
  Out.Path = Path;
  fs::file_status Status;
  bool Special = !fs::status(Path, Status) && fs::exists(Status) &&
                 !fs::is_regular_file(Status);
  if (Special && fs::is_directory(Status))
    return "is a directory";
  // A file that already holds Contents is left as it is, its time
  // included: a generated header rewritten with the same text would
  // rebuild everything that includes it (build tools restat outputs).
  if (!Special && fs::exists(Status) && Status.getSize() == Contents.size()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Old =
        llvm::MemoryBuffer::getFile(Path);
    if (Old && (*Old)->getBuffer() == Contents)
      return "";
  }
  int FD = -1;
  if (Special) {
    if (std::error_code EC =
            fs::openFileForWrite(Path, FD, fs::CD_OpenExisting))
      return EC.message();
    return writeAll(FD, Contents);
  }
  // The temporary's name does not grow with the output's: an output name
  // of 255 bytes, the longest a file system takes, is written too.
  llvm::SmallString<256> Model(llvm::sys::path::parent_path(Path)), Temp;
  llvm::sys::path::append(Model, "qdc-tmp-%%%%%%%%");
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Temp))
    return EC.message();
  Out.Temp = std::string(Temp);
  llvm::sys::RemoveFileOnSignal(Out.Temp);
  return writeAll(FD, Contents);
}

int OutputSet::commit() {
  std::vector<PendingFile> Pending;
  const std::string *Stdout = nullptr;
  for (const auto &[Path, Contents] : Files) {
    if (Path == "-") {
      Stdout = &Contents;
      continue;
    }
    Pending.emplace_back();
    std::string Why = stage(Path, Contents, Pending.back());
    if (!Why.empty()) {
      discard(Pending);
      return reportError("cannot write '" + Path + "': " + Why);
    }
  }
  for (PendingFile &P : Pending) {
    if (P.Temp.empty())
      continue;
    if (std::error_code EC = fs::rename(P.Temp, P.Path)) {
      discard(Pending);
      return reportError("cannot write '" + P.Path + "': " + EC.message());
    }
    llvm::sys::DontRemoveFileOnSignal(P.Temp);
    P.Temp.clear();
  }
  if (Stdout) {
    llvm::outs() << *Stdout;
    llvm::outs().flush();
    if (llvm::outs().has_error()) {
      std::string Why = llvm::outs().error().message();
      llvm::outs().clear_error();
      return reportError("cannot write to standard output: " + Why);
    }
  }
  return 0;
}
