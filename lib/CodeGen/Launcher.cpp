//===- Launcher.cpp - The host translation unit ---------------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The launcher translation unit holds, after the .qd rewritten
// for the CPU: the module descriptor (the ABI tables of <qd/abi.h>, written
// with designated initializers so the C++ compiler checks every field), one
// launcher function per kernel, and a handle per field.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "Names.h"
#include "SourceGen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace qdc;
using namespace qdc::codegen;
using namespace qdc::kir;

namespace {

std::string getFieldHandleType(const Field &F) {
  std::string Out = "qd::Field<" + getElemSpelling(F.Elem, F.ElemRecord);
  for (int64_t D : F.Shape)
    Out += ", " + std::to_string(D);
  return Out + ">";
}

/// The kernel-scalar member K returns (K.ReturnsScalarSlot).
std::string returnedScalarMember(const Kernel &K) {
  auto [Id, I] = *K.ReturnLocal;
  return names::scalarMember(K.findStmt(Id)->Vars[I], Id);
}

/// `name` when Count is not 0, else `nullptr`.
std::string tableOrNull(llvm::StringRef Name, size_t Count) {
  return Count ? Name.str() : "nullptr";
}

class DescriptorEmitter {
public:
  DescriptorEmitter(const Module &M, llvm::raw_ostream &OS) : M(M), OS(OS) {}

  void emit(llvm::StringRef Namespace, llvm::ArrayRef<DeviceImage> Images) {
    unsigned NumTasks = 0, MaxGroups = 0;
    for (const Kernel &K : M.Kernels) {
      NumTasks += K.Tasks.size();
      MaxGroups = std::max(MaxGroups, K.NumGroups);
    }
    emitTasks(NumTasks, !Images.empty());
    emitKernels();
    emitFields();
    if (M.UsesAsserts)
      OS << "const qdrt_field_desc qd_assert_desc_ = {.name = \""
         << names::AssertRecord << "\", .bytes = sizeof(qdrt_assert_record), "
         << ".host_data = &" << names::AssertRecord << "};\n";
    OS << "const qdrt_module_desc " << names::Descriptor << " = {"
       << ".abi_version = QDRT_ABI_VERSION, .name = \"" << Namespace
       << "\", .images = " << tableOrNull(names::Images, Images.size())
       << ", .num_images = " << Images.size()
       << ", .tasks = " << tableOrNull(names::Tasks, NumTasks)
       << ", .num_tasks = " << NumTasks
       << ", .kernels = " << tableOrNull(names::Kernels, M.Kernels.size())
       << ", .num_kernels = " << M.Kernels.size()
       << ", .fields = " << tableOrNull(names::Fields, M.Fields.size())
       << ", .num_fields = " << M.Fields.size()
       << ", .max_groups = " << MaxGroups << ", .assert_record = "
       << (M.UsesAsserts ? "&qd_assert_desc_" : "nullptr") << "};\n";
  }

private:
  /// The task table; WithDevice: the images have the latency versions.
  void emitTasks(unsigned NumTasks, bool WithDevice) {
    if (!NumTasks)
      return;
    std::vector<size_t> Fills = emitFills();
    OS << "const qdrt_task_desc " << names::Tasks << "[] = {\n";
    unsigned Index = 0;
    for (const Kernel &K : M.Kernels)
      for (const Task &Tk : K.Tasks)
        OS << "  {.name = \"" << Tk.Name << "\", .group = " << Tk.Group
           << ", .block_dim = "
           << (Tk.Kind == TaskKind::Serial ? 1 : Tk.BlockDim) << ", .cpu_fn = &"
           << names::qualified(K.Scope, Tk.Name) << ", .cpu_trip = "
           << (Tk.DeviceBounds
                   ? "&" + names::qualified(K.Scope, names::tripFunction(Tk))
                   : std::string("nullptr"))
           << ", .cpu_threads = " << Tk.CpuThreads << ", .latency_name = "
           << (WithDevice && names::hasLatencyEntry(Tk)
                   ? "\"" + names::latencyEntry(Tk) + "\""
                   : std::string("nullptr"))
           << getFlagsField(K, Tk, WithDevice) << getFillsField(Fills, Index++)
           << (WithDevice && names::hasNarrowEntry(K, Tk)
                   ? ", .narrow_name = \"" + names::narrowEntry(Tk) +
                         "\", .narrow_grid = &" +
                         names::qualified(K.Scope,
                                          names::narrowGridFunction(Tk))
                   : std::string())
           << "},\n";
    OS << "};\n";
  }

