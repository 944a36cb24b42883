//===- Sema.h - The AST-level rules of the kernel language ------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every rule the frontend checks on Clang's AST, in one place
// (as Clang's Sema holds C++'s): what a kernel declaration, a field, a
// kernel's top-level statement and a loop_config may be. The KIR builder
// records what the source says and asks these checks; rules on the KIR are
// passes (lib/Transforms). Private to lib/Frontend.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_FRONTEND_SEMA_H
#define QDC_LIB_FRONTEND_SEMA_H

#include "ASTHelpers.h"

#include "qdc/KIR/Kernel.h"
#include "qdc/Support/Diagnostic.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <vector>

namespace qdc::frontend {

class Sema {
public:
  /// CheckDeviceCode: whether the rules of device code apply (not when
  /// only CPU code is generated).
  Sema(clang::ASTContext &Ctx, SourceInfo &Src, DiagEngine &Diags,
       bool CheckDeviceCode = true)
      : Ctx(Ctx), Src(Src), Diags(Diags), CheckDeviceCode(CheckDeviceCode) {}

  /// A QD_KERNEL is a function at namespace scope, not a template.
  bool checkKernelDecl(const clang::FunctionDecl *FD);
  /// A field has external linkage and an element type Elem that is a
  /// scalar or a user struct (getRecord); returns the scalar type, or
  /// U8 with the struct's name in Record.
  std::optional<kir::ScalarType> checkField(const clang::VarDecl *V,
                                            clang::QualType Elem,
                                            std::string &Record);
  /// The qualified name of T when it is a user struct that can be an
  /// element, a parameter or a return value: trivially copyable, not a
  /// template, at namespace scope, in the user's files, its members scalars,
  /// arrays or such structs. Remembers it (and the structs it holds) for
  /// the generated header.
  std::optional<std::string> getRecord(clang::QualType T);
  /// The structs getRecord accepted, dependencies first.
  std::vector<kir::Record> takeRecords();
  /// A top-level statement S of Kernel, built as Built: a `for` must have
  /// been recognised as a parallel loop, and jumps cannot stand alone.
  void checkTopLevelStmt(const clang::Stmt *S, const kir::Stmt &Built,
                         llvm::StringRef Kernel);
  /// loop_config's options, constants: block_dim between 0 (the default)
  /// and 1024, parallelize not negative.
  std::optional<kir::LoopConfig> checkLoopConfig(const clang::CallExpr *Call);
  /// A name that becomes a GPU symbol (a kernel's task entry points, a
  /// field's global, a QD_FUNC) is ASCII, and so is its namespace. What is
  /// "kernel", "field" or "QD_FUNC".
  bool checkSymbolName(const clang::NamedDecl *D, llvm::StringRef What);
  /// Kernels are not overloaded: FD's name was not used by an earlier one.
  bool checkKernelUnique(const clang::FunctionDecl *FD);
  /// One node of device code (a kernel or a QD_FUNC body): no `new`,
  /// `delete`, inline assembly, exceptions, call of a function with no
  /// definition or of a host-only library function. The user's functions it
  /// calls are checked too, once each.
  void checkDeviceNode(const clang::Stmt *S);
  /// The body of a top-level parallel loop does not `break` out of it or
  /// `return`.
  void checkNoBreak(const clang::Stmt *Body);
  /// qd::loop_config stands only at a kernel's top level, before a loop: S
  /// is below it.
  void checkNotLoopConfig(const clang::Stmt *S);
  /// The bounds of a top-level loop are spelled in the file, not in a
  /// macro's body. Returns whether one reads memory (a field, an ndarray
  /// or pointer element): the task then evaluates them on the device.
  bool checkLoopBounds(const clang::Stmt *Loop,
                       llvm::ArrayRef<const clang::Expr *> Bounds);

