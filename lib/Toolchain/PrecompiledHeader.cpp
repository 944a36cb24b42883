//===- PrecompiledHeader.cpp - Headers parsed once per command line -------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A header is built from a file of its own (the PCH names it) into a
// temporary file renamed into place, then its stamps file: the stamp of
// every file it read, one per line. A PCH without current stamps is never
// used, so a header that changed is built again, and a build killed half
// way leaves nothing that is used. The stamps end with the header's own and
// a hash of its bytes, so that a header changed or damaged since it was
// built is built again, even one damaged in place with its size and time
// kept: Clang does not check what it reads from a PCH, and a damaged one
// made a compile fail with "uleb128 too big for uint64" or never end. The
// hash is taken again only when the header's status-change time is no
// longer the one it had when it was put in place (any write changes it).
//
//===----------------------------------------------------------------------===//

#include "qdc/Toolchain/PrecompiledHeader.h"
#include "qdc/Toolchain/ReusedFiles.h"

#include "clang/Basic/Version.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <dlfcn.h>
#include <sys/stat.h>

using namespace qdc;
namespace fs = llvm::sys::fs;

/// The hash of a header's bytes (xxh3: 12 M instructions, about 3 ms, for
/// the launcher's 8 MB), or "" when it cannot be read.
static std::string getContentHash(llvm::StringRef Pch) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Bytes =
      llvm::MemoryBuffer::getFile(Pch, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Bytes)
    return "";
  return llvm::utohexstr(llvm::xxh3_64bits((*Bytes)->getBuffer()),
                         /*LowerCase=*/true);
}

/// What any write to a file's bytes or status changes, and no program can
/// set back: its device, inode and status-change time. "" when it cannot
/// be read, or when the time has no nanoseconds (a file system that keeps
/// seconds only, where a write in the same second would not show).
static std::string getChangeStamp(llvm::StringRef Path) {
  struct stat St;
  if (::stat(Path.str().c_str(), &St) != 0 || St.st_ctim.tv_nsec == 0)
    return "";
  return std::to_string(St.st_dev) + ":" + std::to_string(St.st_ino) + ":" +
         std::to_string(St.st_ctim.tv_sec) + "." +
         std::to_string(St.st_ctim.tv_nsec);
}

/// Whether the header Pch holds the bytes it was built with, by Line, the
/// last of its stamps: "content <hash> [<change stamp>]". A header whose
/// change stamp is the one recorded when it was put in place has not been
/// written since; any other is hashed.
static bool hasBuiltContent(llvm::StringRef Line, llvm::StringRef Pch) {
  llvm::SmallVector<llvm::StringRef, 3> Fields;
  Line.split(Fields, ' ', -1, /*KeepEmpty=*/false);
  if (Fields.size() < 2 || Fields.size() > 3 || Fields[0] != "content")
    return false;
  if (Fields.size() == 3 && Fields[2] == getChangeStamp(Pch))
    return true;
  return Fields[1] == getContentHash(Pch);
}

/// The files of the stamps file at StampsPath but the header Pch itself,
/// or none when one of them is not as it was, or the header's bytes are
/// not those it was built with.
static std::vector<std::string> readCurrentStamps(llvm::StringRef StampsPath,
                                                  llvm::StringRef Pch) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Stamps =
      llvm::MemoryBuffer::getFile(StampsPath, /*IsText=*/true);
  if (!Stamps)
    return {};
  llvm::SmallVector<llvm::StringRef, 128> Lines;
  (*Stamps)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty() || !hasBuiltContent(Lines.back(), Pch))
    return {};
  Lines.pop_back();
  std::vector<std::string> Files;
  for (llvm::StringRef Line : Lines) {
    llvm::StringRef Path = Line.split(' ').second.split(' ').second;
    if (Path.empty() || getFileStamp(Path) != Line)
      return {};
    if (Path != Pch)
      Files.push_back(Path.str());
  }
  return Files;
}