  /// The task's `.flags`, or nothing where it has none.
  static std::string getFlagsField(const Kernel &K, const Task &Tk,
                                   bool WithDevice) {
    std::string Flags;
    auto Add = [&](llvm::StringRef Flag) {
      Flags += (Flags.empty() ? ", .flags = " : " | ") + Flag.str();
    };
    if (!Tk.BlockShape.empty())
      Add("QDRT_TASK_TILED");
    if (WithDevice && names::runsNarrowAlways(K, Tk))
      Add("QDRT_TASK_NARROW_ALWAYS");
    // Every GPU entry starts with QD_GRID_WAIT_ (GpuHooks::emitEntry).
    if (WithDevice)
      Add("QDRT_TASK_GRID_WAIT");
    return Flags;
  }

  /// The scalar fills of each serial task that only sets kernel scalars to
  /// constants (kir::getScalarFills): qd_fills_<task index>_[]. Returns
  /// the number of fills of each task of the table.
  std::vector<size_t> emitFills() {
    std::vector<size_t> Counts;
    for (const Kernel &K : M.Kernels)
      for (const Task &Tk : K.Tasks) {
        auto Fills = getScalarFills(K, Tk);
        Counts.push_back(Fills.size());
        if (Fills.empty())
          continue;
        std::string Scalars =
            names::qualified(K.Scope, names::scalarsStruct(K));
        OS << "const qdrt_scalar_fill qd_fills_" << Counts.size() - 1
           << "_[] = {\n";
        for (auto [Id, I] : Fills) {
          const LocalVar &V = K.findStmt(Id)->Vars[I];
          OS << "  {.offset = __builtin_offsetof(" << Scalars << ", "
             << names::scalarMember(V, Id) << "), .bytes = sizeof(" << V.Type
             << "), .bits = 0x"
             << llvm::utohexstr(*V.ConstantBits, /*LowerCase=*/true)
             << "ull},\n";
        }
        OS << "};\n";
      }
    return Counts;
  }

  /// `, .fills = ..., .num_fills = N` for task Index, or nothing.
  static std::string getFillsField(llvm::ArrayRef<size_t> Fills,
                                   unsigned Index) {
    if (!Fills[Index])
      return "";
    return ", .fills = qd_fills_" + std::to_string(Index) +
           "_, .num_fills = " + std::to_string(Fills[Index]);
  }

  /// Each kernel's do_while loops: qd_loops_<kernel index>_[].
  void emitLoops() {
    for (size_t KI = 0; KI < M.Kernels.size(); ++KI) {
      const Kernel &K = M.Kernels[KI];
      if (K.Loops.empty())
        continue;
      std::string Args = names::qualified(K.Scope, names::argsStruct(K));
      OS << "const qdrt_graph_loop qd_loops_" << KI << "_[] = {\n";
      for (const GraphLoop &L : K.Loops) {
        const Stmt *S = K.findStmt(L.StmtId);
        OS << "  {.first_task = " << L.FirstTask
           << ", .num_tasks = " << L.NumTasks;
        if (S->FlagIsField)
          OS << ", .flag_field = " << getFieldIndex(S->Flag)
             << ", .flag_offset = 0";
        else
          OS << ", .flag_field = QDRT_FLAG_IN_ARGS, .flag_offset = "
             << "__builtin_offsetof(" << Args << ", " << S->Flag << ")";
        OS << "},\n";
      }
      OS << "};\n";
    }
  }

  unsigned getFieldIndex(llvm::StringRef QualifiedName) const {
    for (size_t I = 0; I < M.Fields.size(); ++I)
      if (M.Fields[I].getQualifiedName() == QualifiedName)
        return I;
    llvm_unreachable("a do_while flag names a field of the module");
  }

