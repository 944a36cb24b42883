//===- PythonBindings.cpp - The nanobind module of a .qd ------------------===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// --emit=python and --emit-python=<file> (DESIGN section 5.1): a C++
// source that binds every kernel and field of the module with nanobind,
// through the generated header's C++ API and <qd/python.h>. The argument
// conversions are templates of <qd/python.h>, chosen by the launcher's
// parameter types; this file names the parameters and places each kernel
// and field in the Python module (a C++ namespace is a submodule).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "Names.h"

#include "qdc/CodeGen/CodeGen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace qdc;
using namespace qdc::kir;

/// Whether Spelling is a qd::vec or qd::mat, which Python passes as a
/// (nested) sequence.
static bool isLinalg(llvm::StringRef Spelling) {
  return Spelling.starts_with("qd::vec<") || Spelling.starts_with("qd::mat<");
}

/// Whether an array element of this type has a Python form: a scalar, a
/// vector, a matrix (an array of structs has none).
static bool hasPythonForm(const std::string &ElemRecord) {
  return ElemRecord.empty() || isLinalg(ElemRecord);
}

/// The plain struct (Record::Members) named Name, or null.
static const Record *findPlainStruct(const Module &M, llvm::StringRef Name) {
  for (const Record &R : M.Records)
    if (R.getQualifiedName() == Name && !R.Members.empty())
      return &R;
  return nullptr;
}

/// Whether a value passed or returned by value has a Python form: that of
/// an element, or a plain struct (a tuple).
static bool hasValueForm(const Module &M, const std::string &Record) {
  return hasPythonForm(Record) || findPlainStruct(M, Record);
}

static bool isScalarSpelling(llvm::StringRef Spelling) {
#define QDC_SCALAR_TYPE(ENUM, NAME, SPELLING, KIND, BYTES)                     \
  if (Spelling == SPELLING)                                                    \
    return true;
#include "qdc/KIR/ScalarTypes.def"
  return false;
}

/// The names define_runtime (<qd/python.h>) gives the module.
static bool isRuntimeName(llvm::StringRef Name) {
  for (llvm::StringRef R :
       {"init", "current_arch", "current_device", "device_count", "set_device",
        "sync", "reset", "set_random_seed", "create_stream", "create_event",
        "elapsed_ms", "register_torch_ops", "_dlpack_c_exchange", "Stream",
        "Event", "Field", "Array", "Buffer", "Error"})
    if (Name == R)
      return true;
  return false;
}

void qdc::checkPythonForms(const Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels) {
    if (K.Scope.empty() && isRuntimeName(K.Name))
      Diags.report(DiagID::err_python_name, K.Loc) << "kernel" << K.Name;
    if (!K.ReturnsVoid && !isScalarSpelling(K.ReturnType) &&
        !hasValueForm(M, K.ReturnType))
      Diags.report(DiagID::err_python_form, K.Loc)
          << "the return value" << ("kernel '" + K.Name + "'") << K.ReturnType;
    for (const Param &P : K.Params)
      if (P.Name == "stream")
        Diags.report(DiagID::err_python_stream_param, P.Loc) << K.Name;
    for (const Param &P : K.Params)
      if (P.Kind == ParamKind::Scalar ? !hasValueForm(M, P.ElemRecord)
                                      : !hasPythonForm(P.ElemRecord))
        Diags.report(DiagID::err_python_form, P.Loc)
            << ("parameter '" + P.Name + "'") << ("kernel '" + K.Name + "'")
            << P.Spelling;
  }
  for (const Field &F : M.Fields) {
    if (F.Scope.empty() && isRuntimeName(F.Name))
      Diags.report(DiagID::err_python_name, F.Loc) << "field" << F.Name;
    if (!hasPythonForm(F.ElemRecord))
      Diags.report(DiagID::err_python_form, F.Loc)
          << "the element" << ("field '" + F.getQualifiedName() + "'")
          << F.ElemRecord;
  }
}

/// A qualified C++ name as one Python identifier: its parts joined by
/// `_` ("a::b" is "a_b"; a leading "::" or an empty scope adds nothing).
static std::string joinScope(llvm::StringRef Qualified) {
  std::string Out;
  for (llvm::StringRef Part : llvm::split(Qualified, "::"))
    if (!Part.empty())
      Out += (Out.empty() ? "" : "_") + Part.str();
  return Out;
}

std::string qdc::getPythonModuleName(llvm::StringRef Namespace) {
  return joinScope(Namespace);
}

/// Adds the parameters that S (and the statements in it) writes.
static void addWrittenParams(const Stmt &S, std::vector<std::string> &Out) {
  for (const MemoryAccess &A : S.Memory)
    if (A.On == MemoryAccess::Param && A.Write &&
        !llvm::is_contained(Out, A.Name))
      Out.push_back(A.Name);
  for (const Stmt &Inner : S.Body)
    addWrittenParams(Inner, Out);
}

