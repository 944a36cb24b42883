//===- ImplicitHostDevice.h - User code callable on the device -*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels call the user's ordinary functions, member functions,
// operators, lambdas and templates without QD_FUNC. In the .qd itself the
// rewriter qualifies exactly the functions device code calls (a function
// only the host calls may use what the device lacks, and Clang would
// compile it for the device if it were host and device). In a device
// compile, every function declared in the user's headers (included from
// outside the system folders) is host and device, as inside Clang's
// `#pragma clang force_cuda_host_device`: header functions are inline, and
// compiled for the device only when called there. System headers keep their
// own attributes, so the C++ library's host declarations are not redeclared
// differently (which Clang rejects); its constexpr functions (`std::min`,
// `std::clamp`, `std::bit_cast`) are host and device anyway. Private to
// lib/CodeGen.
//
//===----------------------------------------------------------------------===//

#ifndef QDC_LIB_CODEGEN_IMPLICITHOSTDEVICE_H
#define QDC_LIB_CODEGEN_IMPLICITHOSTDEVICE_H

#include <memory>

namespace clang {
class FrontendAction;
} // namespace clang

namespace qdc::codegen {

/// Inner, run with the user's headers' functions host and device.
std::unique_ptr<clang::FrontendAction>
withImplicitHostDevice(std::unique_ptr<clang::FrontendAction> Inner);

} // namespace qdc::codegen

#endif // QDC_LIB_CODEGEN_IMPLICITHOSTDEVICE_H