  void emitKernels() {
    if (M.Kernels.empty())
      return;
    emitLoops();
    OS << "const qdrt_kernel_desc " << names::Kernels << "[] = {\n";
    unsigned First = 0;
    for (const Kernel &K : M.Kernels) {
      std::string Args = names::qualified(K.Scope, names::argsStruct(K));
      std::string Scalars = names::qualified(K.Scope, names::scalarsStruct(K));
      OS << "  {.name = \"" << K.Name << "\", .first_task = " << First
         << ", .num_tasks = " << K.Tasks.size()
         << ", .num_groups = " << K.NumGroups << ", .arg_size = "
         << (K.hasArgBlock() ? "sizeof(" + Args + ")" : std::string("0"));
      if (K.hasScalars())
        OS << ", .scalars_size = sizeof(" << Scalars
           << "), .scalars_offset = __builtin_offsetof(" << Args << ", "
           << names::Scalars << ")";
      // The returned kernel scalar's own slot, or the one the last task
      // stores the returned value in.
      if (K.ReturnStmt)
        OS << ", .result_offset = __builtin_offsetof(" << Scalars << ", "
           << (K.ReturnsScalarSlot ? returnedScalarMember(K)
                                   : names::Return.str())
           << "), .result_size = sizeof(" << K.ReturnType << ")";
      if (K.IsGraph)
        OS << ", .flags = QDRT_KERNEL_GRAPH";
      if (!K.Loops.empty())
        OS << ", .loops = qd_loops_" << (&K - M.Kernels.data())
           << "_, .num_loops = " << K.Loops.size();
      OS << "},\n";
      First += K.Tasks.size();
    }
    OS << "};\n";
  }

  void emitFields() {
    if (M.Fields.empty())
      return;
    OS << "const qdrt_field_desc " << names::Fields << "[] = {\n";
    for (const Field &F : M.Fields) {
      std::string Name = names::qualified(F.Scope, F.Name);
      OS << "  {.name = \"" << F.Symbol << "\", .bytes = sizeof(" << Name
         << "), .host_data = &" << Name << "},\n";
    }
    OS << "};\n";
  }

