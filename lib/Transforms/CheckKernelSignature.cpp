//===- CheckKernelSignature.cpp - Kernel return and parameter types -------===//
//
// Part of qdc. The launcher copies every argument into a flat argument block
// and nothing comes back from a kernel, so a kernel returns void and takes
// scalars and ndarrays only (DESIGN section 1).
//
//===----------------------------------------------------------------------===//

#include "qdc/Transforms/Passes.h"

using namespace qdc;
using namespace qdc::kir;

void qdc::checkKernelSignature(Module &M, DiagEngine &Diags) {
  for (const Kernel &K : M.Kernels) {
    if (!K.ReturnsVoid)
      Diags.report(DiagID::err_kernel_return_type, K.Loc)
          << K.Name << K.ReturnType;
    for (const Param &P : K.Params)
      if (P.Kind == ParamKind::Unsupported)
        Diags.report(DiagID::err_kernel_param_type, P.Loc)
            << P.Name << K.Name << P.Spelling
            << getScalarTypeSpellingList(/*OrLast=*/false);
  }
}
