//===- Kernel.cpp - The kernel IR -----------------------------------------===//
//
// Part of qdc.
//
//===----------------------------------------------------------------------===//

#include "qdc/KIR/Kernel.h"

#include "llvm/Support/ErrorHandling.h"

using namespace qdc::kir;

llvm::StringRef qdc::kir::getScalarTypeName(ScalarType T) {
  switch (T) {
  case ScalarType::Bool:
    return "bool";
  case ScalarType::I32:
    return "i32";
  case ScalarType::I64:
    return "i64";
  case ScalarType::U32:
    return "u32";
  case ScalarType::U64:
    return "u64";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  }
  llvm_unreachable("unknown ScalarType");
}

llvm::StringRef qdc::kir::getScalarTypeSpelling(ScalarType T) {
  switch (T) {
  case ScalarType::Bool:
    return "bool";
  case ScalarType::I32:
    return "int32_t";
  case ScalarType::I64:
    return "int64_t";
  case ScalarType::U32:
    return "uint32_t";
  case ScalarType::U64:
    return "uint64_t";
  case ScalarType::F32:
    return "float";
  case ScalarType::F64:
    return "double";
  }
  llvm_unreachable("unknown ScalarType");
}

unsigned qdc::kir::getScalarTypeSize(ScalarType T) {
  switch (T) {
  case ScalarType::Bool:
    return 1;
  case ScalarType::I32:
  case ScalarType::U32:
  case ScalarType::F32:
    return 4;
  case ScalarType::I64:
  case ScalarType::U64:
  case ScalarType::F64:
    return 8;
  }
  llvm_unreachable("unknown ScalarType");
}

llvm::StringRef qdc::kir::getTaskKindName(TaskKind K) {
  switch (K) {
  case TaskKind::Range:
    return "range";
  case TaskKind::NdRange:
    return "ndrange";
  case TaskKind::Serial:
    return "serial";
  }
  llvm_unreachable("unknown TaskKind");
}

static const Stmt *findIn(const std::vector<Stmt> &Stmts, unsigned Id) {
  for (const Stmt &S : Stmts) {
    if (S.Id == Id)
      return &S;
    if (const Stmt *Found = findIn(S.Body, Id))
      return Found;
  }
  return nullptr;
}

const Stmt *Kernel::findStmt(unsigned Id) const { return findIn(Body, Id); }