  const Module &M;
  llvm::raw_ostream &OS;
};

/// `<return type> name(<params>, qd::Launch qd_launch_[ = {}])`.
std::string getLauncherSignature(const Kernel &K, bool Defaults) {
  std::string Out = (K.ReturnStmt ? K.ReturnType : "void") + " " + K.Name + "(";
  for (const Param &P : K.Params) {
    std::string Ty = getParamType(P, /*Host=*/true);
    bool Attached = llvm::StringRef(Ty).ends_with("&") ||
                    llvm::StringRef(Ty).ends_with("*");
    Out += Ty + (Attached ? "" : " ") + P.Name + ", ";
  }
  return Out + "qd::Launch " + names::Launch.str() + (Defaults ? " = {}" : "") +
         ")";
}

/// How each group of K uses each ndarray parameter: bit 0 read, bit 1
/// written (atomics included).
std::map<std::string, std::map<unsigned, unsigned>>
getGroupParamUses(const Kernel &K) {
  std::map<std::string, std::map<unsigned, unsigned>> Uses;
  for (const Stmt &Top : K.Body)
    if (Top.Kind == StmtKind::Block)
      for (const Stmt &S : Top.Body)
        for (const MemoryAccess &A : S.Memory)
          if (A.On == MemoryAccess::Param)
            Uses[A.Name][Top.Group] |= A.Write ? 2u : 1u;
  return Uses;
}

/// Rule 6 at launch: two distinct ndarray parameters used by different
/// groups, one writing, must not share memory (two views of one buffer).
void emitOverlapChecks(const Kernel &K, llvm::raw_ostream &OS) {
  if (K.NumGroups < 2)
    return;
  auto Uses = getGroupParamUses(K);
  auto Describe = [](const std::string &Name, unsigned Group, unsigned Use) {
    return "'" + Name + "' (group " + std::to_string(Group) +
           ((Use & 2) ? ", written)" : ", read)");
  };
  for (size_t I = 0; I < K.Params.size(); ++I)
    for (size_t J = I + 1; J < K.Params.size(); ++J) {
      const Param &P = K.Params[I], &Q = K.Params[J];
      if (P.Kind != ParamKind::Ndarray || Q.Kind != ParamKind::Ndarray)
        continue;
      // The first pair of groups, one writing, that could race.
      std::string What;
      for (auto [GP, UP] : Uses[P.Name])
        for (auto [GQ, UQ] : Uses[Q.Name])
          if (What.empty() && GP != GQ && ((UP | UQ) & 2))
            What = "parameters " + Describe(P.Name, GP, UP) + " and " +
                   Describe(Q.Name, GQ, UQ);
      if (What.empty())
        continue;
      OS << "  qd::detail::check_group_overlap(" << names::Args << '.' << P.Name
         << ", " << names::Args << '.' << Q.Name << ", \"" << K.Name << "\", \""
         << What << "\");\n";
    }
}

/// QD_NOALIAS at launch: no two ndarray parameters may share memory.
void emitNoAliasChecks(const Kernel &K, llvm::raw_ostream &OS) {
  if (!K.NoAlias)
    return;
  for (size_t I = 0; I < K.Params.size(); ++I)
    for (size_t J = I + 1; J < K.Params.size(); ++J) {
      const Param &P = K.Params[I], &Q = K.Params[J];
      if (P.Kind == ParamKind::Ndarray && Q.Kind == ParamKind::Ndarray)
        OS << "  qd::detail::check_noalias(" << names::Args << '.' << P.Name
           << ", " << names::Args << '.' << Q.Name << ", \"" << K.Name
           << "\", \"" << P.Name << "\", \"" << Q.Name << "\");\n";
    }
}

// The ABI layer of a launcher: what any front (the C++ API below, a
// binding) writes between receiving the arguments, named as K's
// parameters, and returning: the argument block, the trip counts, the
// launch-time checks and the qdrt_launch call.

/// Fills the argument block `qd_args_` from the parameters.
void emitArgBlock(const Kernel &K, llvm::raw_ostream &OS) {
  if (!K.hasArgBlock())
    return;
  OS << "  " << names::qualified(K.Scope, names::argsStruct(K)) << ' '
     << names::Args << "{};\n";
  for (const Param &P : K.Params)
    OS << "  " << names::Args << '.' << P.Name << " = "
       << (P.Kind == ParamKind::Ndarray
               ? "qd::detail::to_kernel(" + P.Name + ", \"kernel '" +
                     (K.Scope.empty() ? K.Name : K.Scope + "::" + K.Name) +
                     "', argument '" + P.Name + "'\")"
               : P.Name)
       << ";\n";
  if (K.UsesRandom)
    OS << "  " << names::Args << '.' << names::RandomKey
       << " = qd::detail::next_random_key();\n";
}

/// Each task's trip count into `qd_n_`, with the shareable locals its
/// bounds use.
void emitTripCounts(const Kernel &K, const SourceText &Src,
                    llvm::raw_ostream &OS) {
  if (!K.Tasks.empty())
    OS << "  uint64_t " << names::Count << '[' << K.Tasks.size() << "];\n";
  for (size_t I = 0; I < K.Tasks.size(); ++I) {
    const Task &Tk = K.Tasks[I];
    OS << "  {\n";
    for (const Stmt *L : getVisibleLocals(K, Tk))
      OS << Src.snippet(L->Range);
    OS << "    " << names::Count << '[' << I << "] = ";
    // A fused task's block covers its parts.
    if (Tk.Kind == TaskKind::Serial || Tk.Kind == TaskKind::Fused)
      OS << "1";
    if (Tk.DeviceBounds)
      OS << "QDRT_DEVICE_TRIP";
    else
      OS << getTripCount(Tk);
    OS << ";\n  }\n";
  }
}

/// Every ndarray argument of a known device must be on the call's (DESIGN
/// section 3.3).
void emitDeviceChecks(const Kernel &K, llvm::raw_ostream &OS) {
  bool First = true;
  for (const Param &P : K.Params) {
    if (P.Kind != ParamKind::Ndarray)
      continue;
    if (First)
      OS << "  const int qd_device_ = qd::detail::launch_device("
         << names::Launch << ");\n";
    First = false;
    OS << "  qd::detail::check_array_device(" << P.Name
       << ".device(), qd_device_, \"" << K.Name << "\", \"" << P.Name
       << "\");\n";
  }
}

/// The checks of the arrays at launch, and the qdrt_launch call (with the
/// kernel's return value into `qd_ret_`).
void emitLaunchCall(const Kernel &K, unsigned KernelIndex,
                    llvm::raw_ostream &OS) {
  // An empty array (default-constructed, moved-from) never reaches a task
  // with iterations to run.
  if (!K.Tasks.empty())
    for (const Param &P : K.Params)
      if (P.Kind == ParamKind::Ndarray)
        OS << "  qd::detail::check_launch_array(" << names::Args << '.'
           << P.Name << ".ptr, \"" << K.Name << "\", \"" << P.Name << "\", "
           << names::Count << ", " << K.Tasks.size() << ");\n";
  emitOverlapChecks(K, OS);
  emitNoAliasChecks(K, OS);
  emitDeviceChecks(K, OS);
  if (K.ReturnStmt)
    OS << "  " << K.ReturnType << ' ' << names::Return << "{};\n";
  OS << "  qd::detail::check(qdrt_launch" << (K.ReturnStmt ? "_result" : "")
     << "(" << names::Module << "(), " << KernelIndex << ", "
     << (K.hasArgBlock() ? "&" + names::Args.str() : "nullptr") << ", "
     << (K.Tasks.empty() ? "nullptr" : names::Count.str()) << ", "
     << names::Launch << ".device, " << names::Launch << ".stream"
     << (K.ReturnStmt ? ", &" + names::Return.str() : "") << "));\n";
}

/// One launcher of the C++ API: K's signature in its namespace around the
/// ABI layer.
void emitLauncher(const Kernel &K, unsigned KernelIndex, const SourceText &Src,
                  llvm::raw_ostream &OS) {
  OS << '\n';
  NamespaceEmitter Scope(OS, K.Scope);
  OS << getLauncherSignature(K, /*Defaults=*/false) << " {\n";
  // The kernel's bounds and locals are written in its own namespace.
  if (!K.Scope.empty())
    OS << "  using namespace ::" << K.Scope << ";\n";
  emitArgBlock(K, OS);
  emitTripCounts(K, Src, OS);
  emitLaunchCall(K, KernelIndex, OS);
  if (K.ReturnStmt)
    OS << "  return " << names::Return << ";\n";
  OS << "}\n";
}

} // namespace

