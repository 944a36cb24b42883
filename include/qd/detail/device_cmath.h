//===- qd/detail/device_cmath.h - The C math library on GPUs ----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Device versions of the C math functions (`expf`, `exp`, `std::exp`,
// `sqrtf`, ...), as CUDA's own headers give nvcc's users, computed by the
// qd:: functions (qd/detail/kernel.h) or the compiler's builtins. qdc
// includes it at the top of a GPU compile when the module's device code
// calls one of them (a module that does not keeps names such as `log` free
// for its own globals). Not for users.
//
// The order is Clang's own for CUDA: the device declarations come first,
// so that <cmath>'s `using ::exp;` brings the device ::exp(double) into
// std, and so that libstdc++'s constexpr `std::exp(float)` stays a host
// function beside the device one declared here (Clang accepts that only
// when the device one is in a system header, as this one is).
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_DEVICE_CMATH_H
#define QD_DETAIL_DEVICE_CMATH_H

#pragma clang system_header

#ifndef QD_DEVICE_FN
#error "include a GPU prelude, not qd/detail/device_cmath.h"
#endif

#define QD_CMATH_FN_ static __device__ __attribute__((always_inline)) inline

// The functions with a qd:: version (math_list.h), then those the compiler
// does itself.
#define QD_CMATH_QD_1_(X) QD_MATH_LIBRARY_1_(X)
#define QD_CMATH_QD_2_(X) QD_MATH_LIBRARY_2_(X)
#define QD_CMATH_BUILTIN_1_(X) X(sqrt) X(floor) X(ceil) X(trunc) X(fabs)
#define QD_CMATH_BUILTIN_2_(X) X(fmin) X(fmax)

#define QD_CMATH_DECLARE_1_(name)                                              \
  QD_CMATH_FN_ float name##f(float);                                           \
  QD_CMATH_FN_ double name(double);                                            \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float);                                              \
  }
#define QD_CMATH_DECLARE_2_(name)                                              \
  QD_CMATH_FN_ float name##f(float, float);                                    \
  QD_CMATH_FN_ double name(double, double);                                    \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float, float);                                       \
  }
QD_CMATH_QD_1_(QD_CMATH_DECLARE_1_)
QD_CMATH_BUILTIN_1_(QD_CMATH_DECLARE_1_)
QD_CMATH_QD_2_(QD_CMATH_DECLARE_2_)
QD_CMATH_BUILTIN_2_(QD_CMATH_DECLARE_2_)
QD_CMATH_FN_ float fmaf(float, float, float);
QD_CMATH_FN_ double fma(double, double, double);
namespace std {
QD_CMATH_FN_ float fma(float, float, float);
}
#undef QD_CMATH_DECLARE_1_
#undef QD_CMATH_DECLARE_2_

#include <cmath>

#define QD_CMATH_DEFINE_1_(name, how)                                          \
  QD_CMATH_FN_ float name##f(float x) { return how(x); }                       \
  QD_CMATH_FN_ double name(double x) { return how(x); }                        \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float x) { return how(x); }                          \
  }
#define QD_CMATH_DEFINE_2_(name, how)                                          \
  QD_CMATH_FN_ float name##f(float x, float y) { return how(x, y); }           \
  QD_CMATH_FN_ double name(double x, double y) { return how(x, y); }           \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float x, float y) { return how(x, y); }              \
  }
#define QD_CMATH_BY_QD_1_(name) QD_CMATH_DEFINE_1_(name, ::qd::name)
#define QD_CMATH_BY_QD_2_(name) QD_CMATH_DEFINE_2_(name, ::qd::name)
QD_CMATH_QD_1_(QD_CMATH_BY_QD_1_)
QD_CMATH_QD_2_(QD_CMATH_BY_QD_2_)
// The builtins, which every GPU target compiles to its own instructions.
#define QD_CMATH_BY_BUILTIN_1_(name)                                           \
  QD_CMATH_FN_ float name##f(float x) { return __builtin_##name##f(x); }       \
  QD_CMATH_FN_ double name(double x) { return __builtin_##name(x); }           \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float x) { return __builtin_##name##f(x); }          \
  }
#define QD_CMATH_BY_BUILTIN_2_(name)                                           \
  QD_CMATH_FN_ float name##f(float x, float y) {                               \
    return __builtin_##name##f(x, y);                                          \
  }                                                                            \
  QD_CMATH_FN_ double name(double x, double y) {                               \
    return __builtin_##name(x, y);                                             \
  }                                                                            \
  namespace std {                                                              \
  QD_CMATH_FN_ float name(float x, float y) {                                  \
    return __builtin_##name##f(x, y);                                          \
  }                                                                            \
  }
QD_CMATH_BUILTIN_1_(QD_CMATH_BY_BUILTIN_1_)
QD_CMATH_BUILTIN_2_(QD_CMATH_BY_BUILTIN_2_)
#undef QD_CMATH_BY_BUILTIN_1_
#undef QD_CMATH_BY_BUILTIN_2_
QD_CMATH_FN_ float fmaf(float x, float y, float z) {
  return __builtin_fmaf(x, y, z);
}
QD_CMATH_FN_ double fma(double x, double y, double z) {
  return __builtin_fma(x, y, z);
}
namespace std {
QD_CMATH_FN_ float fma(float x, float y, float z) {
  return __builtin_fmaf(x, y, z);
}
} // namespace std

// libstdc++'s templates for other arithmetic arguments (`std::exp(int)`,
// `std::pow(float, int)`): double, or the two arguments' common floating
// type, as the C++ standard says.
namespace std {
#define QD_CMATH_PROMOTED_1_(name)                                             \
  template <typename T>                                                        \
  QD_CMATH_FN_ typename enable_if<is_integral<T>::value, double>::type name(   \
      T x) {                                                                   \
    return ::qd::name(double(x));                                              \
  }
#define QD_CMATH_PROMOTED_2_(name)                                             \
  template <typename T, typename U>                                            \
  QD_CMATH_FN_                                                                 \
      typename enable_if<is_arithmetic<T>::value && is_arithmetic<U>::value && \
                             !(is_same<T, U>::value &&                         \
                               is_floating_point<T>::value),                   \
                         decltype(double() + T() + U())>::type                 \
      name(T x, U y) {                                                         \
    using R = decltype(double() + T() + U());                                  \
    return ::qd::name(R(x), R(y));                                             \
  }
QD_MATH_LIBRARY_1_(QD_CMATH_PROMOTED_1_)
QD_MATH_LIBRARY_2_(QD_CMATH_PROMOTED_2_)
#undef QD_CMATH_PROMOTED_1_
#undef QD_CMATH_PROMOTED_2_
} // namespace std

#undef QD_CMATH_DEFINE_1_
#undef QD_CMATH_DEFINE_2_
#undef QD_CMATH_BY_QD_1_
#undef QD_CMATH_BY_QD_2_
#undef QD_CMATH_QD_1_
#undef QD_CMATH_QD_2_
#undef QD_CMATH_BUILTIN_1_
#undef QD_CMATH_BUILTIN_2_
#undef QD_CMATH_FN_

#endif // QD_DETAIL_DEVICE_CMATH_H
