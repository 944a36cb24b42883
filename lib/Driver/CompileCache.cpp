//===- CompileCache.cpp - Outputs of earlier identical compiles -----------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An entry is the folder <dir>/<first two hex digits>/<key>, holding
// `manifest` and one file per output. The manifest's lines:
//
//   qdc-cache-1
//   dep <hash of the file's text> <path>      (each file the input read)
//   out <role> <hash of the output>           (main, header, python, depfile)
//
// An entry is written in a folder of its own and renamed into place, so
// that a reader never sees half of one; `log` in the cache folder gets a
// line per lookup and store.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"

#include "qdc/Toolchain/ReusedFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <link.h>

using namespace qdc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static constexpr llvm::StringLiteral FormatLine = "qdc-cache-1";

/// The hash of Text, in hexadecimal.
static std::string hashText(llvm::StringRef Text) {
  return llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(Text)),
                     /*LowerCase=*/true);
}

/// The hash of the file at Path, or empty when it cannot be read.
static std::string hashFile(const llvm::Twine &Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  return Buf ? hashText((*Buf)->getBuffer()) : std::string();
}

namespace {
/// What a key is made of, each part ended by a NUL.
class KeyHasher {
public:
  void add(llvm::StringRef S) {
    H.update(S);
    H.update(llvm::ArrayRef<uint8_t>{0});
  }
  /// A file as installed: its path, size and modification time (what
  /// ccache takes of a compiler).
  void addStamp(llvm::StringRef Path) {
    std::string Stamp = getFileStamp(Path);
    add(Stamp.empty() ? Path.str() + " -" : Stamp);
  }
  std::string finish() { return llvm::toHex(H.final(), /*LowerCase=*/true); }

private:
  llvm::BLAKE3 H;
};
} // namespace

/// Adds the text of every file under Dir (qdc's headers, which the
/// generated code includes beside what the input does), in a stable order.
static void addTree(KeyHasher &H, llvm::StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC))
    if (I->type() == fs::file_type::regular_file)
      Files.push_back(I->path());
  llvm::sort(Files);
  for (const std::string &F : Files) {
    H.add(F);
    H.add(hashFile(F));
  }
}

/// Adds every shared library qdc runs with (LLVM's and Clang's among them):
/// an upgrade of one may change the code.
static void addLoadedLibraries(KeyHasher &H) {
  std::vector<std::string> Libraries;
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) {
        if (Info->dlpi_name && *Info->dlpi_name)
          static_cast<std::vector<std::string> *>(Data)->push_back(
              Info->dlpi_name);
        return 0;
      },
      &Libraries);
  llvm::sort(Libraries);
  for (const std::string &L : Libraries)
    H.addStamp(L);
}

std::optional<CompileCache> CompileCache::open(const DriverOptions &Opts,
                                               const OutputPaths &Paths,
                                               const Toolchain &Tools,
                                               llvm::StringRef InputText) {
  const ToolchainOptions &TO = Opts.Tools;
  if (Opts.CacheDir.empty() || Opts.Emit != EmitKind::Object ||
      Opts.SyntaxOnly || Opts.DepsOnly || !Opts.SaveTemps.empty() ||
      TO.Verbose || TO.PrintCommandsOnly || TO.ResourceUsage ||
      !TO.PtxasArgs.empty())
    return std::nullopt;
  for (const auto &[Option, Path] : Paths.list())
    if (Path == "-" || isSpecialFile(Path))
      return std::nullopt;

  KeyHasher H;
  H.add(FormatLine);
  H.add(QDC_VERSION);
  static int Anchor;
  H.addStamp(fs::getMainExecutable(nullptr, &Anchor));
  addLoadedLibraries(H);
  for (const std::string *Tool :
       {&Tools.getPtxas(), &Tools.getFatbinary(), &Tools.getLibdevice(),
        &Tools.getLld(), &Tools.getRocmBitcodeDir()})
    H.addStamp(*Tool);
  addTree(H, Tools.getPreludeDir());
  for (const std::string &A : Opts.CommandLine)
    H.add(A);
  llvm::SmallString<256> Cwd;
  if (!fs::current_path(Cwd))
    H.add(Cwd);
  // What qdc reads of its environment, and the include folders Clang
  // takes from it.
  for (const char *Var : {"CUDA_PATH", "ROCM_PATH", "CPATH", "C_INCLUDE_PATH",
                          "CPLUS_INCLUDE_PATH"}) {
    std::optional<std::string> V = llvm::sys::Process::GetEnv(Var);
    H.add(V ? *V : "-");
  }
  H.add(Opts.InputFile);
  H.add(InputText);
  std::vector<std::string> SearchDirs = {
      path::parent_path(Opts.InputFile).empty()
          ? std::string(".")
          : path::parent_path(Opts.InputFile).str()};
  for (const auto *Dirs : {&TO.IncludeDirs, &TO.SystemIncludeDirs})
    SearchDirs.insert(SearchDirs.end(), Dirs->begin(), Dirs->end());
  return CompileCache(Opts.CacheDir, H.finish(), std::move(SearchDirs));
}

