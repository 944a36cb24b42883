//===- qd/detail/math_list.h - The device math functions --------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The math functions of DESIGN section 1.2 that need a math
// library on GPUs (libdevice on CUDA, the ROCm device libraries on AMD; libm
// on the CPU), as X-macro lists: the GPU preludes declare the library's
// functions from them, kernel.h defines qd::<name> for float and double,
// and qd.h declares them for the parse. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_MATH_LIST_H
#define QD_DETAIL_MATH_LIST_H

/// One argument.
#define QD_MATH_LIBRARY_1_(X)                                                  \
  X(cbrt)                                                                      \
  X(exp)                                                                       \
  X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan)       \
      X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(erf) X(round)
/// Two arguments: pow, which kernel.h defines by hand, and the rest.
#define QD_MATH_LIBRARY_2_(X) X(pow) QD_MATH_LIBRARY_2_REST_(X)
#define QD_MATH_LIBRARY_2_REST_(X) X(atan2) X(fmod) X(hypot)

#endif // QD_DETAIL_MATH_LIST_H
