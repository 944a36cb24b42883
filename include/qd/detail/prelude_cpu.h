//===- qd/detail/prelude_cpu.h - Generated code for the CPU -----*- C++ -*-===//
//
// Part of qdc. Starts the host translation unit qdc generates: the CPU code
// of every task, the launchers and the module descriptor. Not for users.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_PRELUDE_CPU_H
#define QD_DETAIL_PRELUDE_CPU_H

#include <cmath>
#include <cstddef>
#include <cstdint>

#define QD_DEVICE_FN
#define QD_MATH_ATTR_(name)
#define QD_MATH_F32_(name) std::name
#define QD_MATH_F64_(name) std::name

#include "qd/detail/kernel.h"

#endif // QD_DETAIL_PRELUDE_CPU_H
