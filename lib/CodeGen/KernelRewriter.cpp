//===- KernelRewriter.cpp - The .qd rewritten for one target --------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rewrites the .qd file at the byte ranges the frontend
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
#include "llvm/ADT/StringExtras.h"

using namespace qdc;
using namespace qdc::codegen;
using namespace qdc::kir;

std::string codegen::getParamType(const Param &P, bool Host) {
  std::string Elem = getElemSpelling(P.Elem, P.ElemRecord);
  if (P.Kind == ParamKind::Pointer)
    return (P.PointeeConst ? "const " : "") + Elem + " *";
  if (P.Kind != ParamKind::Ndarray)
    return Elem;
  std::string Dims = std::to_string(P.Dims);
  return Host ? "const qd::NdarrayView<" + Elem + ", " + Dims + "> &"
              : "qd::ndarray<" + Elem + ", " + Dims + ">";
}

/// Whether statement Scope (a block or a do_while loop, or NoParent for
/// the kernel's body) holds S, directly or through the loops nested in it.
static bool isWithin(const Kernel &K, const Stmt &S, unsigned Scope) {
  for (unsigned P = S.Parent;; P = K.findStmt(P)->Parent) {
    if (P == Scope)
      return true;
    if (P == Stmt::NoParent || !K.findStmt(P))
      return false;
  }
}