std::string CompileCache::getEntryDir() const {
  llvm::SmallString<256> P(Dir);
  path::append(P, llvm::StringRef(Key).take_front(2), Key);
  return std::string(P);
}

void CompileCache::log(llvm::StringRef What) const {
  llvm::SmallString<256> P(Dir);
  path::append(P, "log");
  std::error_code EC = fs::create_directories(Dir);
  if (EC)
    return;
  llvm::raw_fd_ostream OS(P, EC, fs::OF_Append | fs::OF_Text);
  if (!EC)
    OS << What << ' ' << Key << '\n';
}

/// The outputs of a compile by role, the names of their files in an entry.
static std::vector<std::pair<llvm::StringRef, const std::string *>>
getRoles(const OutputPaths &Paths) {
  std::vector<std::pair<llvm::StringRef, const std::string *>> Roles;
  for (auto [Role, Path] :
       {std::pair<llvm::StringRef, const std::string *>{"main", &Paths.Main},
        {"header", &Paths.Header},
        {"python", &Paths.Python},
        {"depfile", &Paths.Depfile}})
    if (!Path->empty())
      Roles.push_back({Role, Path});
  return Roles;
}

bool CompileCache::restore(const OutputPaths &Paths) {
  std::string Entry = getEntryDir();
  llvm::SmallString<256> ManifestPath(Entry);
  path::append(ManifestPath, "manifest");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Manifest =
      llvm::MemoryBuffer::getFile(ManifestPath, /*IsText=*/true);
  auto Miss = [&] {
    log("miss");
    return false;
  };
  if (!Manifest)
    return Miss();
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  (*Manifest)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty() || Lines.front() != FormatLine)
    return Miss();
  llvm::StringMap<std::string> Outputs; // role -> hash
  std::vector<std::string> Deps;
  for (llvm::StringRef Line : llvm::ArrayRef(Lines).drop_front()) {
    auto [Kind, Rest] = Line.split(' ');
    auto [First, Second] = Rest.split(' ');
    if (Kind == "dep") { // dep <hash> <path>
      if (First.empty() || hashFile(Second) != First)
        return Miss();
      Deps.push_back(Second.str());
    } else if (Kind == "out") { // out <role> <hash>
      Outputs[First] = Second.str();
    } else {
      return Miss();
    }
  }
  if (mayShadowIncludes(SearchDirs, Deps))
    return Miss();
  OutputSet Set;
  std::vector<std::pair<llvm::StringRef, const std::string *>> Roles =
      getRoles(Paths);
  if (Roles.size() != Outputs.size())
    return Miss();
  for (auto [Role, Path] : Roles) {
    auto It = Outputs.find(Role);
    llvm::SmallString<256> File(Entry);
    path::append(File, Role);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
        llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (It == Outputs.end() || !Buf ||
        hashText((*Buf)->getBuffer()) != It->second)
      return Miss();
    Set.add(*Path, (*Buf)->getBuffer().str());
  }
  if (Set.commit())
    return false; // reported; the outputs are as they were
  log("hit");
  return true;
}

void CompileCache::store(const OutputPaths &Paths,
                         const std::vector<std::string> &Dependencies,
                         bool Printed) {
  if (Printed) {
    log("not-stored-printed");
    return;
  }
  std::string Manifest = FormatLine.str() + "\n";
  for (const std::string &D : Dependencies) {
    std::string Hash = hashFile(D);
    if (Hash.empty() || D.find_first_of("\n\r") != std::string::npos)
      return log("not-stored-dependency");
    Manifest += "dep " + Hash + " " + D + "\n";
  }
  // Written beside the entry, then renamed into its place.
  llvm::SmallString<256> Parent(Dir);
  path::append(Parent, llvm::StringRef(Key).take_front(2));
  llvm::SmallString<256> Tmp;
  if (fs::create_directories(Parent) ||
      fs::createUniqueDirectory(Parent + "/" + Key + ".tmp", Tmp))
    return log("not-stored-unwritable");
  auto Write = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> P(Tmp);
    path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC, fs::OF_None);
    if (!EC)
      OS << Text;
    OS.close();
    return !EC && !OS.has_error();
  };
  bool OK = true;
  for (auto [Role, Path] : getRoles(Paths)) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
        llvm::MemoryBuffer::getFile(*Path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!Buf) {
      OK = false;
      break;
    }
    OK = OK && Write(Role, (*Buf)->getBuffer());
    Manifest +=
        "out " + Role.str() + " " + hashText((*Buf)->getBuffer()) + "\n";
  }
  // The manifest last: an entry without one is a miss.
  OK = OK && Write("manifest", Manifest);
  std::string Entry = getEntryDir();
  if (OK) {
    // An entry of this key whose dependencies changed is replaced.
    fs::remove_directories(Entry);
    OK = !fs::rename(Tmp, Entry);
  }
  if (!OK) {
    fs::remove_directories(Tmp);
    return log("not-stored-unwritable");
  }
  log("stored");
}
