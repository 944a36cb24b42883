//===- Kernel.h - The kernel IR ---------------------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernel IR (KIR) describes a .qd translation unit the way
// the code generator and the runtime see it: fields, device functions, and
// kernels whose top-level statements become tasks, grouped for concurrent
// streams. It holds no Clang types; positions are file/line/column.
//
// The frontend fills in what the source says (statements, loops, blocks,
// parameters, facts about locals); the passes in lib/Transforms check the
// rules and derive the rest (groups, tasks).
//
//===----------------------------------------------------------------------===//

#ifndef QDC_KIR_KERNEL_H
#define QDC_KIR_KERNEL_H

#include "qdc/Support/SourceLoc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qdc::kir {

/// How deep do_while graph loops nest: the runtime's QDRT_MAX_LOOP_DEPTH
/// (qd/abi.h; a unit test keeps the two equal).
inline constexpr unsigned MaxGraphLoopDepth = 16;

/// The element types a kernel parameter, ndarray or field can have.
enum class ScalarType {
#define QDC_SCALAR_TYPE(ENUM, NAME, SPELLING, KIND, BYTES) ENUM,
#include "qdc/KIR/ScalarTypes.def"
};

/// How a scalar type's bits are read.
enum class ScalarKind { Bool, Signed, Unsigned, Float };

/// "bool", "i32", "i64", "u32", "u64", "f32" or "f64".
llvm::StringRef getScalarTypeName(ScalarType T);
/// The C++ spelling: "bool", "int32_t", ..., "double".
llvm::StringRef getScalarTypeSpelling(ScalarType T);
/// Size in bytes.
unsigned getScalarTypeSize(ScalarType T);
/// The scalar type of that kind and size, if there is one.
std::optional<ScalarType> findScalarType(ScalarKind Kind, unsigned Bytes);
/// Every C++ spelling, in table order, joined by ", " (by " or " before the
/// last when OrLast is set): for diagnostics.
std::string getScalarTypeSpellingList(bool OrLast);

enum class ParamKind {
  Scalar,     ///< passed by value
  Ndarray,    ///< qd::ndarray<T, Dims>, shape known at run time
  Pointer,    ///< T * to device memory (host memory on the CPU)
  Unsupported ///< anything else; rejected by check-kernel-signature
};

struct Param {
  std::string Name;
  ParamKind Kind = ParamKind::Scalar;
  ScalarType Elem = ScalarType::I32;
  /// The qualified name of a user struct that is the element (or the
  /// parameter) instead of Elem; empty for scalars.
  std::string ElemRecord;
  unsigned Dims = 0;         ///< rank of an ndarray, 0 for a scalar
  bool PointeeConst = false; ///< `const T *`
  /// `T *__restrict__ p`: the caller promises that the memory reached
  /// through p is reached through no other parameter (as in CUDA).
  bool Restrict = false;
  std::string Spelling;      ///< the C++ type as written, for messages
  SourceLoc Loc;
};

/// One bound of a loop range: the expression as written and, when it is a
/// constant expression, its value.
struct Bound {
  std::string Text;
  std::optional<int64_t> Value;
};

/// Bytes [Begin, End) of the module's main file; what code generation copies
/// or replaces. Invalid when the construct is not spelled in the main file
/// (it comes from a macro or another file).
struct TextRange {
  unsigned Begin = 0;
  unsigned End = 0;
  bool isValid() const { return End > Begin; }
};

/// The half-open interval [Begin, End) of one loop dimension.
struct Extent {
  Bound Begin;
  Bound End;
};

/// What `qd::loop_config({...})` asks of the next top-level loop.
struct LoopConfig {
  unsigned BlockDim = 0; ///< 0: the backend's default
  /// A tile of BlockDim threads, {x, y} or {x, y, z}, over an ndrange's
  /// last dimensions (x along the last); empty for a plain block.
  llvm::SmallVector<unsigned, 3> BlockShape;
  bool Serialize = false;
  unsigned Parallelize = 0; ///< 0: every CPU thread
};