/// This Clang: its version and its library's stamp, found once (dladdr
/// searches the library's symbols: about 0.3 ms a call).
static const std::string &getClangStamp() {
  static const std::string Stamp = [] {
    std::string S = clang::getClangFullVersion();
    Dl_info Info;
    if (dladdr(reinterpret_cast<void *>(&clang::getClangFullVersion), &Info) &&
        Info.dli_fname)
      S += getFileStamp(Info.dli_fname);
    return S;
  }();
  return Stamp;
}

/// The key of a header: the command line without its -I folders, Name and
/// this Clang (its version, and the library's stamp for builds that share
/// a version).
static std::string getKey(llvm::StringRef Name,
                          llvm::ArrayRef<std::string> Args) {
  llvm::BLAKE3 H;
  H.update(Name);
  H.update(llvm::ArrayRef<uint8_t>{0});
  for (llvm::StringRef Part : Args) {
    H.update(Part);
    H.update(llvm::ArrayRef<uint8_t>{0});
  }
  H.update(getClangStamp());
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

std::string qdc::getPrecompiledHeader(llvm::StringRef Dir, llvm::StringRef Name,
                                      llvm::ArrayRef<std::string> AllArgs,
                                      llvm::StringRef HeaderText,
                                      PchBuilder Build,
                                      std::vector<std::string> *FilesOut,
                                      llvm::StringRef Language) {
  // Built without the user's folders, and used unless one of them holds a
  // file that an #include of the header's could find.
  std::vector<std::string> Args, UserDirs;
  for (const std::string &A : AllArgs) {
    if (llvm::StringRef(A).starts_with("-I"))
      UserDirs.push_back(A.substr(2));
    else
      Args.push_back(A);
  }
  llvm::SmallString<256> Base(Dir);
  llvm::sys::path::append(Base, getKey(Name, Args));
  std::string Pch = (Base + ".pch").str(), Stamps = (Base + ".stamps").str();
  auto Use = [&](std::vector<std::string> Files) -> std::string {
    if (mayShadowIncludes(UserDirs, Files))
      return "";
    if (FilesOut)
      *FilesOut = std::move(Files);
    return Pch;
  };
  if (std::vector<std::string> Files = readCurrentStamps(Stamps, Pch);
      !Files.empty())
    return Use(std::move(Files));
  llvm::SmallString<256> Header(Dir);
  llvm::sys::path::append(Header, "qd-" + Name + "-pch.h");
  llvm::SmallString<256> Tmp;
  if (fs::create_directories(Dir) ||
      (getFileStamp(Header).empty() &&
       llvm::writeToOutput(Header,
                           [&](llvm::raw_ostream &OS) {
                             OS << HeaderText;
                             return llvm::Error::success();
                           })) ||
      fs::createUniqueFile(Base + ".tmp-%%%%%%%%.pch", Tmp))
    return "";
  Args.insert(Args.end(), {"-x", Language.str()});
  std::vector<std::string> Files;
  bool Built = Build(Args, std::string(Header), std::string(Tmp), Files);
  std::string Lines;
  for (const std::string &File : Files)
    Lines += getFileStamp(File) + "\n";
  // The header's own stamp, then its bytes' hash and its change stamp once
  // in place, last: one changed or damaged since is built again.
  std::string Hash = Built ? getContentHash(Tmp) : "";
  if (!Built || Lines.find("\n\n") != std::string::npos || Lines.empty() ||
      Hash.empty() || fs::rename(Tmp, Pch) ||
      llvm::writeToOutput(Stamps, [&](llvm::raw_ostream &OS) {
        std::string Change = getChangeStamp(Pch);
        OS << Lines << getFileStamp(Pch) << "\ncontent " << Hash
           << (Change.empty() ? "" : " " + Change) << "\n";
        return llvm::Error::success();
      })) {
    fs::remove(Tmp);
    return "";
  }
  return Use(std::move(Files));
}

void qdc::discardPrecompiledHeader(llvm::StringRef Path) {
  if (!Path.consume_back(".pch"))
    return;
  fs::remove(Path + ".stamps");
  fs::remove(Path + ".pch");
}
