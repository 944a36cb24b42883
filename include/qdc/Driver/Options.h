//===- Options.h - The qdc command line -------------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parses the command line (DESIGN section 4) with CLI11, after
// expanding @response-files. Spellings follow clang: -fsyntax-only, -Werror,
// -std=, -I, -D, -o, -w, -v.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_DRIVER_OPTIONS_H
#define QDC_DRIVER_OPTIONS_H

#include "qdc/Toolchain/Toolchain.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace qdc {

/// What --emit asks for: the rows of OutputKinds.def.
enum class EmitKind {
#define QDC_OUTPUT_KIND(ENUM, NAME, STAGE, HELP) ENUM,
#include "qdc/Driver/OutputKinds.def"
};

struct DriverOptions {
  /// Every input, as clang takes several: each is compiled on its own,
  /// to its default outputs.
  /// The command line with its response files expanded (what the compile
  /// cache's key hashes).
  std::vector<std::string> CommandLine;
  std::vector<std::string> InputFiles;
  std::string InputFile;  ///< the input being compiled
  std::string OutputFile; ///< empty: the default for the emit kind
  std::string HeaderFile; ///< -H; empty: <stem>.qd.h beside the object
  std::string PythonFile; ///< --emit-python; empty: none
  std::string Namespace;  ///< empty: the file's stem
  /// --offload-arch, parsed (none: the CPU alone).
  std::vector<OffloadTarget> Targets = {OffloadTarget::getNvidia(8, 0)};
  /// -I, -D, -std=, -O, -g, -Werror, -w, -v: what shapes Clang command lines.
  ToolchainOptions Tools;
  bool WriteDepfile = false; ///< -MD
  bool UserDepsOnly = false; ///< -MMD, -MM: no system headers
  bool PhonyDeps = false;    ///< -MP: a phony rule per dependency
  bool DepsOnly = false;     ///< -M, -MM: the rule only, no compile
  std::string DepfilePath;   ///< -MF; empty: the object's name with .d
  std::string DepfileTarget; ///< -MT; empty: the object's name
  EmitKind Emit = EmitKind::Object;
  bool PlanAsDot = false;
  bool SyntaxOnly = false;
  bool FuseTasks = true; ///< -ffuse-tasks (the default), -fno-fuse-tasks
  /// --save-temps[=cwd|obj|<dir>] (--keep, --keep-dir <dir>): keep the
  /// intermediate files in the current folder ("cwd"), beside the object
  /// ("obj") or in a folder; empty: not kept.
  std::string SaveTemps;
  /// --cache-dir (or QDC_CACHE_DIR): where earlier compiles' outputs are
  /// kept for identical compiles; empty: no cache.
  std::string CacheDir;
  bool PrintIncludeDir = false;
  bool PrintClangdConfig = false; ///< --print-clangd-config
  /// --version: after the versions, the tools found.
  bool PrintVersion = false;
  bool PrintPasses = false;
  std::string StopAfter; ///< a pass name, or empty
};

/// Parses Args (Args[0] is the program name). Prints --help and --version
/// to Out and returns std::nullopt for them; returns an error for anything
/// the user got wrong.
llvm::Expected<std::optional<DriverOptions>>
parseOptions(llvm::ArrayRef<const char *> Args, llvm::raw_ostream &Out);

/// The --help text.
std::string getHelpText();

} // namespace qdc

#endif // QDC_DRIVER_OPTIONS_H