std::vector<const Stmt *> codegen::getVisibleLocals(const Kernel &K,
                                                    const Task &Tk) {
  std::vector<const Stmt *> Out;
  const Stmt *First = K.findStmt(Tk.StmtIds.front());
  for (unsigned Id : K.RecomputedLocals) {
    const Stmt *L = K.findStmt(Id);
    if (L && First && L->Id < First->Id && isWithin(K, *First, L->Parent) &&
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
    if (!T.getImplicitDeviceQualifier().empty())
      for (unsigned Start : M.ImplicitDeviceFunctions)
        Edits.push_back({Start, Start, T.getImplicitDeviceQualifier().str()});
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
    if (K.hasScalars()) {
      OS << "struct " << names::scalarsStruct(K) << " {\n";
      for (auto [Id, I] : K.Scalars) {
        const LocalVar &V = K.findStmt(Id)->Vars[I];
        OS << "  " << V.Type << ' ' << names::scalarMember(V, Id) << ";\n";
      }
      if (K.ReturnStmt && !K.ReturnsScalarSlot)
        OS << "  " << K.ReturnType << ' ' << names::Return << ";\n";
      for (const Task &Tk : K.Tasks)
        if (Tk.BoundsInScalars)
          OS << "  uint64_t " << names::boundSlots(Tk.StmtIds.front()) << '['
             << std::max<size_t>(countHoisted(Tk), 1) << "];\n";
      OS << "};\n";
    }
    if (K.hasArgBlock()) {
      OS << "struct " << names::argsStruct(K) << " {\n";
      for (const Param &P : K.Params)
        OS << "  " << getParamType(P, /*Host=*/false) << ' ' << P.Name << ";\n";
      if (K.hasScalars())
        OS << "  " << names::scalarsStruct(K) << " *" << names::Scalars
           << ";\n";
      if (K.UsesRandom)
        OS << "  uint64_t " << names::RandomKey << ";\n";
      OS << "};\n";
    }
    for (const Task &Tk : K.Tasks) {
      if (Tk.Kind != TaskKind::Fused) {
        emitTask(K, Tk, OS, /*Part=*/false);
        // The same code under another name, whose loops the device
        // pipeline leaves to the assembler to unroll (LatencyVersions.h).
        if (T.hasThreadBlocks() && names::hasLatencyEntry(Tk)) {
          Task Latency = Tk;
          Latency.Name = names::latencyEntry(Tk);
          emitTask(K, Latency, OS, /*Part=*/false);
        }
        // One block per tile, offsets in 32 bits, where the launch allows
        // (the CPU's function says when: names::hasNarrowEntry).
        if (names::hasNarrowEntry(K, Tk)) {
          if (T.hasBlockShapes()) {
            Task Narrow = Tk;
            Narrow.Name = names::narrowEntry(Tk);
            emitTask(K, Narrow, OS, /*Part=*/false, /*Narrow=*/true);
          } else if (T.hasHostTripFunctions()) {
            emitNarrowGridFunction(K, Tk, OS);
          }
        }
        continue;
      }
      for (const Task &P : Tk.Parts)
        emitTask(K, P, OS, /*Part=*/true);
      emitFusedTask(K, Tk, OS);
    }
  }

  /// A fused task's entry: its parts in turn, a block barrier between each
  /// two, its loops around theirs. A loop's threads read the flag between
  /// two barriers, after the body's last writes and before the next run's
  /// first, so that they all agree whether to go on.
  void emitFusedTask(const Kernel &K, const Task &Tk,
                     llvm::raw_ostream &OS) const {
    if (K.Range.isValid())
      OS << Src.lineDirective(K.Range.Begin);
    T.emitEntry(OS, K, Tk);
    OS << T.getFusedGuard();
    // Loops nest: each opens where its first part is (outer first, as
    // PartLoops is in preorder) and closes after its last (inner first).
    unsigned Depth = 1;
    auto Indent = [&] { return std::string(2 * Depth, ' '); };
    auto Again = [](const GraphLoop &L) {
      return "qd_again" + std::to_string(L.StmtId) + "_";
    };
    for (size_t I = 0; I < Tk.Parts.size(); ++I) {
      for (const GraphLoop &L : Tk.PartLoops)
        if (L.FirstTask == I) {
          OS << Indent() << "bool " << Again(L) << " = false;\n"
             << Indent() << "do {\n";
          ++Depth;
        }
      const Task &P = Tk.Parts[I];
      OS << Indent() << T.getPartCall(K, P, *getConstantTripCount(P, INT64_MAX))
         << '\n';
      bool LoopsEnd = llvm::any_of(Tk.PartLoops, [&](const GraphLoop &L) {
        return L.getEndTask() == I + 1;
      });
      if (I + 1 < Tk.Parts.size() || LoopsEnd)
        OS << Indent() << "qd::detail::block_barrier_();\n";
      for (const GraphLoop &L : llvm::reverse(Tk.PartLoops)) {
        if (L.getEndTask() != I + 1)
          continue;
        const Stmt *Flag = K.findStmt(L.StmtId);
        OS << Indent() << Again(L) << " = "
           << (Flag->FlagIsField
                   ? Flag->Flag + ".data[0]"
                   : names::Args.str() + "." + Flag->Flag + ".ptr[0]")
           << " != 0" << (M.UsesAsserts ? " && !QD_ASSERT_STOPPED_()" : "")
           << ";\n"
           << Indent() << "qd::detail::block_barrier_();\n";
        --Depth;
        OS << Indent() << "} while (" << Again(L) << ");\n";
      }
    }
    OS << "}\n";
  }

  /// Whether task Tk uses variable Var of local statement Decl.
  static bool usesLocal(const Kernel &K, const Task &Tk, const Stmt &Decl) {
    if (llvm::is_contained(Tk.StmtIds, Decl.Id))
      return true;
    return llvm::any_of(Decl.Uses, [&](const LocalUse &U) {
      return llvm::is_contained(Tk.StmtIds, U.StmtId);
    });
  }

  /// A reduced kernel scalar of a loop task: its accumulator, by index.
  struct Reduced {
    const LocalVar *Var;
    unsigned Id;
    ReduceOp Op;
  };

  /// The task's view of the kernel scalars: references in serial tasks,
  /// values in loops, private accumulators for what a loop reduces.
  std::vector<Reduced> emitScalarBindings(const Kernel &K, const Task &Tk,
                                          const Stmt *Loop,
                                          llvm::raw_ostream &OS) const {
    std::vector<Reduced> Out;
    if (!K.hasScalars())
      return Out;
    OS << "  [[maybe_unused]] " << names::scalarsStruct(K) << " *const "
       << names::Scalars << " = " << names::Args << '.' << names::Scalars
       << ";\n";
    for (auto [Id, I] : K.Scalars) {
      const Stmt &Decl = *K.findStmt(Id);
      if (!usesLocal(K, Tk, Decl))
        continue;
      const LocalVar &V = Decl.Vars[I];
      std::string Member =
          names::Scalars.str() + "->" + names::scalarMember(V, Id);
      if (const LoopAccess *R = Loop ? Loop->findReduction(Id, I) : nullptr) {
        OS << "  " << V.Type << ' ' << names::accumulator(Out.size()) << " = "
           << getReduceOpFunctor(R->Op) << "::identity<" << V.Type << ">();\n";
        Out.push_back({&V, Id, R->Op});
        continue;
      }
      // `T const`: for a pointer type, the pointer is const, not what it
      // points to. A scalar the loop updates by atomics whose old values
      // it uses is its memory itself.
      if (Loop && !Loop->hasAtomic(Id, I))
        OS << "  [[maybe_unused]] " << V.Type << " const " << V.Name << " = "
           << Member << ";\n";
      else
        OS << "  [[maybe_unused]] " << V.Type << " &" << V.Name << " = "
           << Member << ";\n";
    }
    return Out;
  }

  /// A statement of a serial task: kernel-scalar declarations become
  /// assignments, `return e;` stores e.
  std::string getSerialStmt(const Kernel &K, const Stmt &S) const {
    if (K.ReturnStmt && *K.ReturnStmt == S.Id && K.ReturnValue.isValid())
      return Src.lineDirective(K.ReturnValue.Begin) + names::Scalars.str() +
             "->" + names::Return.str() + " = " +
             Src.slice(K.ReturnValue).str() + ";\n";
    bool ParamCopy = S.Kind == StmtKind::Local && !S.Vars.empty() &&
                     S.Vars[0].FromParam;
    if (ParamCopy) // the task's own copy of the parameter serves otherwise
      return S.Vars[0].Scalar ? "  " + S.Name + " = " + names::Args.str() +
                                    "." + S.Name + ";\n"
                              : std::string();
    if (S.Kind != StmtKind::Local || S.Vars.empty() || !S.Vars[0].Scalar)
      return Src.snippet(S.Range);
    std::string Out;
    for (const LocalVar &V : S.Vars) {
      if (!V.AfterName.isValid()) {
        // Value-initialized: each call starts from zero, not from what
        // the call before left in the scalar block.
        Out += "  " + V.Name + " = " + (V.RecordType ? V.Type + "()" : "{}") +
               ";\n";
        continue;
      }
      Out += Src.lineDirective(V.AfterName.Begin - V.Name.size()) + V.Name;
      llvm::StringRef Init = Src.slice(V.AfterName);
      Out += V.CopyInit ? Init.str() : " = " + V.Type + Init.str();
      Out += ";\n";
    }
    return Out;
  }

  /// A task's function: an entry point, or a part of a fused task.
  /// Narrow: the task's narrow entry (names::hasNarrowEntry), named as Tk.
  void emitTask(const Kernel &K, const Task &Tk, llvm::raw_ostream &OS,
                bool Part, bool Narrow = false) const {
    if (Tk.DeviceBounds && T.hasHostTripFunctions())
      emitTripFunction(K, Tk, OS);
    // A diagnostic about the entry itself is at the kernel's line.
    if (K.Range.isValid())
      OS << Src.lineDirective(K.Range.Begin);
    if (Part)
      T.emitPartEntry(OS, K, Tk);
    else
      T.emitEntry(OS, K, Tk);
    emitPrologue(K, Tk, OS, Narrow);
    // qd::random's stream: the call's key, this task, then the iteration.
    if (K.UsesRandom)
      OS << "  qd::detail::rng_task_begin_(" << names::Args << '.'
         << names::RandomKey << ", " << Tk.Index << ");\n";
    const Stmt *Loop = Tk.Kind == TaskKind::Serial ? nullptr : Loop0(K, Tk);
    std::vector<Reduced> Reductions = emitScalarBindings(K, Tk, Loop, OS);
    // A failed QD_ASSERT ends the CPU thread's chunk by an exception.
    llvm::StringRef Try = M.UsesAsserts ? T.getAssertTry() : "";
    llvm::StringRef Catch = M.UsesAsserts ? T.getAssertCatch() : "";

    if (Tk.Kind == TaskKind::Serial) {
      OS << Try << T.getSerialGuard();
      if (Tk.EvaluatesBounds)
        OS << getBoundStores(*Loop0(K, Tk));
      else
        for (unsigned Id : Tk.StmtIds)
          if (const Stmt *S = K.findStmt(Id))
            OS << getSerialStmt(K, *S);
      OS << "  }\n" << Catch << "}\n";
      return;
    }
    Task Local = Tk;
    if (Tk.DeviceBounds) {
      // Evaluated once, when the task starts; the GPU's iteration count
      // argument is the runtime's placeholder.
      hoistBounds(Local, OS);
      if (!T.hasHostTripFunctions())
        OS << "  " << names::Count << " = " << getTripCount(Local) << ";\n";
    }
    bool Sync = Loop && Loop->BlockSync.isValid();
    if (Sync && T.hasThreadBlocks())
      OS << "  if (!qd::detail::block_uniform_(&" << names::AssertRecord << ", "
         << names::Count << ", " << getStringLiteral(Loop->BlockSync.File)
         << ", " << Loop->BlockSync.Line << ", __func__))\n    return;\n";
    bool Tiled = !Tk.BlockShape.empty() && T.hasBlockShapes();
    OS << Try;
    if (Tiled && Narrow)
      emitNarrowTile(Local, OS);
    else if (Tiled)
      emitTileLoops(Local, OS);
    else
      OS << (!Reductions.empty() ? T.getReductionIndexLoop(Tk.UnrollReduction)
             : Part              ? T.getPartIndexLoop()
                                 : T.getIndexLoop());
    // Threads that wait at a barrier leave the loop together.
    if (M.UsesAsserts)
      OS << (Sync ? "    if (qd::detail::block_any_(QD_ASSERT_STOPPED_()))\n"
                  : "    if (QD_ASSERT_STOPPED_())\n")
         << "      break;\n";
    if (K.UsesRandom)
      OS << "    qd::detail::rng_iteration_(qd_k_);\n";
    if (!Tiled)
      emitIndexVars(Local, OS);
    for (size_t I = 0; I < Reductions.size(); ++I)
      OS << "    [[maybe_unused]] qd::detail::accumulator_ref<"
         << Reductions[I].Var->Type << "> " << Reductions[I].Var->Name << "{"
         << names::accumulator(I) << "};\n";
    if (Loop && Loop->LoopBody.isValid())
      OS << getLoopBody(*Loop);
    OS << "  }\n" << (Tiled ? "  }\n" : "") << Catch;
    for (size_t I = 0; I < Reductions.size(); ++I)
      OS << "  qd::detail::reduce<" << getReduceOpFunctor(Reductions[I].Op)
         << ">(&" << names::Scalars << "->"
         << names::scalarMember(*Reductions[I].Var, Reductions[I].Id) << ", "
         << names::accumulator(I) << ");\n";
    OS << "}\n";
  }

  /// The loop's body, its shared_array declarations qualified for the
  /// target.
  std::string getLoopBody(const Stmt &Loop) const {
    llvm::StringRef Qualifier = T.getSharedQualifier();
    if (Qualifier.empty() || Loop.SharedArrays.empty())
      return Src.snippet(Loop.LoopBody);
    std::string Out = Src.lineDirective(Loop.LoopBody.Begin);
    unsigned Pos = Loop.LoopBody.Begin;
    for (unsigned At : Loop.SharedArrays) {
      Out += Src.slice({Pos, At}).str() + Qualifier.str();
      Pos = At;
    }
    return Out + Src.slice({Pos, Loop.LoopBody.End}).str() +
           Src.terminator(Loop.LoopBody).str() + "\n";
  }

  /// Whether parameter Name is assigned by the kernel and kept as a kernel
  /// scalar: the tasks reach it as one, not through the argument block.
  static bool isScalarParam(const Kernel &K, llvm::StringRef Name) {
    return llvm::any_of(K.Scalars, [&](std::pair<unsigned, unsigned> S) {
      const LocalVar &V = K.findStmt(S.first)->Vars[S.second];
      return V.FromParam && V.Name == Name;
    });
  }

  /// Parameters and recomputed locals, at the start of every task.
  /// Narrow: ndarray parameters as the narrow entry binds them
  /// (qd::detail::narrow_ndarray_, offsets in 32 bits).
  void emitPrologue(const Kernel &K, const Task &Tk, llvm::raw_ostream &OS,
                    bool Narrow = false) const {
    for (const Param &P : K.Params)
      if (!isScalarParam(K, P.Name))
        OS << "  [[maybe_unused]] "
           << (Narrow && P.Kind == ParamKind::Ndarray
                   ? "qd::detail::narrow_ndarray_<" +
                         getElemSpelling(P.Elem, P.ElemRecord) + ", " +
                         std::to_string(P.Dims) + ">"
                   : getParamType(P, /*Host=*/false))
           << ' ' << P.Name << " = " << names::Args << '.' << P.Name << ";\n";
    emitRestrict(K, OS);
    for (const Stmt *L : getVisibleLocals(K, Tk))
      OS << Src.snippet(L->Range);
  }

  /// What `__restrict__` on a pointer parameter (or QD_NOALIAS on the
  /// kernel, for all of them) promises, said to LLVM: the memory it
  /// reaches is not that of any other pointer or ndarray parameter. (Read
  /// from the argument block, the parameters are no function's parameters,
  /// so the qualifier alone would say nothing.)
  static void emitRestrict(const Kernel &K, llvm::raw_ostream &OS) {
    auto Memory = [&](const Param &P) -> std::string {
      if (isScalarParam(K, P.Name))
        return "";
      if (P.Kind == ParamKind::Pointer)
        return P.Name;
      if (P.Kind == ParamKind::Ndarray)
        return P.Name + ".ptr";
      return "";
    };
    auto Restrict = [&](const Param &P) { return K.NoAlias || P.Restrict; };
    for (const Param &P : K.Params) {
      if (!Restrict(P) || Memory(P).empty())
        continue;
      for (const Param &Q : K.Params)
        if (&Q != &P && !Memory(Q).empty() && !(Restrict(Q) && &Q < &P))
          OS << "  __builtin_assume_separate_storage(" << Memory(P) << ", "
             << Memory(Q) << ");\n";
    }
  }

  /// The statement a task runs first: a loop task's loop.
  static const Stmt *Loop0(const Kernel &K, const Task &Tk) {
    return K.findStmt(Tk.StmtIds.front());
  }

  /// How many of a loop's bounds are not constants.
  static size_t countHoisted(const Task &Tk) {
    size_t N = 0;
    for (const Extent &X : Tk.Extents)
      N += !X.Begin.Value + !X.End.Value;
    return N;
  }

  /// The task before a loop whose bounds read memory: it stores each bound
  /// that is not a constant in the loop's slots, once.
  std::string getBoundStores(const Stmt &Loop) const {
    std::string Out = "\n";
    size_t N = 0;
    for (const Extent &X : Loop.Extents)
      for (const Bound *B : {&X.Begin, &X.End})
        if (!B->Value)
          Out += "    " + names::Scalars.str() + "->" +
                 names::boundSlots(Loop.Id) + "[" + std::to_string(N++) +
                 "] = static_cast<uint64_t>(" + B->Text + ");\n";
    return Out;
  }

  /// Each bound becomes a constant evaluated once (or, BoundsInScalars,
  /// read from where the task before stored it, with the type the
  /// expression has); Tk's extents then name those constants.
  static void hoistBounds(Task &Tk, llvm::raw_ostream &OS) {
    size_t N = 0;
    for (Extent &X : Tk.Extents)
      for (Bound *B : {&X.Begin, &X.End}) {
        if (B->Value)
          continue;
        std::string Name = names::hoistedBound(N);
        if (Tk.BoundsInScalars)
          OS << "  const auto " << Name << " = static_cast<decltype(+("
             << B->Text << "))>(" << names::Scalars << "->"
             << names::boundSlots(Tk.StmtIds.front()) << '[' << N << "]);\n";
        else
          OS << "  const auto " << Name << " = (" << B->Text << ");\n";
        ++N;
        B->Text = Name;
      }
  }

  /// The head of a CPU function of K's argument block (`const void *`,
  /// then More) that returns Result: up to its argument struct bound as
  /// qd_args_.
  static void emitArgsFunction(const Kernel &K, llvm::StringRef Result,
                               llvm::StringRef Name, llvm::StringRef More,
                               llvm::raw_ostream &OS) {
    OS << "static " << Result << ' ' << Name << "(const void *"
       << names::ArgPtr << More << ") {\n";
    std::string S = names::argsStruct(K);
    if (K.hasArgBlock())
      OS << "  const " << S << " &" << names::Args << " = *static_cast<const "
         << S << " *>(" << names::ArgPtr << ");\n";
    else
      OS << "  (void)" << names::ArgPtr << ";\n";
  }

  /// The CPU's trip-count function of a task whose range is evaluated
  /// when it starts: the runtime calls it, then splits the count.
  void emitTripFunction(const Kernel &K, const Task &Tk,
                        llvm::raw_ostream &OS) const {
    emitArgsFunction(K, "uint64_t", names::tripFunction(Tk), "", OS);
    emitPrologue(K, Tk, OS);
    emitScalarBindings(K, Tk, Loop0(K, Tk), OS);
    Task Local = Tk;
    hoistBounds(Local, OS);
    OS << "  return " << getTripCount(Local) << ";\n}\n";
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
  /// a range, row-major digits for an ndrange. An ndrange's come from a
  /// division per dimension, in 32 bits when the whole index space fits
  /// them and the body knows it (a GPU divides 64-bit integers in
  /// software, many times slower), else in 64.
  void emitIndexVars(const Task &Tk, llvm::raw_ostream &OS) const {
    if (Tk.Kind == TaskKind::Range) {
      const std::string &Ty = Tk.IndexType;
      OS << "    " << Ty << ' ' << Tk.IndexVars[0] << " = static_cast<" << Ty
         << ">((" << Tk.Extents[0].Begin.Text << ") + static_cast<int64_t>("
         << names::Index << "));\n";
      return;
    }
    OS << "    int64_t " << llvm::join(Tk.IndexVars, ", ") << ";\n";
    llvm::StringRef Count = T.getIterationCount();
    if (Count.empty()) {
      emitDivisions(Tk, "uint64_t", "    ", OS);
      return;
    }
    // qd_k_ is below the count, and so is every extent's size when no
    // extent is empty (with one, nothing runs).
    OS << "    if (" << Count << " <= 0xffffffffu) {\n";
    emitDivisions(Tk, "uint32_t", "      ", OS);
    OS << "    } else {\n";
    emitDivisions(Tk, "uint64_t", "      ", OS);
    OS << "    }\n";
  }

  /// A tiled task's shape on a GPU: each dimension's tile (1 where the
  /// block shape leaves it out), a thread's place in its block's tile, and
  /// where the first tile starts before the range (Shift, below).
  struct TileShape {
    size_t Rank;
    std::vector<unsigned> Tile;
    /// A thread's place along D: qd_thread_ / Inner[D] % Tile[D] (x varies
    /// fastest).
    std::vector<unsigned> Inner;
    /// A tile starts where a multiple of its width would in the user's
    /// index space, as a CUDA grid's blocks do, not where the range begins:
    /// the rows of an array then meet its tiles whole. A range beginning
    /// at 1 would otherwise put every warp's 32 elements across two cache
    /// lines (FDTD-2D's ex update, j from 1: 111 us against nvcc's 75 on an
    /// H100). The first Shift[D] places of D run nothing; empty: none.
    std::vector<std::string> Shift;

    /// Tk's shape; declares the shifts the range's beginning gives at run
    /// time (`qd_h<D>_`).
    TileShape(const Task &Tk, llvm::raw_ostream &OS)
        : Rank(Tk.Extents.size()), Tile(Rank, 1), Inner(Rank, 1), Shift(Rank) {
      size_t Dims = Tk.BlockShape.size();
      for (size_t D = 0; D < Rank; ++D)
        if (D + Dims >= Rank)
          Tile[D] = Tk.BlockShape[Rank - 1 - D];
      for (size_t D = Rank - 1; D-- > 0;)
        Inner[D] = Inner[D + 1] * Tile[D + 1];
      for (size_t D = 0; D < Rank; ++D) {
        const Bound &B = Tk.Extents[D].Begin;
        if (Tile[D] == 1 || B.Value == 0)
          continue;
        int64_t T = Tile[D];
        if (B.Value) {
          if (int64_t H = (*B.Value % T + T) % T)
            Shift[D] = std::to_string(H) + "u";
          continue;
        }
        Shift[D] = name("h", D);
        OS << "  const uint64_t " << Shift[D]
           << " = static_cast<uint64_t>((static_cast<int64_t>(" << B.Text
           << ") % " << T << " + " << T << ") % " << T << ");\n";
      }
    }
    static std::string name(llvm::StringRef What, size_t D) {
      return ("qd_" + What + std::to_string(D) + "_").str();
    }
    /// The thread's place along D in its tile. A block has as many threads
    /// as its tile has places, so the outermost tiled dimension's needs no
    /// remainder (one SASS instruction fewer: ptxas keeps the bit-field
    /// extract).
    std::string place(size_t D) const {
      if (Tile[D] == 1)
        return "0u";
      std::string Place = "qd_thread_ / " + std::to_string(Inner[D]) + "u";
      if (Inner[D] * Tile[D] == Inner[0] * Tile[0])
        return Place;
      return Place + " % " + std::to_string(Tile[D]) + "u";
    }
    /// D's place from the range's beginning, in the iteration variable
    /// qd_i<D>_.
    std::string fromBegin(size_t D) const {
      return Shift[D].empty() ? name("i", D)
                              : "(" + name("i", D) + " - " + Shift[D] + ")";
    }
    /// The body's guard against the places before the range: none, or
    /// `qd_i0_ < qd_h0_ || ...`.
    std::string before() const {
      std::string Out;
      for (size_t D = 0; D < Rank; ++D)
        if (!Shift[D].empty())
          Out += (Out.empty() ? "" : " || ") + name("i", D) + " < " + Shift[D];
      return Out;
    }
    /// The linear index (for what numbers iterations: qd::random; a narrow
    /// entry's 32-bit places widen in it) and the user's index variables,
    /// from the places.
    void emitIndexVars(const Task &Tk, llvm::raw_ostream &OS) const {
      OS << "    [[maybe_unused]] const uint64_t " << names::Index << " = ";
      for (size_t D = 0; D < Rank; ++D)
        OS << (D ? ") * " + name("n", D) + " + " : std::string(Rank - 1, '('))
           << fromBegin(D);
      OS << ";\n    int64_t " << llvm::join(Tk.IndexVars, ", ") << ";\n";
      for (size_t D = 0; D < Rank; ++D)
        OS << "    " << Tk.IndexVars[D] << " = " << getOffset(Tk.Extents[D])
           << "static_cast<int64_t>(" << fromBegin(D) << ");\n";
    }
  };

  /// A tiled ndrange task's loops on a GPU, up to the innermost's brace
  /// (two closing braces end them). Each thread has a place in its block's
  /// tile, each block a place in a grid of tiles laid over the index space
  /// (found once, by a division per dimension: qd::detail::get_tile_span_):
  /// along each dimension a block runs a contiguous span of tiles, so that
  /// the blocks running together touch neighbouring memory, and no
  /// iteration divides. The dimension that gets blocks last takes what the
  /// grid cannot cover and is the innermost loop (Order, below). Blocks the
  /// grid of tiles cannot use run nothing.
  static void emitTileLoops(const Task &Tk, llvm::raw_ostream &OS) {
    size_t Rank = Tk.Extents.size(), Dims = Tk.BlockShape.size();
    OS << "  {\n"
       << "  const uint32_t qd_thread_ = qd::detail::block_thread_idx_();\n"
       << "  uint32_t qd_block_ = qd::detail::block_idx_(), qd_blocks_ = "
          "qd::detail::grid_blocks_();\n";
    TileShape Shape(Tk, OS);
    // The order in which dimensions get blocks, which is also their loops'
    // from the outermost: the last dimension first, so that the blocks
    // running together lie along rows; but where the tile leaves leading
    // dimensions out (a 2-D tile over a 3-D range), those first, so that
    // the last dimension, whose step is a constant LLVM strength-reduces,
    // is the loop that runs long (performance.md, "Tiles").
    std::vector<size_t> Order(Rank);
    for (size_t D = 0; D < Rank; ++D)
      Order[D] = Rank > Dims ? D : Rank - 1 - D;
    for (size_t D : Order) {
      const std::string &H = Shape.Shift[D];
      OS << "  const uint64_t " << TileShape::name("n", D)
         << " = static_cast<uint64_t>(" << getExtentSize(Tk.Extents[D])
         << ");\n"
         << "  const qd::detail::tile_span_ " << TileShape::name("s", D)
         << " = qd::detail::get_tile_span_(" << TileShape::name("n", D)
         << (H.empty() ? "" : " + " + H) << ", " << Shape.Tile[D] << ", "
         << (Shape.Tile[D] == 1 ? "0" : Shape.place(D))
         << ", qd_block_, qd_blocks_);\n";
    }
    OS << "  if (" << names::Count << " != 0 && qd_block_ == 0)\n";
    for (size_t D : Order) {
      std::string I = TileShape::name("i", D), S = TileShape::name("s", D);
      OS << "  for (uint64_t " << I << " = " << S << ".first; " << I << " < "
         << S << ".end; " << I << " += " << Shape.Tile[D] << ")"
         << (D == Order.back() ? " {\n" : "\n");
    }
    if (std::string Before = Shape.before(); !Before.empty())
      OS << "    if (" << Before << ")\n      continue;\n";
    Shape.emitIndexVars(Tk, OS);
  }

  /// A tiled task's narrow entry, up to its body's brace (two closing
  /// braces end it): the grid has a block per tile (its x the tiles of the
  /// last dimension, y of the one before, z of the first of three:
  /// qd::detail::narrow_grid_ on the CPU sized it), each thread one place
  /// of its block's tile, and the places outside the range skip the body.
  /// The launch allowed it only where every place and ndarray offset fits
  /// 31 bits, so places are 32-bit, and a place before the range (its
  /// place less the shift wraps around) fails the same comparison as one
  /// past its end.
  static void emitNarrowTile(const Task &Tk, llvm::raw_ostream &OS) {
    size_t Rank = Tk.Extents.size();
    assert(Rank <= 3 && "narrow entries are for grids of up to three axes");
    OS << "  {\n"
       << "  const uint32_t qd_thread_ = qd::detail::block_thread_idx_();\n";
    TileShape Shape(Tk, OS);
    static constexpr const char *Axis[] = {"qd::detail::block_idx_()",
                                           "qd::detail::block_idx_y_()",
                                           "qd::detail::block_idx_z_()"};
    std::string Inside;
    for (size_t D = 0; D < Rank; ++D) {
      std::string N = TileShape::name("n", D), I = TileShape::name("i", D);
      const std::string &H = Shape.Shift[D];
      OS << "  const uint64_t " << N << " = static_cast<uint64_t>("
         << getExtentSize(Tk.Extents[D]) << ");\n"
         << "  const uint32_t " << I << " = " << Axis[Rank - 1 - D] << " * "
         << Shape.Tile[D] << "u + " << Shape.place(D) << ";\n";
      // A place before the range wraps around: one comparison each, joined
      // by `&`, not `&&`: every place is computed anyway, and one branch
      // leaves the thread where three would (ptxas keeps each `&&` a branch
      // of its own: two SASS instructions more in the 3-D convolution).
      Inside +=
          (Inside.empty() ? "" : " & ") +
          (H.empty() ? I : "static_cast<uint32_t>(" + I + " - " + H + ")") +
          " < static_cast<uint32_t>(" + N + ")";
    }
    OS << "  if (" << Inside << ")\n"
       << "  for (int qd_once_ = 0; qd_once_ < 1; ++qd_once_) {\n";
    Shape.emitIndexVars(Tk, OS);
  }

  /// The CPU function that says whether Tk's narrow entry may run for an
  /// argument block, and its grid (qdrt_task_desc::narrow_grid): the
  /// bounds as the launcher computes them, from the parameters and the
  /// locals they use, and each ndarray parameter's elements.
  void emitNarrowGridFunction(const Kernel &K, const Task &Tk,
                              llvm::raw_ostream &OS) const {
    emitArgsFunction(K, "int", names::narrowGridFunction(Tk),
                     ", uint32_t *qd_grid_", OS);
    for (const Param &P : K.Params)
      if (!isScalarParam(K, P.Name))
        OS << "  [[maybe_unused]] const auto &" << P.Name << " = "
           << names::Args << '.' << P.Name << ";\n";
    for (const Stmt *L : getVisibleLocals(K, Tk))
      OS << Src.snippet(L->Range);
    OS << "  const int64_t qd_elements_[] = {";
    for (const Param &P : K.Params)
      if (P.Kind == ParamKind::Ndarray && !isScalarParam(K, P.Name))
        OS << "qd::detail::ndarray_elements_(" << P.Name << "), ";
    OS << "0};\n  const qd::detail::narrow_dim_ qd_dims_[] = {";
    TileShape Shape(Tk, llvm::nulls());
    for (size_t D = 0; D < Shape.Rank; ++D)
      OS << (D ? ", " : "") << "{" << Tk.Extents[D].Begin.Text << ", "
         << Tk.Extents[D].End.Text << ", " << Shape.Tile[D] << "u}";
    OS << "};\n  return qd::detail::narrow_grid_(qd_elements_, "
          "sizeof(qd_elements_) / sizeof(int64_t), qd_dims_, "
       << Shape.Rank << ", qd_grid_);\n}\n";
  }

  static void emitDivisions(const Task &Tk, llvm::StringRef Unsigned,
                            llvm::StringRef Indent, llvm::raw_ostream &OS) {
    std::string Cast = "static_cast<" + Unsigned.str() + ">(";
    OS << Indent << Unsigned << ' ' << names::Rest << " = " << Cast
       << names::Index << ");\n";
    for (size_t D = Tk.Extents.size(); D-- > 1;) {
      const Extent &X = Tk.Extents[D];
      std::string E = Cast + getExtentSize(X) + ")";
      OS << Indent << Tk.IndexVars[D] << " = " << getOffset(X)
         << "static_cast<int64_t>(" << names::Rest << " % " << E << ");\n"
         << Indent << names::Rest << " /= " << E << ";\n";
    }
    OS << Indent << Tk.IndexVars[0] << " = " << getOffset(Tk.Extents[0])
       << "static_cast<int64_t>(" << names::Rest << ");\n";
  }

  const Module &M;
  const TargetHooks &T;
  SourceText Src;
};

} // namespace

std::string codegen::rewriteModule(const Module &M, const TargetHooks &T,
                                   llvm::StringRef InputPath) {
  // The assertion record comes before the user's code, whose QD_ASSERTs
  // name it.
  std::string Record;
  if (M.UsesAsserts)
    Record = T.getFieldQualifier().str() + "qdrt_assert_record " +
             names::AssertRecord.str() + ";\n";
  return Record + KernelRewriter(M, T, InputPath).rewrite();
}

std::string codegen::generateDeviceSource(const Module &M, const TargetHooks &T,
                                          llvm::StringRef InputPath) {
  // The C math library's device versions, before the user's #includes.
  std::string CMath =
      M.UsesCMath ? "#include <qd/detail/device_cmath.h>\n" : std::string();
  return T.getBanner(M.SourceFile) + CMath + rewriteModule(M, T, InputPath);
}