  /// `while (qd::graph::do_while(flag))` W in kernel Kernel: a QD_GRAPH
  /// kernel (IsGraph), at its top level or in another loop's body
  /// (Misplaced names what it is inside otherwise), inside at most
  /// MaxGraphLoopDepth - 1 other loops (Depth of them), no condition
  /// variable, a flag that is a 0-d int32_t ndarray parameter or field (set
  /// in Built), and no jump out of its body.
  void checkGraphLoop(const clang::WhileStmt *W, const clang::CallExpr *Call,
                      const clang::FunctionDecl *Kernel, bool IsGraph,
                      const char *Misplaced, unsigned Depth, kir::Stmt &Built);
  /// Call is not a qd::graph::do_while: those that stand as a top-level
  /// while's condition are never walked.
  void checkNoDoWhile(const clang::CallExpr *Call);

  /// A declaration of a qd::simt::block::shared_array in a parallel loop's
  /// body: alone, no initializer or storage class, spelled in the .qd, and
  /// within a block's static shared memory with the loop's other shared
  /// arrays (LoopBytes: theirs so far, this one's added). Returns the
  /// offset where GPU code puts `__shared__`.
  std::optional<unsigned> checkSharedArrayDecl(const clang::DeclStmt *DS,
                                               uint64_t &LoopBytes);
  /// The first qd::random or qd::randn call of a parallel loop: its
  /// threads' states take RngSharedBytes of the block's shared memory,
  /// added to LoopBytes and checked against the limit.
  void checkRandomSharedBytes(const clang::CallExpr *Call, uint64_t &LoopBytes);
  /// Adds P's bytes to its kernel's argument block (Bytes, laid out as C++
  /// lays out a struct; an ndarray counted as its pointer alone, so the sum
  /// is a lower bound) and reports the parameter that takes it past what a
  /// GPU task may take (ptxas named only the task). False when reported.
  bool checkParamBytes(const clang::ParmVarDecl *P, uint64_t &Bytes);
  /// The same for the pointer to a kernel's return value and scalars,
  /// which follows its parameters in the block; reported at the kernel.
  void checkScalarsPointerBytes(const clang::FunctionDecl *FD, uint64_t Bytes);
  /// A shared_array V declared anywhere else.
  void reportMisplacedSharedArray(const clang::VarDecl *V);
  /// qd::simt::block::sync reached, at Loc, from a serial statement.
  void reportSerialBlockSync(clang::SourceLocation Loc);

  /// Where, in the main file, the declarations of the user's functions that
  /// device code calls start (without QD_FUNC): the device compile makes
  /// them host and device.
  std::vector<unsigned> getImplicitDeviceFunctionStarts() const;
  /// Whether device code calls the C math library.
  bool usesCMath() const { return UsesCMath; }

  /// qdc's own walks over the AST stop at MaxNesting levels: false (and an
  /// error, the first time) when S, at Depth, is deeper.
  bool checkNesting(const clang::Stmt *S, unsigned Depth);

  static constexpr unsigned MaxNesting = 200000;

private:
  std::optional<uint64_t> getSharedArrayBytes(clang::QualType T) const;

  clang::ASTContext &Ctx;
  SourceInfo &Src;
  DiagEngine &Diags;
  bool CheckDeviceCode;
  bool ReportedNesting = false;
  bool UsesCMath = false;
  llvm::SetVector<const clang::CXXRecordDecl *> Records;
  /// The user's functions device code calls whose bodies were checked.
  llvm::SetVector<const clang::FunctionDecl *> CheckedCallees;

  void checkDeviceBody(const clang::Stmt *Body);
  void checkDeviceVariable(const clang::DeclRefExpr *Ref);
  bool addRecord(const clang::CXXRecordDecl *RD, unsigned Depth);
  /// Kernels seen so far, by qualified name.
  llvm::StringMap<const clang::FunctionDecl *> Kernels;
};

} // namespace qdc::frontend

#endif // QDC_LIB_FRONTEND_SEMA_H