/// The array parameters K may write, in parameter order: those its memory
/// accesses write (as the stream-race check sees them), and every pointer
/// to non-const (qdc does not follow what is written through pointers).
/// What torch.library is told the op mutates.
static std::vector<std::string> getWrittenParams(const Kernel &K) {
  std::vector<std::string> Written, Out;
  for (const Stmt &S : K.Body)
    addWrittenParams(S, Written);
  for (const Param &P : K.Params)
    if ((P.Kind == ParamKind::Ndarray && llvm::is_contained(Written, P.Name)) ||
        (P.Kind == ParamKind::Pointer && !P.PointeeConst))
      Out.push_back(P.Name);
  return Out;
}

namespace {

/// Writes the bind function: each kernel and field into the (sub)module of
/// its C++ namespace.
class BindingEmitter {
public:
  BindingEmitter(const Module &M, llvm::StringRef Namespace,
                 llvm::raw_ostream &OS)
      : M(M), Namespace(Namespace), OS(OS) {}

  void emit(llvm::StringRef HeaderName) {
    std::string Name = getPythonModuleName(Namespace);
    OS << "// Generated by qdc from " << M.SourceFile
       << "; do not edit.\n// The Python module '" << Name
       << "' (DESIGN section 5.1): build it with qdc_add_python_module, or\n"
       << "// compile it with nanobind beside the object and header.\n"
       << "#include \"" << HeaderName << "\"\n\n#include <qd/python.h>\n\n";
    emitStructs();
    OS << "/// Adds the kernels and fields of " << M.SourceFile
       << " to m, and the runtime API.\n"
       << "void qd_python_bind_" << Name << "(nanobind::module_ &m) {\n"
       << "  qd::python::define_runtime(m);\n";
    for (const Kernel &K : M.Kernels)
      emitKernel(K);
    for (const Field &F : M.Fields)
      emitField(F);
    OS << "}\n\n#ifndef QD_PYTHON_NO_MODULE\nNB_MODULE(" << Name
       << ", m) { qd_python_bind_" << Name << "(m); }\n#endif\n";
  }

private:
  /// The plain structs as tuples: their members, in order, for
  /// <qd/python.h>.
  void emitStructs() {
    for (const Record &R : M.Records) {
      if (R.Members.empty())
        continue;
      std::string Name = codegen::names::qualified(R.Scope, R.Name);
      OS << "template <> struct qd::python::detail::Struct<" << Name
         << "> {\n  static constexpr auto members() {\n    return "
            "std::make_tuple(";
      for (size_t I = 0; I < R.Members.size(); ++I)
        OS << (I ? ", " : "") << '&' << Name << "::" << R.Members[I];
      OS << ");\n  }\n  static constexpr const char *names[] = {";
      for (size_t I = 0; I < R.Members.size(); ++I)
        OS << (I ? ", " : "") << '"' << R.Members[I] << '"';
      OS << "};\n};\n\n";
    }
  }

  /// The module object for Scope: m, or a submodule per namespace part.
  std::string getScopeModule(llvm::StringRef Scope) {
    std::string Out = "m";
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Scope.split(Parts, "::", -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts)
      Out += ".def_submodule(\"" + P.str() + "\")";
    return Out;
  }

  std::string getQualifiedName(llvm::StringRef Scope, llvm::StringRef Name) {
    std::string Scoped = Namespace.str();
    if (!Scope.empty())
      Scoped += "::" + Scope.str();
    return codegen::names::qualified(Scoped, Name);
  }

  void emitKernel(const Kernel &K) {
    OS << "  qd::python::def_kernel(" << getScopeModule(K.Scope) << ", \""
       << K.Name << "\", &" << getQualifiedName(K.Scope, K.Name) << ", {";
    std::string Doc = K.Name + "(";
    for (size_t I = 0; I < K.Params.size(); ++I) {
      OS << (I ? ", " : "") << '"' << K.Params[I].Name << '"';
      Doc += K.Params[I].Name + ", ";
    }
    Doc += "*, stream=None): kernel '" + K.Name + "' of " + M.SourceFile + ":" +
           std::to_string(K.Loc.Line) + ".";
    OS << "},\n      \"" << codegen::escapeForLiteral(Doc) << "\", {";
    std::vector<std::string> Written = getWrittenParams(K);
    for (size_t I = 0; I < Written.size(); ++I)
      OS << (I ? ", " : "") << '"' << Written[I] << '"';
    // The torch.library op's name: the kernel's, after its namespaces.
    OS << "}, \"" << joinScope(K.Scope + "::" + K.Name) << "\");\n";
  }

  void emitField(const Field &F) {
    OS << "  qd::python::def_field(" << getScopeModule(F.Scope) << ", \""
       << F.Name << "\", " << getQualifiedName(F.Scope, F.Name) << ");\n";
  }

  const Module &M;
  llvm::StringRef Namespace;
  llvm::raw_ostream &OS;
};

} // namespace

std::string qdc::generatePythonBindings(const Module &M,
                                        llvm::StringRef Namespace,
                                        llvm::StringRef HeaderName) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  BindingEmitter(M, Namespace, OS).emit(HeaderName);
  return Out;
}