std::string
codegen::generateLauncherSource(const Module &M, llvm::StringRef Namespace,
                                llvm::StringRef InputPath,
                                llvm::ArrayRef<DeviceImage> Images) {
  const TargetHooks &Cpu = getCpuHooks();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << Cpu.getBanner(M.SourceFile) << rewriteModule(M, Cpu, InputPath);

  // From here on the code is qdc's alone (the launchers' range and return
  // expressions are the user's, as the parse saw them): it draws no
  // warnings, so that -Werror stays about the user's code.
  OS << "\n#ifdef __clang__\n#pragma clang diagnostic ignored "
        "\"-Weverything\"\n#endif\n"
     << "#line 1 \"<qdc module descriptor>\"\n";
  // The image table is defined in the object, not here: the host code
  // compiles while the images are built (Compiler::emitHostObject).
  if (!Images.empty()) {
    OS << "// The GPU images, defined in the object by qdc:\n";
    for (const DeviceImage &Image : Images)
      OS << "//   {.kind = " << getImageKindConstant(Image.Kind)
         << ", .arch_number = " << Image.ArchNumber << ", .arch = \""
         << Image.Arch << "\"},\n";
    OS << "extern \"C\" const qdrt_image " << names::Images << '['
       << Images.size() << "];\n";
  }
  {
    ScopeEmitter Anonymous(OS, "namespace {\n", "} // namespace\n\n");
    DescriptorEmitter(M, OS).emit(Namespace, Images);
  }

  {
    NamespaceEmitter Generated(OS, Namespace);
    // Out of line: a launcher that inlined it would reference the
    // descriptor, whose task table names every CPU task, and LLVM's call
    // graph walks that table once per launcher (quadratic in kernels).
    OS << "[[gnu::noinline]] qdrt_module *" << names::Module << "() {\n"
       << "  static qdrt_module *const m = qd::detail::register_module("
       << names::Descriptor << ");\n  return m;\n}\n";
    SourceText Src(M.Source, InputPath);
    unsigned KernelIndex = 0;
    for (const Kernel &K : M.Kernels)
      emitLauncher(K, KernelIndex++, Src, OS);
    for (size_t I = 0; I < M.Fields.size(); ++I) {
      NamespaceEmitter Scope(OS, M.Fields[I].Scope);
      OS << getFieldHandleType(M.Fields[I]) << ' ' << M.Fields[I].Name << "{&"
         << names::Module << ", " << I << "};\n";
    }
  }
  return Out;
}