enum class StmtKind {
  Loop,       ///< a top-level parallel loop
  Serial,     ///< any other statement; runs on one thread
  Local,      ///< a top-level local variable declaration
  LoopConfig, ///< qd::loop_config(...) for the next loop
  Block,      ///< a QD_STREAM_PARALLEL block
  GraphLoop   ///< `while (qd::graph::do_while(flag)) { ... }`
};

enum class LoopForm {
  Range,    ///< for (T i : qd::range(...))
  NdRange,  ///< for (auto [i, j] : qd::ndrange(...))
  Canonical ///< for (T i = b; i < e; ++i)
};

/// A variable declared by a top-level local statement, with the facts the
/// frontend saw; analyze-locals decides from them whether tasks can share
/// it, and assign-kernel-scalars which ones live on the device for the call.
struct LocalVar {
  std::string Name;
  SourceLoc Loc;
  /// The type as C++ spells it at namespace scope, unqualified.
  std::string Type;
  /// The type's scalar type, when it is one.
  std::optional<ScalarType> Elem;
  /// Why the variable cannot be a kernel scalar (kept in device memory for
  /// the call), or empty: "its type is declared in the kernel", ...
  std::string NotStorable;
  /// The declarator after the name (` = 0`, `(n)`, `{1, 2}`; empty
  /// without an initializer): the serial task turns the declaration of a
  /// kernel scalar into `name = 0;`, `name = T(n);`, `name = T{1, 2};`.
  TextRange AfterName;
  bool CopyInit = false;   ///< `T name = e`
  bool RecordType = false; ///< a class type: `T name;` initializes it
  bool Scalar = false;     ///< derived by assign-kernel-scalars
  /// A parameter the kernel assigns: its statement (with no text) copies
  /// the call's value in; Name is the parameter's.
  bool FromParam = false;
  /// Not static, and initialized by a constant expression or computed from
  /// parameters, constants and other locals without side effects.
  bool Recomputable = false;
  /// The bits of its initial value (little-endian, as the scalar block
  /// stores it) when its initializer is a constant expression of a 4- or
  /// 8-byte integer or floating-point type (`float s = 0;`), or zero when
  /// such a local has no initializer (`float s;` starts each call at zero).
  std::optional<uint64_t> ConstantBits;
  bool Const = false;   ///< const-qualified or constexpr
  bool Written = false; ///< used other than as a plain read
  /// The locals its initializer reads: (statement id, index in Vars).
  llvm::SmallVector<std::pair<unsigned, unsigned>, 2> Deps;
};

/// A use of a top-level local inside another top-level statement.
struct LocalUse {
  unsigned StmtId; ///< the top-level (or block-level) statement using it
  SourceLoc Loc;
};

/// How a parallel loop may update a kernel scalar (DESIGN section 1.1):
/// `+=` and `-=` are Add.
enum class ReduceOp {
#define QDC_REDUCE_OP(ENUM, SPELLING, FUNCTOR) ENUM,
#include "qdc/KIR/ReduceOps.def"
};

/// "+=", "*=", "|=", "&=", "^=", "qd::atomic_min", "qd::atomic_max".
llvm::StringRef getReduceOpSpelling(ReduceOp Op);
/// The operation type generated code combines partial results with
/// ("qd::detail::op_add").
llvm::StringRef getReduceOpFunctor(ReduceOp Op);

/// An access to a top-level local from inside a top-level loop.
struct LoopAccess {
  enum Kind {
    Read,   ///< its value is read
    Reduce, ///< `s op= e`, or `qd::atomic_op(s, e);` with the result unused
    Atomic, ///< `qd::atomic_op(s, e)` whose old value is used: s itself
            ///< is updated, in the call's memory, at once
    Write   ///< anything else: assigned, incremented, address taken...
  };
  unsigned DeclId;   ///< the local statement declaring it
  unsigned VarIndex; ///< in that statement's Vars
  Kind What = Read;
  ReduceOp Op = ReduceOp::Add;
  bool InHeader = false; ///< in the loop's range, not its body
  SourceLoc Loc;
};

