//===- KernelRewriter.cpp - The .qd rewritten for one target --------------===//
//
// Part of qdc. Rewrites the .qd file at the byte ranges the frontend
// recorded:
//
// - a kernel's definition becomes its argument struct and one function per
//   task; each task unpacks the parameters, recomputes the shareable locals
//   in its scope, and runs the user's loop body (or serial statements) over
//   its linear index space, as the target's hooks spell it;
// - field declarations get the target's qualifier (`__device__` on GPUs);
// - everything else is copied as written.
//
// Copied text keeps its line and column (SourceText), so a problem in it is
// reported at the user's line.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "Names.h"
#include "SourceGen.h"

#include "llvm/ADT/STLExtras.h"

using namespace qdc;
using namespace qdc::codegen;
using namespace qdc::kir;

std::string codegen::getParamType(const Param &P, bool Host) {
  std::string Elem = getScalarTypeSpelling(P.Elem).str();
  if (P.Kind == ParamKind::Pointer)
    return (P.PointeeConst ? "const " : "") + Elem + " *";
  if (P.Kind != ParamKind::Ndarray)
    return Elem;
  std::string Dims = std::to_string(P.Dims);
  return Host ? "const qd::Ndarray<" + Elem + ", " + Dims + "> &"
              : "qd::ndarray<" + Elem + ", " + Dims + ">";
}

std::vector<const Stmt *> codegen::getVisibleLocals(const Kernel &K,
                                                    const Task &Tk) {
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

namespace {

class KernelRewriter {
public:
  KernelRewriter(const Module &M, const TargetHooks &T,
                 llvm::StringRef InputPath)
      : M(M), T(T), Src(M.Source, InputPath) {}

  std::string rewrite() const {
    std::vector<Edit> Edits;
    for (const Kernel &K : M.Kernels) {
      if (!K.Range.isValid())
        continue; // check-rewritable reported it
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      emitKernel(K, OS);
      OS << Src.lineDirective(K.Range.End);
      Edits.push_back({K.Range.Begin, K.Range.End, OS.str()});
    }
    addFieldQualifiers(Edits);
    llvm::sort(Edits,
               [](const Edit &A, const Edit &B) { return A.Begin < B.Begin; });
    std::string Out = Src.fileStart();
    unsigned Pos = 0;
    for (const Edit &E : Edits) {
      if (E.Begin < Pos)
        continue; // overlapping edits cannot happen for valid input
      Out += Src.getText().slice(Pos, E.Begin).str();
      Out += E.Text;
      Pos = E.End;
    }
    Out += Src.getText().substr(Pos).str();
    if (Out.empty() || Out.back() != '\n')
      Out += '\n';
    return Out;
  }

private:
  struct Edit {
    unsigned Begin, End;
    std::string Text;
  };

  /// `qd::field<float, N> a, b;` is one declaration: one qualifier.
  void addFieldQualifiers(std::vector<Edit> &Edits) const {
    llvm::StringRef Qualifier = T.getFieldQualifier();
    if (Qualifier.empty())
      return;
    std::vector<unsigned> Seen;
    for (const Field &F : M.Fields)
      if (F.Decl.isValid() && !llvm::is_contained(Seen, F.Decl.Begin)) {
        Seen.push_back(F.Decl.Begin);
        Edits.push_back({F.Decl.Begin, F.Decl.Begin, Qualifier.str()});
      }
  }

  void emitKernel(const Kernel &K, llvm::raw_ostream &OS) const {
    OS << "\n// kernel " << K.Name << ": " << K.Tasks.size() << " tasks, "
       << K.NumGroups << " groups\n";
    if (!K.Params.empty()) {
      OS << "struct " << names::argsStruct(K) << " {\n";
      for (const Param &P : K.Params)
        OS << "  " << getParamType(P, /*Host=*/false) << ' ' << P.Name << ";\n";
      OS << "};\n";
    }
    for (const Task &Tk : K.Tasks)
      emitTask(K, Tk, OS);
  }

  void emitTask(const Kernel &K, const Task &Tk, llvm::raw_ostream &OS) const {
    // A diagnostic about the entry itself is at the kernel's line.
    if (K.Range.isValid())
      OS << Src.lineDirective(K.Range.Begin);
    T.emitEntry(OS, K, Tk);
    for (const Param &P : K.Params)
      OS << "  [[maybe_unused]] " << getParamType(P, /*Host=*/false) << ' '
         << P.Name << " = " << names::Args << '.' << P.Name << ";\n";
    for (const Stmt *L : getVisibleLocals(K, Tk))
      OS << Src.snippet(L->Range);

    if (Tk.Kind == TaskKind::Serial) {
      OS << T.getSerialGuard();
      for (unsigned Id : Tk.StmtIds)
        if (const Stmt *S = K.findStmt(Id))
          OS << Src.snippet(S->Range);
      OS << "  }\n}\n";
      return;
    }
    OS << T.getIndexLoop();
    emitIndexVars(Tk, OS);
    const Stmt *Loop = K.findStmt(Tk.StmtIds.front());
    if (Loop && Loop->LoopBody.isValid())
      OS << Src.snippet(Loop->LoopBody);
    OS << "  }\n}\n";
  }

  /// An ndrange dimension's size: `end`, or `(end) - (begin)` when it does
  /// not start at 0.
  static std::string getExtentSize(const Extent &X) {
    if (X.Begin.Value == 0)
      return X.End.Text;
    return "(" + X.End.Text + ") - (" + X.Begin.Text + ")";
  }
  /// What an ndrange index adds to its digit: nothing from 0, else
  /// `(begin) + `.
  static std::string getOffset(const Extent &X) {
    return X.Begin.Value == 0 ? "" : "(" + X.Begin.Text + ") + ";
  }

  /// The user's index variables from the linear index qd_k_: an offset for
  /// a range, row-major digits for an ndrange.
  static void emitIndexVars(const Task &Tk, llvm::raw_ostream &OS) {
    if (Tk.Kind == TaskKind::Range) {
      const std::string &Ty = Tk.IndexType;
      OS << "    " << Ty << ' ' << Tk.IndexVars[0] << " = static_cast<" << Ty
         << ">((" << Tk.Extents[0].Begin.Text << ") + static_cast<int64_t>("
         << names::Index << "));\n";
      return;
    }
    OS << "    uint64_t " << names::Rest << " = " << names::Index << ";\n";
    for (size_t D = Tk.Extents.size(); D-- > 1;) {
      const Extent &X = Tk.Extents[D];
      std::string E = "static_cast<uint64_t>(" + getExtentSize(X) + ")";
      OS << "    int64_t " << Tk.IndexVars[D] << " = " << getOffset(X)
         << "static_cast<int64_t>(" << names::Rest << " % " << E << ");\n    "
         << names::Rest << " /= " << E << ";\n";
    }
    OS << "    int64_t " << Tk.IndexVars[0] << " = " << getOffset(Tk.Extents[0])
       << "static_cast<int64_t>(" << names::Rest << ");\n";
  }

  const Module &M;
  const TargetHooks &T;
  SourceText Src;
};

} // namespace

std::string codegen::rewriteModule(const Module &M, const TargetHooks &T,
                                   llvm::StringRef InputPath) {
  return KernelRewriter(M, T, InputPath).rewrite();
}

std::string codegen::generateDeviceSource(const Module &M, const TargetHooks &T,
                                          llvm::StringRef InputPath) {
  return T.getBanner(M.SourceFile) + rewriteModule(M, T, InputPath);
}