/// The macro that marks a copied struct definition as present:
/// QD_RECORD_<scope and name, '::' as '__'>_.
static std::string getRecordGuard(const Record &R) {
  std::string Name = R.getQualifiedName();
  std::string Guard = "QD_RECORD_";
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Name.compare(I, 2, "::") == 0) {
      Guard += "__";
      ++I;
      continue;
    }
    Guard += Name[I];
  }
  return Guard + "_";
}

/// FNV-1a of Text with every run of white space read as one space: two
/// copies of one definition, laid out differently, hash alike.
static uint32_t hashIgnoringSpace(llvm::StringRef Text) {
  uint32_t H = 2166136261u;
  bool InSpace = false;
  for (char C : Text.trim()) {
    bool Space = llvm::isSpace(C);
    if (Space && InSpace)
      continue;
    InSpace = Space;
    H = (H ^ uint8_t(Space ? ' ' : C)) * 16777619u;
  }
  return H;
}

/// The user structs the header's declarations use: an include of the
/// header that defines one, or a copy of its definition from the .qd (in
/// its namespaces). A struct that host code shares with several .qd files
/// belongs in a header they all include.
static void emitRecords(const Module &M, llvm::raw_ostream &OS) {
  std::vector<std::string> Included;
  for (const Record &R : M.Records) {
    if (!R.Header.empty()) {
      if (llvm::is_contained(Included, R.Header))
        continue;
      Included.push_back(R.Header);
      OS << "#include \"" << R.Header << "\"\n\n";
      continue;
    }
    if (!R.Definition.isValid())
      continue;
    // Two .qd files may both define the struct (each gets a copy in its
    // header): a macro named after it lets the first copy stand and the
    // second go; one that holds another definition's hash is an error at
    // the include, not a redefinition deep in the second header.
    llvm::StringRef Text =
        llvm::StringRef(M.Source).slice(R.Definition.Begin, R.Definition.End);
    std::string Guard = getRecordGuard(R);
    uint32_t Hash = hashIgnoringSpace(Text);
    OS << "#ifndef " << Guard << "\n#define " << Guard << ' ' << Hash
       << "\n";
    {
      NamespaceEmitter Scope(OS, R.Scope);
      OS << "// " << M.SourceFile << ", as the kernels see it.\n"
         << Text << ";\n";
    }
    OS << "#elif " << Guard << " != " << Hash << "\n#error \"struct "
       << R.getQualifiedName() << " of " << M.SourceFile
       << " is defined differently by another .qd file whose header is "
          "included before: define it once, in a header both .qd files "
          "include\"\n#endif\n\n";
  }
}

std::string codegen::generateHeader(const Module &M, llvm::StringRef Namespace,
                                    llvm::StringRef InputPath) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  // The source's full path lets tools (qdc-lsp) go from a declaration
  // below to its line in the .qd.
  llvm::SmallString<256> Source(InputPath);
  llvm::sys::fs::make_absolute(Source);
  llvm::sys::path::remove_dots(Source, /*remove_dot_dot=*/true);
  OS << "// Generated by qdc from " << M.SourceFile << "; do not edit.\n"
     << "#pragma once\n// Source: " << escapeForLiteral(Source)
     << "\n\n#include <qd/runtime.h>\n\n";
  emitRecords(M, OS);
  {
    NamespaceEmitter Generated(OS, Namespace);
    OS << '\n';
    for (const Kernel &K : M.Kernels) {
      {
        NamespaceEmitter Scope(OS, K.Scope);
        OS << "/// Kernel '" << K.Name << "' (" << M.SourceFile << ':'
           << K.Loc.Line << "): " << K.Tasks.size()
           << (K.Tasks.size() == 1 ? " task" : " tasks");
        if (K.NumGroups)
          OS << " in " << K.NumGroups << " stream-parallel groups";
        OS << ".\n" << getLauncherSignature(K, /*Defaults=*/true) << ";\n";
      }
      OS << '\n';
    }
    for (const Field &F : M.Fields) {
      {
        NamespaceEmitter Scope(OS, F.Scope);
        OS << "/// Field '" << F.getQualifiedName() << "' (" << M.SourceFile
           << ':' << F.Loc.Line << ").\nextern " << getFieldHandleType(F) << ' '
           << F.Name << ";\n";
      }
      OS << '\n';
    }
    OS << "/// The module of " << M.SourceFile
       << ", registered with libqdrt on first use.\nqdrt_module *"
       << names::Module << "();\n\n";
  }
  return Out;
}