/// An access to memory that concurrent tasks share: an element of a field,
/// of an ndarray parameter or of a pointer parameter, in a top-level
/// statement (directly, or in a function it calls).
struct MemoryAccess {
  enum Target { Field, Param };
  Target On = Field;
  std::string Name; ///< the field's qualified name, or the parameter's
  bool Write = false;
  bool Atomic = false; ///< through qd::atomic_*
  /// Not done on every run of the statement (under an `if`, in a nested
  /// loop, in a called function), or with an index qdc cannot follow.
  bool Conditional = false;
  SourceLoc Loc;
  /// One per index, when every index is affine in the statement's loop
  /// indices: Coef * <loop index Dim> + Offset (Coef 0: a constant).
  struct Index {
    int Dim = -1; ///< which of the loop's index variables; -1: none
    int64_t Coef = 0;
    int64_t Offset = 0;
  };
  bool IndicesKnown = false;
  llvm::SmallVector<Index, 2> Indices;
  /// The struct members of the element it touches ("pos.x"); empty for the
  /// whole element.
  std::string Member;
};

struct Stmt;
/// The closed range of values an index takes over its statement's loop.
struct IndexRange {
  int64_t Lo, Hi;
};
/// The range of each index of A over S's loop: nothing where an index or a
/// bound is not known or the loop runs no iteration; empty when A's
/// indices are not known.
std::vector<std::optional<IndexRange>> getIndexRanges(const MemoryAccess &A,
                                                      const Stmt &S);

/// A statement at the top level of a kernel body or of a block in it.
struct Stmt {
  StmtKind Kind = StmtKind::Serial;
  /// Pre-order number within the kernel; tasks and uses refer to statements
  /// by it.
  unsigned Id = 0;
  SourceLoc Loc;
  /// The statement's text (without the `;` of an expression statement).
  TextRange Range;
  /// Id of the enclosing block, or NoParent at the kernel's top level.
  unsigned Parent = NoParent;
  static constexpr unsigned NoParent = ~0u;

  // Loop.
  LoopForm Form = LoopForm::Range;
  TextRange LoopBody; ///< the loop body's text
  /// Its accesses to the kernel's locals: one per (variable, kind, op).
  llvm::SmallVector<LoopAccess, 2> Accesses;
  /// A bound reads memory (a field, an ndarray or pointer element), which
  /// the loop's own iterations may change: its task evaluates the bounds on
  /// the device (Task::DeviceBounds), and form-tasks puts a serial task
  /// before it that evaluates them once, into the kernel-scalar block,
  /// where the loop reads them.
  bool BoundsReadMemory = false;
  /// A loop's reduction of variable VarIndex of local statement DeclId.
  const LoopAccess *findReduction(unsigned DeclId, unsigned VarIndex) const;
  /// Whether this loop updates the local by an atomic whose value it uses.
  bool hasAtomic(unsigned DeclId, unsigned VarIndex) const;
  std::string IndexType; ///< the index variable's type, e.g. "int"
  llvm::SmallVector<std::string, 2> IndexVars;
  llvm::SmallVector<Extent, 2> Extents;
  unsigned BlockDim = 0;                     ///< 0: the backend's default
  llvm::SmallVector<unsigned, 3> BlockShape; ///< as LoopConfig's
  /// Where the body calls qd::simt::block::sync (directly or through the
  /// functions it calls), if it does: the loop runs whole blocks.
  SourceLoc BlockSync;
  /// The body has a loop of its own (a serial one, run by each iteration).
  bool HasInnerLoop = false;
  /// The body is straight-line code: no branch, inner loop, lambda or call
  /// of a function outside the system headers (qdc's and the standard
  /// library's are known; the user's may hide any control flow).
  bool StraightLine = true;
  /// Offsets of the body's qd::simt::block::shared_array declarations,
  /// which GPU code makes __shared__.
  llvm::SmallVector<unsigned, 1> SharedArrays;

