//===- SourceGen.cpp - KIR to generated C++ -------------------------------===//
//
// Part of qdc. Rewrites the .qd file at the byte ranges the frontend
// recorded:
//
// - a kernel's definition becomes its argument struct and one function per
//   task; each task unpacks the parameters, recomputes the shareable locals
//   in its scope, and runs the user's loop body (or serial statements) over
//   its linear index space: a grid-stride loop on GPUs, a [begin, end) chunk
//   on the CPU;
// - on GPUs, field declarations become __device__ globals;
// - everything else is copied as written.
//
// Copied text keeps its line and column through #line directives and
// padding, so a problem in it is reported at the user's line.
//
//===----------------------------------------------------------------------===//

#include "qdc/CodeGen/SourceGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace qdc;
using namespace qdc::kir;

namespace {

enum class Target { Cuda, Hip, Cpu };

/// Byte offset to line and column.
class LineMap {
public:
  explicit LineMap(llvm::StringRef Text) {
    Starts.push_back(0);
    for (unsigned I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n')
        Starts.push_back(I + 1);
  }
  unsigned line(unsigned Offset) const {
    return std::upper_bound(Starts.begin(), Starts.end(), Offset) -
           Starts.begin();
  }
  unsigned column(unsigned Offset) const {
    return Offset - Starts[line(Offset) - 1] + 1;
  }

private:
  std::vector<unsigned> Starts;
};

std::string quoteForLine(llvm::StringRef Path) {
  std::string Out = "\"";
  for (char C : Path) {
    if (C == '\\' || C == '"')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

std::string paramType(const Param &P, bool Host) {
  std::string Elem = getScalarTypeSpelling(P.Elem).str();
  if (P.Kind != ParamKind::Ndarray)
    return Elem;
  std::string Dims = std::to_string(P.Dims);
  return Host ? "const qd::Ndarray<" + Elem + ", " + Dims + "> &"
              : "qd::ndarray<" + Elem + ", " + Dims + ">";
}

std::string argsStructName(const Kernel &K) { return K.Name + "_qd_args"; }

/// Name as seen from the global namespace: `::scope::name`.
std::string qualified(const Kernel &K, llvm::StringRef Name) {
  return "::" + (K.Scope.empty() ? "" : K.Scope + "::") + Name.str();
}

/// A field's name as seen from the global namespace, without unnamed
/// namespaces.
std::string qualifiedField(const Field &F) {
  std::string Name = F.Name;
  for (size_t Pos;
       (Pos = Name.find("(anonymous namespace)::")) != std::string::npos;)
    Name.erase(Pos, strlen("(anonymous namespace)::"));
  return "::" + Name;
}

/// The last component of a qualified name.
llvm::StringRef baseName(llvm::StringRef Qualified) {
  size_t Pos = Qualified.rfind("::");
  return Pos == llvm::StringRef::npos ? Qualified : Qualified.substr(Pos + 2);
}

/// Shareable locals a task recomputes: those with a text, declared before
/// its first statement at the kernel's top level or in its own block.
std::vector<const Stmt *> visibleLocals(const Kernel &K, const Task &Tk) {
  std::vector<const Stmt *> Out;
  const Stmt *First = K.findStmt(Tk.StmtIds.front());
  for (unsigned Id : K.RecomputedLocals) {
    const Stmt *L = K.findStmt(Id);
    if (L && First && L->Id < First->Id &&
        (L->Parent == Stmt::NoParent || L->Parent == First->Parent) &&
        L->Range.isValid())
      Out.push_back(L);
  }
  return Out;
}

class Generator {
public:
  Generator(const Module &M, const SourceGenOptions &Opts, Target T)
      : M(M), Opts(Opts), T(T), Lines(M.Source) {}

  /// The .qd file with every kernel replaced by its tasks.
  std::string rewriteSource() {
    struct Edit {
      unsigned Begin, End;
      std::string Text;
    };
    std::vector<Edit> Edits;
    for (const Kernel &K : M.Kernels) {
      if (!K.Range.isValid())
        continue; // reported by the driver before code generation
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      emitKernel(K, OS);
      OS << lineDirective(K.Range.End);
      Edits.push_back({K.Range.Begin, K.Range.End, OS.str()});
    }
    if (T != Target::Cpu) {
      std::vector<unsigned> Seen;
      for (const Field &F : M.Fields)
        if (F.Decl.isValid() && !llvm::is_contained(Seen, F.Decl.Begin)) {
          Seen.push_back(F.Decl.Begin);
          Edits.push_back({F.Decl.Begin, F.Decl.Begin, "__device__ "});
        }
    }
    llvm::sort(Edits,
               [](const Edit &A, const Edit &B) { return A.Begin < B.Begin; });
    std::string Out = "#line 1 " + quoteForLine(Opts.InputPath) + "\n";
    unsigned Pos = 0;
    for (const Edit &E : Edits) {
      if (E.Begin < Pos)
        continue; // overlapping edits cannot happen for valid input
      Out += llvm::StringRef(M.Source).slice(Pos, E.Begin).str();
      Out += E.Text;
      Pos = E.End;
    }
    Out += llvm::StringRef(M.Source).substr(Pos).str();
    if (Out.empty() || Out.back() != '\n')
      Out += '\n';
    return Out;
  }

private:
  std::string text(TextRange R) const {
    return llvm::StringRef(M.Source).slice(R.Begin, R.End).str();
  }

  /// A #line directive for Offset, then padding to its column: the next
  /// text starts exactly where it stood in the .qd.
  std::string lineDirective(unsigned Offset) const {
    return "\n#line " + std::to_string(Lines.line(Offset)) + " " +
           quoteForLine(Opts.InputPath) + "\n" +
           std::string(Lines.column(Offset) - 1, ' ');
  }

  void emitSnippet(TextRange R, llvm::raw_ostream &OS) const {
    OS << lineDirective(R.Begin) << text(R) << ";\n";
  }

  void emitKernel(const Kernel &K, llvm::raw_ostream &OS) const {
    OS << "\n// kernel " << K.Name << ": " << K.Tasks.size() << " tasks, "
       << K.NumGroups << " groups\n";
    if (!K.Params.empty()) {
      OS << "struct " << argsStructName(K) << " {\n";
      for (const Param &P : K.Params)
        OS << "  " << paramType(P, /*Host=*/false) << ' ' << P.Name << ";\n";
      OS << "};\n";
    }
    for (const Task &Tk : K.Tasks)
      emitTask(K, Tk, OS);
  }

  void emitTask(const Kernel &K, const Task &Tk, llvm::raw_ostream &OS) const {
    bool HasArgs = !K.Params.empty();
    if (T != Target::Cpu) {
      OS << "extern \"C\" __global__ void " << Tk.Name << "(";
      if (HasArgs)
        OS << argsStructName(K) << " qd_args_, ";
      OS << "uint64_t qd_n_) {\n";
    } else {
      OS << "static void " << Tk.Name
         << "(const void *qd_p_, uint64_t qd_begin_, uint64_t qd_end_) {\n";
      if (HasArgs)
        OS << "  const " << argsStructName(K)
           << " &qd_args_ = *static_cast<const " << argsStructName(K)
           << " *>(qd_p_);\n";
      else
        OS << "  (void)qd_p_;\n";
    }
    for (const Param &P : K.Params)
      OS << "  [[maybe_unused]] " << paramType(P, /*Host=*/false) << ' '
         << P.Name << " = qd_args_." << P.Name << ";\n";
    for (const Stmt *L : visibleLocals(K, Tk))
      emitSnippet(L->Range, OS);

    if (Tk.Kind == TaskKind::Serial) {
      OS << (T != Target::Cpu
                 ? "  if (qd::detail::first_index() == 0 && qd_n_) {"
                 : "  if (qd_begin_ == 0 && qd_end_) {");
      for (unsigned Id : Tk.StmtIds)
        if (const Stmt *S = K.findStmt(Id))
          emitSnippet(S->Range, OS);
      OS << "  }\n}\n";
      return;
    }

    if (T != Target::Cpu)
      OS << "  for (uint64_t qd_k_ = qd::detail::first_index(); qd_k_ < qd_n_; "
            "qd_k_ += qd::detail::index_stride()) {\n";
    else
      OS << "  for (uint64_t qd_k_ = qd_begin_; qd_k_ < qd_end_; ++qd_k_) {\n";
    if (Tk.Kind == TaskKind::Range) {
      const std::string &Ty = Tk.IndexType;
      OS << "    " << Ty << ' ' << Tk.IndexVars[0] << " = static_cast<" << Ty
         << ">((" << Tk.Extents[0].Begin.Text
         << ") + static_cast<int64_t>(qd_k_));\n";
    } else {
      OS << "    uint64_t qd_r_ = qd_k_;\n";
      for (size_t D = Tk.Extents.size(); D-- > 1;) {
        std::string E = "static_cast<uint64_t>(" + Tk.Extents[D].End.Text + ")";
        OS << "    int64_t " << Tk.IndexVars[D]
           << " = static_cast<int64_t>(qd_r_ % " << E
           << ");\n    qd_r_ /= " << E << ";\n";
      }
      OS << "    int64_t " << Tk.IndexVars[0]
         << " = static_cast<int64_t>(qd_r_);\n";
    }
    const Stmt *Loop = K.findStmt(Tk.StmtIds.front());
    if (Loop && Loop->LoopBody.isValid())
      emitSnippet(Loop->LoopBody, OS);
    OS << "  }\n}\n";
  }

  const Module &M;
  const SourceGenOptions &Opts;
  Target T;
  LineMap Lines;
};

/// A C++ string literal holding Data byte for byte.
std::string stringLiteral(llvm::StringRef Data) {
  std::string Out = "\"";
  unsigned Column = 0;
  for (unsigned char C : Data) {
    if (C == '\n') {
      Out += "\\n\"\n\"";
      Column = 0;
      continue;
    }
    if (C == '\\' || C == '"') {
      Out += '\\';
      Out += char(C);
    } else if (C >= 0x20 && C < 0x7f && C != '?') {
      Out += char(C);
    } else {
      char Buf[8];
      snprintf(Buf, sizeof(Buf), "\\%03o", C);
      Out += Buf;
    }
    if (++Column > 120) {
      Out += "\"\n\"";
      Column = 0;
    }
  }
  return Out + "\"";
}

const char *imageKindName(DeviceImage::Kind K) {
  switch (K) {
  case DeviceImage::PTX:
    return "QDRT_IMAGE_PTX";
  case DeviceImage::Cubin:
    return "QDRT_IMAGE_CUBIN";
  case DeviceImage::HSACO:
    return "QDRT_IMAGE_HSACO";
  }
  return "0";
}

std::string fieldHandleType(const Field &F) {
  std::string Out = "qd::Field<" + getScalarTypeSpelling(F.Elem).str();
  for (int64_t D : F.Shape)
    Out += ", " + std::to_string(D);
  return Out + ">";
}

/// The namespace a field lives in, without unnamed ones ("" at global
/// scope): its handle lives in the same namespace inside the header's.
std::string fieldScope(const Field &F) {
  std::string Name = qualifiedField(F).substr(2);
  size_t Pos = Name.rfind("::");
  return Pos == std::string::npos ? "" : Name.substr(0, Pos);
}

/// Opens (Scope non-empty) the namespace that mirrors a .qd namespace inside
/// the header's own; returns the text that closes it.
std::string openScope(llvm::raw_ostream &OS, const std::string &Scope) {
  if (Scope.empty())
    return "";
  OS << "namespace " << Scope << " {\n";
  return "} // namespace " + Scope + "\n";
}

std::string launcherSignature(const Kernel &K, bool Defaults) {
  std::string Out = "void " + K.Name + "(";
  for (const Param &P : K.Params) {
    std::string Ty = paramType(P, /*Host=*/true);
    Out += Ty + (llvm::StringRef(Ty).ends_with("&") ? "" : " ") + P.Name + ", ";
  }
  return Out + "qd::Launch qd_launch_" + (Defaults ? " = {}" : "") + ")";
}

} // namespace

static std::string generateDeviceSource(const Module &M,
                                        const SourceGenOptions &Opts, Target T,
                                        llvm::StringRef For,
                                        llvm::StringRef Prelude) {
  return ("// Generated by qdc from " + M.SourceFile + " for " + For +
          "; do not edit.\n#include <" + Prelude + ">\n")
             .str() +
         Generator(M, Opts, T).rewriteSource();
}

std::string qdc::generateCudaSource(const Module &M,
                                    const SourceGenOptions &Opts) {
  return generateDeviceSource(M, Opts, Target::Cuda, "NVIDIA GPUs",
                              "qd/detail/prelude_cuda.h");
}

std::string qdc::generateHipSource(const Module &M,
                                   const SourceGenOptions &Opts) {
  return generateDeviceSource(M, Opts, Target::Hip, "AMD GPUs",
                              "qd/detail/prelude_hip.h");
}

std::string qdc::generateHostSource(const Module &M,
                                    const SourceGenOptions &Opts,
                                    const std::vector<DeviceImage> &Images) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// Generated by qdc from " << M.SourceFile
     << ": CPU tasks, launchers, module descriptor; do not edit.\n"
        "#include <qd/detail/launcher.h>\n";
  OS << Generator(M, Opts, Target::Cpu).rewriteSource();

  // The module descriptor.
  OS << "\n#line 1 \"<qdc module descriptor>\"\nnamespace {\n";
  for (size_t I = 0; I < Images.size(); ++I)
    OS << "const char qd_image" << I << "_[] =\n"
       << stringLiteral(Images[I].Data) << ";\n";
  if (!Images.empty()) {
    OS << "const qdrt_image qd_images_[] = {\n";
    for (size_t I = 0; I < Images.size(); ++I)
      OS << "  {" << imageKindName(Images[I].ImageKind) << ", \""
         << Images[I].Arch << "\", qd_image" << I << "_, sizeof(qd_image" << I
         << "_)" << (Images[I].ImageKind == DeviceImage::PTX ? "" : " - 1")
         << "},\n";
    OS << "};\n";
  }
  unsigned NumTasks = 0, MaxGroups = 0;
  for (const Kernel &K : M.Kernels) {
    NumTasks += K.Tasks.size();
    MaxGroups = std::max(MaxGroups, K.NumGroups);
  }
  if (NumTasks) {
    OS << "const qdrt_task_desc qd_tasks_[] = {\n";
    for (const Kernel &K : M.Kernels)
      for (const Task &Tk : K.Tasks)
        OS << "  {\"" << Tk.Name << "\", " << Tk.Group << ", "
           << (Tk.Kind == TaskKind::Serial ? 1 : Tk.BlockDim) << ", &"
           << qualified(K, Tk.Name) << "},\n";
    OS << "};\n";
  }
  if (!M.Kernels.empty()) {
    OS << "const qdrt_kernel_desc qd_kernels_[] = {\n";
    unsigned First = 0;
    for (const Kernel &K : M.Kernels) {
      OS << "  {\"" << K.Name << "\", " << First << ", " << K.Tasks.size()
         << ", " << K.NumGroups << ", "
         << (K.Params.empty()
                 ? std::string("0")
                 : "sizeof(" + qualified(K, argsStructName(K)) + ")")
         << "},\n";
      First += K.Tasks.size();
    }
    OS << "};\n";
  }
  if (!M.Fields.empty()) {
    OS << "const qdrt_field_desc qd_fields_[] = {\n";
    for (const Field &F : M.Fields)
      OS << "  {\"" << F.Symbol << "\", sizeof(" << qualifiedField(F) << "), &"
         << qualifiedField(F) << "},\n";
    OS << "};\n";
  }
  OS << "const qdrt_module_desc qd_desc_ = {QDRT_ABI_VERSION, \""
     << Opts.Namespace << "\", " << (Images.empty() ? "nullptr" : "qd_images_")
     << ", " << Images.size() << ", " << (NumTasks ? "qd_tasks_" : "nullptr")
     << ", " << NumTasks << ", "
     << (M.Kernels.empty() ? "nullptr" : "qd_kernels_") << ", "
     << M.Kernels.size() << ", "
     << (M.Fields.empty() ? "nullptr" : "qd_fields_") << ", " << M.Fields.size()
     << ", " << MaxGroups << "};\n";
  OS << "} // namespace\n\n";

  // Launchers and field handles.
  OS << "namespace " << Opts.Namespace << " {\n";
  OS << "qdrt_module *qd_module_() {\n"
        "  static qdrt_module *const m = "
        "qd::detail::register_module(qd_desc_);\n"
        "  return m;\n}\n";
  LineMap Lines(M.Source);
  unsigned KernelIndex = 0;
  for (const Kernel &K : M.Kernels) {
    OS << '\n';
    std::string Close = openScope(OS, K.Scope);
    OS << launcherSignature(K, /*Defaults=*/false) << " {\n";
    // The kernel's bounds and locals are written in its own namespace.
    if (!K.Scope.empty())
      OS << "  using namespace ::" << K.Scope << ";\n";
    if (!K.Params.empty()) {
      OS << "  " << qualified(K, argsStructName(K)) << " qd_args_{};\n";
      for (const Param &P : K.Params)
        OS << "  qd_args_." << P.Name << " = "
           << (P.Kind == ParamKind::Ndarray
                   ? "qd::detail::to_kernel(" + P.Name + ")"
                   : P.Name)
           << ";\n";
    }
    if (!K.Tasks.empty())
      OS << "  uint64_t qd_n_[" << K.Tasks.size() << "];\n";
    for (size_t I = 0; I < K.Tasks.size(); ++I) {
      const Task &Tk = K.Tasks[I];
      OS << "  {\n";
      for (const Stmt *L : visibleLocals(K, Tk))
        OS << "#line " << Lines.line(L->Range.Begin) << ' '
           << quoteForLine(Opts.InputPath) << "\n    "
           << llvm::StringRef(M.Source).slice(L->Range.Begin, L->Range.End)
           << ";\n";
      OS << "    qd_n_[" << I << "] = ";
      if (Tk.Kind == TaskKind::Serial)
        OS << "1";
      for (size_t D = 0; D < Tk.Extents.size(); ++D)
        OS << (D ? " * " : "") << "qd::detail::trip("
           << Tk.Extents[D].Begin.Text << ", " << Tk.Extents[D].End.Text << ")";
      OS << ";\n  }\n";
    }
    OS << "  qd::detail::check(qdrt_launch(qd_module_(), " << KernelIndex++
       << ", " << (K.Params.empty() ? "nullptr" : "&qd_args_") << ", "
       << (K.Tasks.empty() ? "nullptr" : "qd_n_")
       << ", qd_launch_.stream));\n}\n"
       << Close;
  }
  for (size_t I = 0; I < M.Fields.size(); ++I) {
    std::string Close = openScope(OS, fieldScope(M.Fields[I]));
    OS << fieldHandleType(M.Fields[I]) << ' ' << baseName(M.Fields[I].Name)
       << "{&qd_module_, " << I << "};\n"
       << Close;
  }
  OS << "} // namespace " << Opts.Namespace << "\n";
  return OS.str();
}

std::string qdc::generateHeader(const Module &M, const SourceGenOptions &Opts) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// Generated by qdc from " << M.SourceFile << "; do not edit.\n"
     << "#pragma once\n\n#include <qd/runtime.h>\n\n"
     << "namespace " << Opts.Namespace << " {\n\n";
  for (const Kernel &K : M.Kernels) {
    std::string Close = openScope(OS, K.Scope);
    OS << "/// Kernel '" << K.Name << "' (" << M.SourceFile << ':' << K.Loc.Line
       << "): " << K.Tasks.size() << (K.Tasks.size() == 1 ? " task" : " tasks");
    if (K.NumGroups)
      OS << " in " << K.NumGroups << " stream-parallel groups";
    OS << ".\n"
       << launcherSignature(K, /*Defaults=*/true) << ";\n"
       << Close << '\n';
  }
  for (const Field &F : M.Fields) {
    std::string Close = openScope(OS, fieldScope(F));
    OS << "/// Field '" << F.Name << "' (" << M.SourceFile << ':' << F.Loc.Line
       << ").\nextern " << fieldHandleType(F) << ' ' << baseName(F.Name)
       << ";\n"
       << Close << '\n';
  }
  OS << "/// The module of " << M.SourceFile
     << ", registered with libqdrt on first use.\nqdrt_module "
        "*qd_module_();\n\n"
     << "} // namespace " << Opts.Namespace << "\n";
  return OS.str();
}