  /// Its accesses to fields, ndarray and pointer parameters.
  std::vector<MemoryAccess> Memory;

  // Local.
  std::string Name; ///< every name it declares, joined by ", "
  llvm::SmallVector<LocalVar, 1> Vars;
  /// Derived by analyze-locals: every variable is a constant expression, or
  /// computed from parameters and other shareable locals only, and never
  /// written, so every task can recompute it.
  bool Shareable = false;
  llvm::SmallVector<LocalUse, 1> Uses;

  // LoopConfig.
  LoopConfig Config;
  /// A top-level loop after `qd::loop_config({.serialize = true})`: a
  /// serial statement.
  bool SerializedLoop = false;
  /// Loop: at most this many CPU threads (loop_config's parallelize).
  unsigned Parallelize = 0;

  // Block.
  unsigned Group = 0; ///< 1, 2, ... in source order; 0 before assign-groups
  /// The statements of a block or of a graph loop's body.
  std::vector<Stmt> Body;

  // GraphLoop: the flag the body repeats on, a 0-d int32_t ndarray
  // parameter (its name) or field (its qualified name).
  std::string Flag;
  bool FlagIsField = false;
  /// Whether the body may write memory (it assigns something not declared
  /// in it, or calls a function); a body that cannot never clears its flag.
  bool BodyMayWrite = true;
};

/// A QD_STREAM_PARALLEL block found below the top level of a kernel.
struct StrayBlock {
  SourceLoc Loc;
  std::string Context; ///< what it is inside, e.g. "a loop"
};

enum class TaskKind { Range, NdRange, Serial, Fused };

/// "range", "ndrange", "serial" or "fused".
llvm::StringRef getTaskKindName(TaskKind K);

/// A block as the dumps show it: "256", or a tile "32x8".
std::string formatBlockDim(unsigned BlockDim, llvm::ArrayRef<unsigned> Shape);

/// A `qd::graph::do_while` loop: tasks [FirstTask, FirstTask + NumTasks)
/// of its kernel run, then run again while the flag is non-zero. A kernel
/// keeps its loops in preorder: a loop comes before the loops nested in
/// it, which lie within its tasks (two nested loops may have the same
/// tasks); sibling loops do not overlap.
struct GraphLoop {
  unsigned StmtId = 0; ///< the GraphLoop statement
  unsigned FirstTask = 0;
  unsigned NumTasks = 0;

  unsigned getEndTask() const { return FirstTask + NumTasks; }
};

/// With Loops in preorder: the index just past the loops nested in
/// Loops[I] (which follow it).
size_t getLoopNestEnd(llvm::ArrayRef<GraphLoop> Loops, size_t I);

/// A unit the runtime launches: one parallel loop, a run of consecutive
/// serial statements, or (fuse-tasks) several small ones of those that one
/// block of threads runs in turn.
struct Task {
  /// [<namespace>__]<kernel>_t<index>, a valid C identifier
  std::string Name;
  TaskKind Kind = TaskKind::Serial;
  unsigned Group = 0; ///< 0: runs on the launch stream
  unsigned BlockDim = 0;
  /// A tile of BlockDim threads over the last dimensions of an ndrange
  /// task, {x, y} or {x, y, z} (LoopConfig); empty for a plain block.
  llvm::SmallVector<unsigned, 3> BlockShape;
  /// A loop task whose body has a loop of its own: GPUs get a latency
  /// version of it too (qdrt_task_desc::latency_name), which launches too
  /// small to fill the device run.
  bool LatencyVersion = false;
  /// A loop task whose body is straight-line code (Stmt::StraightLine):
  /// a GPU unrolls its reduction loop four times. Not otherwise: ptxas
  /// (CUDA 13) miscompiled the warp shuffles after a four-times unrolled
  /// loop whose lanes took different paths through 20 or more nested
  /// branches, also in nvcc's own code (test/e2e/divergent.qd).
  bool UnrollReduction = false;
  unsigned CpuThreads = 0; ///< at most this many CPU threads; 0: all
  std::string IndexType;   ///< of a range task's index variable
  llvm::SmallVector<std::string, 2> IndexVars;
  llvm::SmallVector<Extent, 2> Extents;
  /// The extents are evaluated by the task itself when it starts, on the
  /// device, not by the launcher: set by form-tasks when a bound reads
  /// memory (Stmt::BoundsReadMemory) and by assign-kernel-scalars when one
  /// reads a kernel scalar. Stored here only.
  bool DeviceBounds = false;
  /// A serial task that only evaluates the bounds of the loop task after it
  /// (the loop's statement is its one statement) into the kernel-scalar
  /// block; that loop task has BoundsInScalars.
  bool EvaluatesBounds = false;
  /// Its non-constant bounds are read from the kernel-scalar block, where
  /// the task before it stored them.
  bool BoundsInScalars = false;
  llvm::SmallVector<unsigned, 2> StmtIds; ///< the statements it runs, in order
  SourceLoc Loc;
  /// Its place in the kernel's task list as form-tasks made it: what its
  /// qd::random numbers depend on, so that fusing does not change them.
  unsigned Index = 0;

  // Fused: the tasks it runs in order, in one block of BlockDim threads
  // with a block barrier between each two, and the do_while loops among
  // them (FirstTask and NumTasks count Parts). Its StmtIds are theirs.
  std::vector<Task> Parts;
  std::vector<GraphLoop> PartLoops;
};

/// How many iterations a loop task runs when its range is known at compile
/// time (a serial task runs one); nothing otherwise, or when the count
/// exceeds Limit.
std::optional<int64_t> getConstantTripCount(const Task &T, int64_t Limit);

struct Kernel {
  std::string Name;
  /// The enclosing namespace, qualified ("physics", "a::b"); empty at global
  /// scope. Unnamed namespaces are left out: their names are visible through
  /// the enclosing one.
  std::string Scope;
  SourceLoc Loc;
  /// From the return type to the closing brace of the body.
  TextRange Range;
  std::string ReturnType = "void";
  bool ReturnsVoid = true;
  /// The return type can be stored on the device and copied back: void or
  /// a scalar type (then ReturnType is its spelling, "int32_t").
  bool ReturnStorable = true;
  std::vector<Param> Params;
  std::vector<Stmt> Body;
  std::vector<StrayBlock> StrayBlocks;

  // Derived by the passes.
  std::vector<Task> Tasks;
  /// The qd::graph::do_while loops, in preorder (GraphLoop).
  std::vector<GraphLoop> Loops;
  unsigned NumGroups = 0;
  /// Ids of shareable locals that every task recomputes, in source order.
  llvm::SmallVector<unsigned, 2> RecomputedLocals;
  /// The kernel scalars, (local statement id, index in its Vars), in
  /// source order; derived by assign-kernel-scalars.
  llvm::SmallVector<std::pair<unsigned, unsigned>, 2> Scalars;
  /// `return e;` ending a non-void kernel: the statement's id, and e's text.
  std::optional<unsigned> ReturnStmt;
  TextRange ReturnValue;
  /// e is a top-level local of the return type itself, unconverted:
  /// (local statement id, index in its Vars).
  std::optional<std::pair<unsigned, unsigned>> ReturnLocal;
  /// The launcher copies the returned local's kernel-scalar slot back: the
  /// task that would store it for the return is gone (derived by
  /// return-kernel-scalar).
  bool ReturnsScalarSlot = false;

  /// The module's device code calls qd::random or qd::randn: each call of
  /// the kernel gets a new random key in its argument block.
  bool UsesRandom = false;
  /// QD_GRAPH: the runtime replays a cached graph of the tasks.
  bool IsGraph = false;
  /// QD_NOALIAS: its ndarray and pointer parameters reach disjoint memory
  /// (the launcher checks the ndarrays).
  bool NoAlias = false;
  bool hasScalars() const {
    return !Scalars.empty() || ReturnStmt || hasBoundSlots();
  }
  /// Some task reads its bounds from the kernel-scalar block.
  bool hasBoundSlots() const;
  /// Whether tasks take an argument block: parameters or kernel scalars.
  bool hasArgBlock() const {
    return !Params.empty() || hasScalars() || UsesRandom;
  }

  /// The statement with pre-order number Id, or null.
  const Stmt *findStmt(unsigned Id) const;
};

/// The kernel scalars (statement id, index in its Vars) of a serial task
/// of K that only sets kernel scalars to constants (each a LocalVar with
/// ConstantBits), in order; none for any other task. Such a task can be a
/// write of those values into the scalar block instead of a launch.
llvm::SmallVector<std::pair<unsigned, unsigned>, 2>
getScalarFills(const Kernel &K, const Task &T);

/// A QD_FUNC device function, or another function that uses a construct
/// reserved for kernels.
struct Function {
  std::string Name;
  SourceLoc Loc;
  bool IsDevice = true; ///< QD_FUNC
  std::vector<SourceLoc> StreamParallelBlocks;
};

/// A user struct that fields, ndarrays, parameters or return values hold:
/// trivially copyable, at namespace scope. The generated header declares it
/// for the host: a copy of its definition when the .qd defines it, else an
/// include of the header that does.
struct Record {
  std::string Name;     ///< unqualified
  std::string Scope;    ///< the enclosing namespaces, as Kernel::Scope
  TextRange Definition; ///< `struct X { ... }` in the main file
  std::string Header;   ///< the defining header's path, when not the .qd
  /// Its members in declaration order, when it is a plain aggregate (no
  /// base, every member public, none an array): what a Python module
  /// passes as a tuple. Empty otherwise.
  std::vector<std::string> Members;
  std::string getQualifiedName() const {
    return Scope.empty() ? Name : Scope + "::" + Name;
  }
};

/// The C++ spelling of an element: the struct's name, else the scalar's.
std::string getElemSpelling(ScalarType Elem, const std::string &Record);

/// A module-level qd::field<T, Dims...>.
struct Field {
  std::string Name; ///< as declared, unqualified
  /// The enclosing namespace, as Kernel::Scope.
  std::string Scope;
  std::string Symbol; ///< the linker name of the global
  ScalarType Elem = ScalarType::F32;
  /// The qualified name of a user struct element instead of Elem.
  std::string ElemRecord;
  llvm::SmallVector<int64_t, 3> Shape;
  SourceLoc Loc;
  /// The declaration (all declarators); storage qualifiers go before it.
  TextRange Decl;

  /// "scope::name", or "name" at global scope.
  std::string getQualifiedName() const {
    return Scope.empty() ? Name : Scope + "::" + Name;
  }
};

struct Module {
  std::string SourceFile;
  /// The main file's text; TextRanges index into it.
  std::string Source;
  std::vector<Field> Fields;
  std::vector<Function> Functions;
  std::vector<Kernel> Kernels;
  /// The module's code has a QD_ASSERT: it gets an assertion record.
  bool UsesAsserts = false;
  /// fuse-tasks may fuse small tasks (-fno-fuse-tasks turns it off).
  bool FuseTasks = true;
  /// The user structs used as elements, dependencies first.
  std::vector<Record> Records;
  /// Where the declarations of the user's functions that device code calls
  /// without QD_FUNC start in Source: GPU code makes them host and device.
  std::vector<unsigned> ImplicitDeviceFunctions;
  /// Device code calls the C math library (`expf`, `std::exp`, `sqrtf`):
  /// GPU code includes its device versions (qd/detail/device_cmath.h).
  bool UsesCMath = false;
};

/// Calls F on S and every statement nested in its blocks, in pre-order.
template <typename StmtT, typename FnT> void walkStmts(StmtT &S, FnT &&F) {
  F(S);
  for (auto &Child : S.Body)
    walkStmts(Child, F);
}

} // namespace qdc::kir

#endif // QDC_KIR_KERNEL_H
