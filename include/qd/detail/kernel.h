//===- qd/detail/kernel.h - Kernel-side types, generated code ---*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the kernel vocabulary of <qd/qd.h> becomes in the code
// qdc generates, shared by every target. A target prelude defines
// QD_DEVICE_FN (how functions are qualified) and the QD_MATH_* hooks, then
// includes this file. Not for users: include <qd/qd.h> in .qd files.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DETAIL_KERNEL_H
#define QD_DETAIL_KERNEL_H

#ifndef QD_DEVICE_FN
#error "include a target prelude, not qd/detail/kernel.h"
#endif

// A .qd file's own `#include <qd/qd.h>` is satisfied by this prelude.
#define QD_QD_H
#define QD_KERNEL
#define QD_STREAM_PARALLEL
#define QD_FUNC QD_DEVICE_FN
#define QD_GRAPH
#define QD_NOALIAS

#include "qd/abi.h"
#include "qd/detail/math_list.h"
#include "qd/linalg.h"

// The module's assertion record, which the generated code defines when the
// module has a QD_ASSERT or an assert, or is built with qdc --debug.
extern QD_GLOBAL_ qdrt_assert_record qd_assert_record_;

#if !defined(__CUDA__) && !defined(__HIP__)
namespace qd::detail {
/// The CPU: the record of the launch whose chunk this thread runs, set by
/// libqdrt (which defines it) around each chunk, so that a failure is the
/// failing launch's and stream's, not its module's; null outside a launch,
/// where the module's record is used.
extern __thread qdrt_assert_record *cpu_assert_record_;
inline qdrt_assert_record *assert_record_(qdrt_assert_record *module) {
  qdrt_assert_record *launch = cpu_assert_record_;
  return launch ? launch : module;
}
} // namespace qd::detail
/// The record a failure of this thread's code goes to.
#define QD_ASSERT_RECORD_() (::qd::detail::assert_record_(&::qd_assert_record_))
#else
/// GPUs: the module's record, which the runtime reads at synchronizations.
#define QD_ASSERT_RECORD_() (&::qd_assert_record_)
#endif

namespace qd {

namespace detail {
#ifdef QD_DEBUG
/// An index and where the user wrote it: the defaults of its converting
/// constructor are evaluated at the subscript in the user's code (qdc
/// --debug only; otherwise an index is a plain int64_t).
struct index_at_ {
  int64_t v;
  unsigned line;
  const char *file;
  const char *function;
  QD_DEVICE_FN index_at_(int64_t v, unsigned line = __builtin_LINE(),
                         const char *file = __builtin_FILE(),
                         const char *function = __builtin_FUNCTION())
      : v(v), line(line), file(file), function(function) {}
};
using index_t_ = index_at_;
QD_DEVICE_FN inline int64_t index_value_(const index_at_ &i) { return i.v; }
#else
using index_t_ = int64_t;
QD_DEVICE_FN inline int64_t index_value_(int64_t i) { return i; }
#endif
/// qdc --debug: records "index <i> is out of bounds of <what> of shape
/// (<dims>)" as the module's assertion failure (QD_ASSERT's path), at the
/// subscript's line.
QD_DEVICE_FN void bounds_fail_(const char *what, const index_t_ &index,
                               const int64_t *shape, int rank);
/// The element a failed check returns instead (the loops stop at their
/// next iteration).
template <typename T> QD_GLOBAL_ T bounds_dummy_var_;
template <typename T> QD_DEVICE_FN T &bounds_dummy_() {
  return bounds_dummy_var_<T>;
}
} // namespace detail

#ifdef QD_DEBUG
#define QD_CHECK_INDEX_(what, i, n, shape, rank)                               \
  if (::qd::detail::index_value_(i) < 0 ||                                     \
      ::qd::detail::index_value_(i) >= (n)) {                                  \
    ::qd::detail::bounds_fail_(what, i, shape, rank);                          \
    return ::qd::detail::bounds_dummy_<T>();                                   \
  }
// Subscripts with up to four indices, each with its position; the body
// (the macro's last argument) computes the element from idx[], an array
// of index_at_.
#define QD_INDEXED_CALLS_(Const, Rank, ...)                                    \
  QD_DEVICE_FN T &operator()() Const {                                         \
    static_assert(Rank == 0, "one index per dimension");                       \
    const detail::index_at_ idx[] = {{0}};                                     \
    __VA_ARGS__                                                                \
  }                                                                            \
  QD_DEVICE_FN T &operator()(detail::index_at_ a) Const {                      \
    static_assert(Rank == 1, "one index per dimension");                       \
    const detail::index_at_ idx[] = {a};                                       \
    __VA_ARGS__                                                                \
  }                                                                            \
  QD_DEVICE_FN T &operator()(detail::index_at_ a, detail::index_at_ b) Const { \
    static_assert(Rank == 2, "one index per dimension");                       \
    const detail::index_at_ idx[] = {a, b};                                    \
    __VA_ARGS__                                                                \
  }                                                                            \
  QD_DEVICE_FN T &operator()(detail::index_at_ a, detail::index_at_ b,         \
                             detail::index_at_ c) Const {                      \
    static_assert(Rank == 3, "one index per dimension");                       \
    const detail::index_at_ idx[] = {a, b, c};                                 \
    __VA_ARGS__                                                                \
  }                                                                            \
  QD_DEVICE_FN T &operator()(detail::index_at_ a, detail::index_at_ b,         \
                             detail::index_at_ c, detail::index_at_ d) Const { \
    static_assert(Rank == 4, "one index per dimension");                       \
    const detail::index_at_ idx[] = {a, b, c, d};                              \
    __VA_ARGS__                                                                \
  }
#else
#define QD_CHECK_INDEX_(what, i, n, shape, rank)
#endif

namespace detail {
/// An index given as an integer vector, one component per dimension:
/// `f[qd::ivec2{i, j}]` is f(i, j). Under --debug it also carries the
/// subscript's position (its converting constructor's default arguments are
/// evaluated at the user's subscript, as index_at_'s are).
template <int N> struct vec_index_ {
  int64_t v[N > 0 ? N : 1];
#ifdef QD_DEBUG
  unsigned line;
  const char *file;
  const char *function;
#endif
  template <typename I, typename if_rows_<scalar_kind_<I>::value == 1>::type = 0>
  QD_DEVICE_FN vec_index_(const vec<I, N> &x
#ifdef QD_DEBUG
                          ,
                          unsigned line = __builtin_LINE(),
                          const char *file = __builtin_FILE(),
                          const char *function = __builtin_FUNCTION()
#endif
                          )
#ifdef QD_DEBUG
      : line(line), file(file), function(function)
#endif
  {
    for (int d = 0; d < N; ++d)
      v[d] = int64_t(x[d]);
  }
#ifdef QD_DEBUG
  QD_DEVICE_FN index_at_ at(int d) const {
    return index_at_(v[d], line, file, function);
  }
#else
  QD_DEVICE_FN int64_t at(int d) const { return v[d]; }
#endif
};
} // namespace detail

/// A module-level field: the storage itself. On GPUs the generated code
/// makes the variable a device global; on the CPU it is a host global.
template <typename T, int64_t... Dims> struct field {
  static constexpr int rank = sizeof...(Dims);
  static constexpr int64_t size = (Dims * ... * int64_t(1));
  // At least 4-byte aligned and sized: an 8- or 16-bit atomic is a
  // compare-and-swap of the enclosing 32-bit word, which must lie inside.
  // Mutable: qd.h shows const accessors that give writable elements (a
  // field is a global; a `const field &` parameter names the same storage).
  alignas(sizeof(T) < 4 ? 4 : alignof(T)) mutable T data[size];

  // The arrays below end in a 0 so that a rank-0 field has them too.
  static constexpr QD_DEVICE_FN int64_t shape(int d) {
    constexpr int64_t dims[] = {Dims..., 0};
    return dims[d];
  }
  QD_DEVICE_FN T &operator[](detail::index_t_ i) const {
    [[maybe_unused]] constexpr int64_t dims[] = {Dims..., 0};
    QD_CHECK_INDEX_("a field", i, size, dims, rank)
    return data[detail::index_value_(i)];
  }
#ifdef QD_DEBUG
  QD_INDEXED_CALLS_(const, rank, {
    constexpr int64_t dims[] = {Dims..., 0};
    int64_t flat = 0;
    for (int d = 0; d < rank; ++d) {
      QD_CHECK_INDEX_("a field", idx[d], dims[d], dims, rank)
      flat = flat * dims[d] + idx[d].v;
    }
    return data[flat];
  })
#endif
  QD_DEVICE_FN T &operator[](const detail::vec_index_<rank> &i) const {
    [[maybe_unused]] constexpr int64_t dims[] = {Dims..., 0};
    int64_t flat = 0;
    for (int d = 0; d < rank; ++d) {
      QD_CHECK_INDEX_("a field", i.at(d), dims[d], dims, rank)
      flat = flat * dims[d] + i.v[d];
    }
    return data[flat];
  }
#ifndef QD_DEBUG
  template <typename... Is> QD_DEVICE_FN T &operator()(Is... is) const {
    static_assert(sizeof...(Is) == sizeof...(Dims),
                  "a field is indexed with one index per dimension");
    const int64_t idx[] = {int64_t(is)..., 0};
    constexpr int64_t dims[] = {Dims..., 0};
    int64_t flat = 0;
    for (int d = 0; d < rank; ++d)
      flat = flat * dims[d] + idx[d];
    return data[flat];
  }
#endif
};

/// An ndarray argument: a pointer and a shape, row-major. The launcher
/// fills it from a host qd::Ndarray.
template <typename T, int Dims> struct ndarray {
  T *ptr;
  int64_t extent[Dims > 0 ? Dims : 1]; // rank 0: one value, no extent

  QD_DEVICE_FN int64_t shape(int d) const { return extent[d]; }
  QD_DEVICE_FN T &operator[](detail::index_t_ i) const {
#ifdef QD_DEBUG
    // An array without memory has no valid index.
    int64_t n = ptr ? 1 : 0;
    for (int d = 0; d < Dims; ++d)
      n *= extent[d];
    QD_CHECK_INDEX_("an ndarray", i, n, extent, Dims)
#endif
    return ptr[detail::index_value_(i)];
  }
#ifdef QD_DEBUG
  QD_INDEXED_CALLS_(const, Dims, {
    int64_t flat = 0;
    for (int d = 0; d < Dims; ++d) {
      QD_CHECK_INDEX_("an ndarray", idx[d], extent[d], extent, Dims)
      flat = flat * extent[d] + idx[d].v;
    }
    if (!ptr) {
      detail::bounds_fail_("an ndarray", idx[0], extent, Dims);
      return detail::bounds_dummy_<T>();
    }
    return ptr[flat];
  })
#endif
  QD_DEVICE_FN T &operator[](const detail::vec_index_<Dims> &i) const {
    int64_t flat = 0;
    for (int d = 0; d < Dims; ++d) {
      QD_CHECK_INDEX_("an ndarray", i.at(d), extent[d], extent, Dims)
      flat = flat * extent[d] + i.v[d];
    }
#ifdef QD_DEBUG
    if (!ptr) {
      detail::bounds_fail_("an ndarray", i.at(0), extent, Dims);
      return detail::bounds_dummy_<T>();
    }
#endif
    return ptr[flat];
  }
#ifndef QD_DEBUG
  template <typename... Is> QD_DEVICE_FN T &operator()(Is... is) const {
    static_assert(sizeof...(Is) == Dims,
                  "an ndarray is indexed with one index per dimension");
    const int64_t idx[] = {int64_t(is)..., 0};
    int64_t flat = 0;
    for (int d = 0; d < Dims; ++d)
      flat = flat * extent[d] + idx[d];
    return ptr[flat];
  }
#endif
};

namespace detail {
/// An ndarray parameter as a tiled task's narrow entry binds it: its
/// offsets in 32 bits, which the launch allows only when every ndarray
/// argument has fewer than 2^31 elements (qdrt_task_desc::narrow_grid), so
/// that an element's offset and each of its indices fit them. Under
/// --debug, the checked ndarray as it is.
///
/// Only an element of two or more indices gains (a one-index offset needs no
/// multiply): the offset of its row (every index but the last) is 32-bit
/// multiply-adds, widened once for the address, and the last index is
/// added to the pointer as it is, so that the elements of one row share an
/// address and differ by constants (`in(i, j, k - 1)` and `in(i, j, k + 1)`
/// one load apart, as in a CUDA kernel; in the 32-bit offset LLVM cannot
/// tell that `k + 1` does not wrap around). The extents are 32-bit values
/// LLVM cannot see through (narrow_extent_, an empty `asm`): were they
/// truncations of the 64-bit ones, LLVM would evaluate the whole offset in
/// 64 bits and sign-extend it in the register, costlier than the plain
/// 64-bit offset on a GPU. They are taken once, when the entry binds its
/// parameter, before any loop of the body: an `asm` is convergent in CUDA
/// code, and LLVM neither hoists one out of a loop nor unrolls a loop
/// holding one (a matrix product's inner loop).
template <typename T, int Dims> struct narrow_ndarray_ : ndarray<T, Dims> {
#ifdef QD_DEBUG
  QD_DEVICE_FN narrow_ndarray_(const ndarray<T, Dims> &a)
      : ndarray<T, Dims>(a) {}
#else
  QD_DEVICE_FN narrow_ndarray_(const ndarray<T, Dims> &a)
      : ndarray<T, Dims>(a) {
    for (int d = 0; d < Dims; ++d)
      narrow_extent[d] = narrow_extent_(int32_t(a.extent[d]));
  }
  using ndarray<T, Dims>::operator();
  template <typename... Is> QD_DEVICE_FN T &operator()(Is... is) const {
    static_assert(sizeof...(Is) == Dims,
                  "an ndarray is indexed with one index per dimension");
    if constexpr (Dims < 2) {
      return ndarray<T, Dims>::operator()(is...);
    } else {
      const int64_t idx[] = {int64_t(is)...};
      int32_t row = int32_t(idx[0]);
      for (int d = 1; d < Dims - 1; ++d)
        row = row * narrow_extent[d] + int32_t(idx[d]);
      row *= narrow_extent[Dims - 1];
      return (this->ptr + idx[Dims - 1])[row];
    }
  }

private:
  int32_t narrow_extent[Dims];
#endif
};
} // namespace detail

// Ranges in device code: a `qd::range`/`qd::ndrange` loop nested in a loop
// body, a serial statement or a QD_FUNC runs in order in its thread (qdc
// turns only a kernel's top-level loops into parallel tasks).
namespace detail {
template <typename T> struct range_t {
  T first, last;
  struct iterator {
    T value;
    QD_DEVICE_FN T operator*() const { return value; }
    QD_DEVICE_FN iterator &operator++() {
      ++value;
      return *this;
    }
    QD_DEVICE_FN bool operator!=(const iterator &o) const {
      return value < o.value;
    }
  };
  QD_DEVICE_FN iterator begin() const { return {first}; }
  QD_DEVICE_FN iterator end() const { return {last}; }
};

template <int N> struct ndrange_t {
  int64_t lo[N], hi[N];
  /// Row-major order: the last dimension varies fastest.
  struct iterator {
    int64_t index[N];
    const ndrange_t *range;
    bool done;
    QD_DEVICE_FN const int64_t (&operator*() const)[N] { return index; }
    QD_DEVICE_FN iterator &operator++() {
      for (int d = N - 1; d >= 0; --d) {
        if (++index[d] < range->hi[d])
          return *this;
        index[d] = range->lo[d];
      }
      done = true;
      return *this;
    }
    QD_DEVICE_FN bool operator!=(const iterator &o) const {
      return done != o.done;
    }
  };
  QD_DEVICE_FN iterator begin() const {
    iterator It{{}, this, false};
    for (int d = 0; d < N; ++d) {
      It.index[d] = lo[d];
      It.done = It.done || hi[d] <= lo[d];
    }
    return It;
  }
  QD_DEVICE_FN iterator end() const { return {{}, this, true}; }
};
} // namespace detail

template <typename T> QD_DEVICE_FN detail::range_t<T> range(T n) {
  return {T(0), n};
}
template <typename T> QD_DEVICE_FN detail::range_t<T> range(T begin, T end) {
  return {begin, end};
}
/// Bounds of two integer types of one signedness (`qd::range(k + 1, n)`, k
/// an int, n an int64_t): the range is over the wider.
namespace detail {
template <bool> struct range_bounds_ {};
template <> struct range_bounds_<true> { using type = int; };
} // namespace detail
template <typename B, typename E,
          typename detail::range_bounds_<(B(-1) < B(0)) ==
                                         (E(-1) < E(0))>::type = 0>
QD_DEVICE_FN detail::range_t<decltype(B() + E())> range(B begin, E end) {
  return {begin, end};
}

/// One dimension of an ndrange: `n` for [0, n), `{b, e}` for [b, e).
struct ndrange_extent {
  int64_t begin, end;
  QD_DEVICE_FN constexpr ndrange_extent(int64_t end) : begin(0), end(end) {}
  QD_DEVICE_FN constexpr ndrange_extent(int64_t begin, int64_t end)
      : begin(begin), end(end) {}
};
template <typename... Es>
QD_DEVICE_FN detail::ndrange_t<sizeof...(Es)> make_ndrange_(Es... es) {
  const ndrange_extent e[] = {es...};
  detail::ndrange_t<sizeof...(Es)> r;
  for (unsigned d = 0; d < sizeof...(Es); ++d) {
    r.lo[d] = e[d].begin;
    r.hi[d] = e[d].end;
  }
  return r;
}
template <typename... Ts>
QD_DEVICE_FN detail::ndrange_t<sizeof...(Ts)> ndrange(Ts... extents) {
  return make_ndrange_(ndrange_extent(int64_t(extents))...);
}
QD_DEVICE_FN inline detail::ndrange_t<1> ndrange(ndrange_extent a) {
  return make_ndrange_(a);
}
QD_DEVICE_FN inline detail::ndrange_t<2> ndrange(ndrange_extent a,
                                                 ndrange_extent b) {
  return make_ndrange_(a, b);
}
QD_DEVICE_FN inline detail::ndrange_t<3>
ndrange(ndrange_extent a, ndrange_extent b, ndrange_extent c) {
  return make_ndrange_(a, b, c);
}
QD_DEVICE_FN inline detail::ndrange_t<4> ndrange(ndrange_extent a,
                                                 ndrange_extent b,
                                                 ndrange_extent c,
                                                 ndrange_extent d) {
  return make_ndrange_(a, b, c, d);
}

// Math (DESIGN section 1.2): float and double; an integer argument is
// promoted to float, as in Quadrants.
template <typename T> QD_DEVICE_FN T abs(T x) { return x < T(0) ? -x : x; }
template <typename T> QD_DEVICE_FN T min(T a, T b) { return b < a ? b : a; }
template <typename T> QD_DEVICE_FN T max(T a, T b) { return a < b ? b : a; }
template <typename T> QD_DEVICE_FN T clamp(T x, T lo, T hi) {
  return x < lo ? lo : (hi < x ? hi : x);
}
/// -1, 0 or 1.
/// Python's // and %: the quotient rounded toward minus infinity, the
/// remainder with the divisor's sign (qd.h).
template <typename T> QD_DEVICE_FN T floordiv(T a, T b) {
  if constexpr (T(0.5) != T(0)) { // float, double
    return T(__builtin_floor(double(a / b)));
  } else {
    T q = T(a / b);
    // C++ truncates: one less when the signs differ and it was not exact.
    if (T(-1) < T(0) && (a % b != 0) && ((a < 0) != (b < 0)))
      --q;
    return q;
  }
}
template <typename T> QD_DEVICE_FN T mod(T a, T b) {
  if constexpr (T(0.5) != T(0)) {
    return a - b * T(__builtin_floor(double(a / b)));
  } else {
    T r = T(a % b);
    if (T(-1) < T(0) && r != 0 && ((r < 0) != (b < 0)))
      r = T(r + b);
    return r;
  }
}
template <typename T> QD_DEVICE_FN T sign(T x) {
  return T((T(0) < x) - (x < T(0)));
}
template <typename T> QD_DEVICE_FN bool isnan(T x) {
  return __builtin_isnan(x);
}
template <typename T> QD_DEVICE_FN bool isinf(T x) {
  return __builtin_isinf(x);
}
template <typename T> QD_DEVICE_FN bool isfinite(T x) {
  return __builtin_isfinite(x);
}
inline constexpr double pi = 3.14159265358979323846;
inline constexpr double e = 2.71828182845904523536;

// What every target's compiler does without a library.
QD_DEVICE_FN inline float sqrt(float x) { return __builtin_sqrtf(x); }
QD_DEVICE_FN inline double sqrt(double x) { return __builtin_sqrt(x); }
QD_DEVICE_FN inline float floor(float x) { return __builtin_floorf(x); }
QD_DEVICE_FN inline double floor(double x) { return __builtin_floor(x); }
QD_DEVICE_FN inline float ceil(float x) { return __builtin_ceilf(x); }
QD_DEVICE_FN inline double ceil(double x) { return __builtin_ceil(x); }
QD_DEVICE_FN inline float trunc(float x) { return __builtin_truncf(x); }
QD_DEVICE_FN inline double trunc(double x) { return __builtin_trunc(x); }
QD_DEVICE_FN inline float fma(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}
QD_DEVICE_FN inline double fma(double a, double b, double c) {
  return __builtin_fma(a, b, c);
}

#define QD_MATH_DEFINE_1_(name)                                                \
  QD_DEVICE_FN inline float name(float x) QD_MATH_ATTR_(name) {                \
    return QD_MATH_F32_(name)(x);                                              \
  }                                                                            \
  QD_DEVICE_FN inline double name(double x) QD_MATH_ATTR_(name) {              \
    return QD_MATH_F64_(name)(x);                                              \
  }
#define QD_MATH_DEFINE_2_(name)                                                \
  QD_DEVICE_FN inline float name(float x, float y) QD_MATH_ATTR_(name) {       \
    return QD_MATH_F32_(name)(x, y);                                           \
  }                                                                            \
  QD_DEVICE_FN inline double name(double x, double y) QD_MATH_ATTR_(name) {    \
    return QD_MATH_F64_(name)(x, y);                                           \
  }
QD_MATH_LIBRARY_1_(QD_MATH_DEFINE_1_)
QD_MATH_LIBRARY_2_REST_(QD_MATH_DEFINE_2_)
// pow with an integral exponent of at most 64 in magnitude multiplies (by
// squaring), as Quadrants does for an integer exponent: exact wherever the
// result is representable, and the same on every backend (with libdevice's
// pow, int64_t(qd::pow(-3.0, 1.0)) was -2 on an H200).
namespace detail {
template <typename T> QD_DEVICE_FN T pow_integral_(T x, T y) {
  int64_t n = int64_t(y);
  uint64_t m = n < 0 ? uint64_t(-n) : uint64_t(n);
  T r = T(1);
  for (; m; m >>= 1, x *= x)
    if (m & 1)
      r *= x;
  return n < 0 ? T(1) / r : r;
}
template <typename T> QD_DEVICE_FN bool is_small_integral_(T y) {
  return y == __builtin_trunc(double(y)) && y >= T(-64) && y <= T(64);
}
} // namespace detail
QD_DEVICE_FN inline float pow(float x, float y) QD_MATH_ATTR_(pow) {
  if (detail::is_small_integral_(y))
    return detail::pow_integral_(x, y);
  return QD_MATH_F32_(pow)(x, y);
}
QD_DEVICE_FN inline double pow(double x, double y) QD_MATH_ATTR_(pow) {
  if (detail::is_small_integral_(y))
    return detail::pow_integral_(x, y);
  return QD_MATH_F64_(pow)(x, y);
}
#ifdef QD_MATH_HAS_RSQRT_
QD_MATH_DEFINE_1_(rsqrt)
#else
QD_DEVICE_FN inline float rsqrt(float x) { return 1.0f / sqrt(x); }
QD_DEVICE_FN inline double rsqrt(double x) { return 1.0 / sqrt(x); }
#endif
#undef QD_MATH_DEFINE_1_
#undef QD_MATH_DEFINE_2_

// Integer arguments: as float.
namespace detail {
template <typename T> struct is_integer_ {
  static constexpr bool value = false;
};
#define QD_INTEGER_(T)                                                         \
  template <> struct is_integer_<T> { static constexpr bool value = true; };
QD_INTEGER_(signed char)
QD_INTEGER_(short)
QD_INTEGER_(int)
QD_INTEGER_(long)
QD_INTEGER_(long long)
QD_INTEGER_(unsigned char)
QD_INTEGER_(unsigned short)
QD_INTEGER_(unsigned)
QD_INTEGER_(unsigned long)
QD_INTEGER_(unsigned long long)
#undef QD_INTEGER_
template <bool B> struct if_integers_ {};
template <> struct if_integers_<true> { using type = float; };
/// float, spelled so that a call with it waits for the template's
/// instantiation (a missing math library is reported only at a use).
template <typename T> struct as_float_ { using type = float; };
} // namespace detail
#define QD_MATH_PROMOTE_1_(name)                                               \
  template <typename T>                                                        \
  QD_DEVICE_FN                                                                 \
      typename detail::if_integers_<detail::is_integer_<T>::value>::type       \
      name(T x) {                                                              \
    return name(typename detail::as_float_<T>::type(x));                       \
  }
#define QD_MATH_PROMOTE_2_(name)                                               \
  template <typename T, typename U>                                            \
  QD_DEVICE_FN                                                                 \
      typename detail::if_integers_<detail::is_integer_<T>::value &&           \
                                    detail::is_integer_<U>::value>::type       \
      name(T x, U y) {                                                         \
    return name(typename detail::as_float_<T>::type(x),                        \
                typename detail::as_float_<U>::type(y));                       \
  }
QD_MATH_LIBRARY_1_(QD_MATH_PROMOTE_1_)
QD_MATH_LIBRARY_2_REST_(QD_MATH_PROMOTE_2_)
QD_MATH_PROMOTE_1_(rsqrt)
QD_MATH_PROMOTE_1_(sqrt)
QD_MATH_PROMOTE_1_(floor)
QD_MATH_PROMOTE_1_(ceil)
QD_MATH_PROMOTE_1_(trunc)
#undef QD_MATH_PROMOTE_1_
#undef QD_MATH_PROMOTE_2_

// pow of two integers is an integer, as Python's ** on ints (Quadrants):
// exact, by squaring, in the usual arithmetic conversion of the two types,
// wrapping around as that type's + and * do. A negative exponent gives
// the quotient 1 / x^|y| truncated: 1 for x = 1, -1 or 1 for x = -1, and 0
// otherwise (x = 0 included, where Python raises).
namespace detail {
template <bool B, typename R> struct if_int_pow_ {};
template <typename R> struct if_int_pow_<true, R> { using type = R; };
template <int Bytes> struct unsigned_of_ { using type = uint32_t; };
template <> struct unsigned_of_<8> { using type = uint64_t; };
} // namespace detail
template <typename T, typename U>
QD_DEVICE_FN auto pow(T x, U y) -> typename detail::if_int_pow_<
    detail::is_integer_<T>::value && detail::is_integer_<U>::value,
    decltype(x * y)>::type {
  using R = decltype(x * y);
  if (y < U(0)) {
    bool minus_one = T(-1) < T(0) && x == T(-1); // an unsigned x is never -1
    return x == T(1) ? R(1) : minus_one ? R((y & 1) ? -1 : 1) : R(0);
  }
  using W = typename detail::unsigned_of_<sizeof(R)>::type;
  W b = W(R(x)), r = 1;
  for (auto m = y; m; m /= 2, b *= b)
    if (m & 1)
      r *= b;
  return R(r);
}

// Component-wise on vectors: qd::sqrt(v).
#define QD_MATH_VEC_(name)                                                     \
  template <typename T, int N>                                                 \
  QD_DEVICE_FN vec<T, N> name(const vec<T, N> &v) {                            \
    vec<T, N> r;                                                               \
    for (int i = 0; i < N; ++i)                                                \
      r[i] = name(v[i]);                                                       \
    return r;                                                                  \
  }
QD_MATH_LIBRARY_1_(QD_MATH_VEC_)
QD_MATH_VEC_(rsqrt)
QD_MATH_VEC_(sqrt)
QD_MATH_VEC_(floor)
QD_MATH_VEC_(ceil)
QD_MATH_VEC_(trunc)
QD_MATH_VEC_(abs)
QD_MATH_VEC_(sign)
#undef QD_MATH_VEC_

/// An atomic's value converts to the destination's type (as CUDA's
/// overloads do): it takes no part in deducing T.
template <typename T> struct value_identity_ { using type = T; };
template <typename T> using value_t_ = typename value_identity_<T>::type;

// Atomics: relaxed read-modify-write, returning the old value. Floating
// point addition uses the target's own instruction (detail::atomic_fadd);
// minimum and maximum of floating-point values a compare-and-swap loop. On
// a thread's own local variable an atomic is a plain read-modify-write (as
// Quadrants demotes it): no other thread can see the variable, and GPU
// atomics on local memory are undefined. The check folds away when the
// compiler knows where dst is.
template <typename T> QD_DEVICE_FN T atomic_add(T &dst, value_t_<T> value) {
  if (detail::is_thread_private(&dst)) {
    T old = dst;
    dst = old + value;
    return old;
  }
  if constexpr (__is_floating_point(T))
    return detail::atomic_fadd(&dst, value);
  else
    return __atomic_fetch_add(&dst, value, __ATOMIC_RELAXED);
}

template <typename T, typename Better>
QD_DEVICE_FN T atomic_update_(T &dst, T value, Better better) {
  if (detail::is_thread_private(&dst)) {
    T old = dst;
    if (better(value, old))
      dst = value;
    return old;
  }
  T old;
  __atomic_load(&dst, &old, __ATOMIC_RELAXED);
  while (better(value, old) &&
         !__atomic_compare_exchange(&dst, &old, &value, /*weak=*/true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
template <typename T> QD_DEVICE_FN T atomic_min(T &dst, value_t_<T> value) {
  return atomic_update_(dst, value, [](T a, T b) { return a < b; });
}
template <typename T> QD_DEVICE_FN T atomic_max(T &dst, value_t_<T> value) {
  return atomic_update_(dst, value, [](T a, T b) { return a > b; });
}

namespace detail {
/// `dst = f(dst)` atomically by compare-and-swap; returns the old value.
template <typename T, typename F> QD_DEVICE_FN T atomic_rmw_(T &dst, F f) {
  if (is_thread_private(&dst)) {
    T old = dst;
    dst = f(old);
    return old;
  }
  T old;
  __atomic_load(&dst, &old, __ATOMIC_RELAXED);
  T next = f(old);
  while (!__atomic_compare_exchange(&dst, &old, &next, /*weak=*/true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    next = f(old);
  return old;
}
/// Whether a and b have the same bits, as a compare-and-swap compares.
template <typename T> QD_DEVICE_FN bool same_bits_(T a, T b) {
  if constexpr (sizeof(T) == 4)
    return __builtin_bit_cast(uint32_t, a) == __builtin_bit_cast(uint32_t, b);
  else if constexpr (sizeof(T) == 8)
    return __builtin_bit_cast(uint64_t, a) == __builtin_bit_cast(uint64_t, b);
  else
    return a == b;
}
} // namespace detail

template <typename T> QD_DEVICE_FN T atomic_sub(T &dst, value_t_<T> value) {
  if constexpr (__is_floating_point(T))
    return atomic_add(dst, T(-value));
  else if (detail::is_thread_private(&dst))
    return detail::atomic_rmw_(dst, [value](T a) { return T(a - value); });
  else
    return __atomic_fetch_sub(&dst, value, __ATOMIC_RELAXED);
}
template <typename T> QD_DEVICE_FN T atomic_mul(T &dst, value_t_<T> value) {
  return detail::atomic_rmw_(dst, [value](T a) { return T(a * value); });
}
#define QD_ATOMIC_BITS_(name, op, builtin)                                     \
  template <typename T> QD_DEVICE_FN T name(T &dst, value_t_<T> value) {       \
    static_assert(!__is_floating_point(T), #name " takes integers");           \
    if (detail::is_thread_private(&dst))                                       \
      return detail::atomic_rmw_(dst, [value](T a) { return T(a op value); }); \
    return builtin(&dst, value, __ATOMIC_RELAXED);                             \
  }
QD_ATOMIC_BITS_(atomic_and, &, __atomic_fetch_and)
QD_ATOMIC_BITS_(atomic_or, |, __atomic_fetch_or)
QD_ATOMIC_BITS_(atomic_xor, ^, __atomic_fetch_xor)
#undef QD_ATOMIC_BITS_
template <typename T>
QD_DEVICE_FN T atomic_exchange(T &dst, value_t_<T> value) {
  return detail::atomic_rmw_(dst, [value](T) { return value; });
}
template <typename T>
QD_DEVICE_FN T atomic_compare_exchange(T &dst, T expected, T desired) {
  if (detail::is_thread_private(&dst)) {
    T old = dst;
    if (detail::same_bits_(old, expected))
      dst = desired;
    return old;
  }
  __atomic_compare_exchange(&dst, &expected, &desired, /*weak=*/false,
                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

namespace detail {
/// What a kernel scalar's name means inside a loop that reduces it: the
/// thread's private accumulator, which only reductions update (a read of
/// the scalar there is an error at compile time). Its atomics are plain
/// updates, with nothing to check at run time.
template <typename T> struct accumulator_ref {
  T &v;
  QD_DEVICE_FN void operator+=(T x) { v += x; }
  QD_DEVICE_FN void operator-=(T x) { v -= x; }
  QD_DEVICE_FN void operator*=(T x) { v *= x; }
  QD_DEVICE_FN void operator|=(T x) { v |= x; }
  QD_DEVICE_FN void operator&=(T x) { v &= x; }
  QD_DEVICE_FN void operator^=(T x) { v ^= x; }
};
} // namespace detail

template <typename T>
QD_DEVICE_FN T atomic_add(detail::accumulator_ref<T> dst, value_t_<T> value) {
  T old = dst.v;
  dst.v = old + value;
  return old;
}
template <typename T>
QD_DEVICE_FN T atomic_min(detail::accumulator_ref<T> dst, value_t_<T> value) {
  T old = dst.v;
  dst.v = value < old ? value : old;
  return old;
}
template <typename T>
QD_DEVICE_FN T atomic_max(detail::accumulator_ref<T> dst, value_t_<T> value) {
  T old = dst.v;
  dst.v = old < value ? value : old;
  return old;
}
#define QD_ACCUMULATE_(name, op)                                               \
  template <typename T>                                                        \
  QD_DEVICE_FN T name(detail::accumulator_ref<T> dst, value_t_<T> value) {     \
    T old = dst.v;                                                             \
    dst.v op value;                                                            \
    return old;                                                                \
  }
QD_ACCUMULATE_(atomic_sub, -=)
QD_ACCUMULATE_(atomic_mul, *=)
QD_ACCUMULATE_(atomic_and, &=)
QD_ACCUMULATE_(atomic_or, |=)
QD_ACCUMULATE_(atomic_xor, ^=)
#undef QD_ACCUMULATE_

// On vectors and matrices, component by component (as Quadrants'
// qd.atomic_add on a vector field): each component is atomic, the whole is
// not. Return the components' values before the update.
#define QD_ATOMIC_LINALG_(name)                                                \
  template <typename T, int N>                                                 \
  QD_DEVICE_FN vec<T, N> name(vec<T, N> &dst, const vec<T, N> &value) {        \
    vec<T, N> old;                                                             \
    for (int k = 0; k < N; ++k)                                                \
      old[k] = name(dst[k], value[k]);                                         \
    return old;                                                                \
  }                                                                            \
  template <typename T, int R, int C>                                          \
  QD_DEVICE_FN mat<T, R, C> name(mat<T, R, C> &dst,                            \
                                 const mat<T, R, C> &value) {                  \
    mat<T, R, C> old;                                                          \
    for (int r = 0; r < R; ++r)                                                \
      old[r] = name(dst[r], value[r]);                                         \
    return old;                                                                \
  }
QD_ATOMIC_LINALG_(atomic_add)
QD_ATOMIC_LINALG_(atomic_sub)
QD_ATOMIC_LINALG_(atomic_min)
QD_ATOMIC_LINALG_(atomic_max)
#undef QD_ATOMIC_LINALG_

// GPU-level operations (DESIGN section 1.2, Quadrants' qd.simt). On the
// CPU a block is one thread and a warp one lane.
QD_DEVICE_FN inline uint64_t global_thread_idx() {
  return detail::global_thread_idx_();
}
namespace simt {
namespace block {
QD_DEVICE_FN inline uint32_t thread_idx() {
  return detail::block_thread_idx_();
}
/// The threads of a block: the loop's block_dim on GPUs, 1 on the CPU.
QD_DEVICE_FN inline uint32_t size() { return detail::block_size_(); }
/// __syncthreads(): every thread of the block waits here, and what each
/// wrote to shared memory before is visible to all after. Only in the body
/// of a parallel loop with a block_dim whose iteration count is a multiple
/// of it (checked when the loop starts), so that every thread of a block
/// runs as many iterations and reaches every sync.
QD_DEVICE_FN inline void sync() { detail::block_barrier_(); }
/// An array shared by the threads of a block: declared in a parallel loop's
/// body, without an initializer (qdc makes it __shared__ on GPUs; on the
/// CPU a block is one thread and it is an ordinary local array). Row-major;
/// buf[i], or buf(i, j) for more dimensions.
template <typename T, int64_t... N> struct shared_array {
  static_assert(sizeof...(N) > 0 && ((N > 0) && ...),
                "a shared_array has one or more positive extents");
  static constexpr int64_t size() { return (N * ...); }
  QD_DEVICE_FN T &operator[](int64_t i) { return data_[i]; }
  QD_DEVICE_FN const T &operator[](int64_t i) const { return data_[i]; }
  template <typename... I> QD_DEVICE_FN T &operator()(I... i) {
    static_assert(sizeof...(I) == sizeof...(N),
                  "one index per extent of the shared_array");
    int64_t flat = 0;
    ((flat = flat * N + int64_t(i)), ...);
    return data_[flat];
  }
  T data_[(N * ...)];
};
/// What this thread wrote before is seen by the block's threads before
/// what it writes after (__threadfence_block); no thread waits.
QD_DEVICE_FN inline void mem_sync() { detail::fence_block_(); }
} // namespace block
namespace grid {
/// The same for every thread of the device (__threadfence), and of the
/// device and the host (__threadfence_system).
QD_DEVICE_FN inline void memfence() { detail::fence_device_(); }
QD_DEVICE_FN inline void memfence_system() { detail::fence_system_(); }
} // namespace grid
namespace warp {
QD_DEVICE_FN inline uint32_t lane_id() { return detail::lane_id_(); }
/// The lanes of the warp running this call together (__activemask).
QD_DEVICE_FN inline uint64_t active_mask() { return detail::active_mask_(); }
/// The lanes of mask wait for each other here (__syncwarp).
QD_DEVICE_FN inline void sync(uint32_t mask = 0xffffffffu) {
  detail::warp_sync_(mask);
}
QD_DEVICE_FN inline uint32_t size() { return detail::warp_size_(); }
/// Bit i set when lane i's pred is true.
QD_DEVICE_FN inline uint64_t ballot(bool pred) { return detail::ballot_(pred); }
QD_DEVICE_FN inline bool all_nonzero(uint32_t mask, bool pred) {
  return detail::all_(mask, pred);
}
QD_DEVICE_FN inline bool any_nonzero(uint32_t mask, bool pred) {
  return detail::any_(mask, pred);
}
/// A 32- or 64-bit value moved word by word with Shuffle(word, arg).
template <typename T, typename F>
QD_DEVICE_FN T shuffle_words_(T v, F shuffle) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- or 64-bit values");
  int32_t words[sizeof(T) / 4];
  __builtin_memcpy(words, &v, sizeof(T));
  for (unsigned i = 0; i < sizeof(T) / 4; ++i)
    words[i] = shuffle(words[i]);
  __builtin_memcpy(&v, words, sizeof(T));
  return v;
}
template <typename T>
QD_DEVICE_FN T shfl_sync(uint32_t mask, T v, int32_t src_lane) {
  return shuffle_words_(
      v, [&](int32_t w) { return detail::shfl_idx_(mask, w, src_lane); });
}
template <typename T>
QD_DEVICE_FN T shfl_up_sync(uint32_t mask, T v, uint32_t delta) {
  return shuffle_words_(
      v, [&](int32_t w) { return detail::shfl_up_(mask, w, delta); });
}
template <typename T>
QD_DEVICE_FN T shfl_down_sync(uint32_t mask, T v, uint32_t delta) {
  return shuffle_words_(
      v, [&](int32_t w) { return detail::shfl_down_word_(mask, w, delta); });
}
template <typename T>
QD_DEVICE_FN T shfl_xor_sync(uint32_t mask, T v, uint32_t delta) {
  return shuffle_words_(
      v, [&](int32_t w) { return detail::shfl_xor_(mask, w, delta); });
}
/// Over the whole warp, by butterfly: every lane gets the result.
template <typename T, typename F> QD_DEVICE_FN T butterfly_(T v, F combine) {
  for (uint32_t d = size() / 2; d > 0; d /= 2)
    v = combine(v, shfl_xor_sync(0xffffffffu, v, d));
  return v;
}
template <typename T> QD_DEVICE_FN T reduce_add(T v) {
  return butterfly_(v, [](T a, T b) { return a + b; });
}
template <typename T> QD_DEVICE_FN T reduce_min(T v) {
  return butterfly_(v, [](T a, T b) { return b < a ? b : a; });
}
template <typename T> QD_DEVICE_FN T reduce_max(T v) {
  return butterfly_(v, [](T a, T b) { return a < b ? b : a; });
}
/// The lanes of mask whose v has the same bits as this lane's
/// (__match_any_sync), for 32- and 64-bit values.
template <typename T> QD_DEVICE_FN uint64_t match_any(uint32_t mask, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- or 64-bit values");
  using W = typename detail::unsigned_of_<sizeof(T)>::type;
  W w;
  __builtin_memcpy(&w, &v, sizeof(T));
#ifdef QD_HAS_MATCH_
  return detail::match_any_word_(mask, w);
#else
  uint64_t lanes = detail::active_mask_(), r = 0;
  if (size() <= 32)
    lanes &= mask;
  for (uint32_t l = 0; l < size(); ++l)
    if (shfl_sync(mask, w, int32_t(l)) == w && ((lanes >> l) & 1))
      r |= uint64_t(1) << l;
  return r;
#endif
}
/// mask's lanes (those running) when every one holds the same v, else 0
/// (__match_all_sync).
template <typename T> QD_DEVICE_FN uint64_t match_all(uint32_t mask, T v) {
  uint64_t lanes = detail::active_mask_();
  if (size() <= 32)
    lanes &= mask;
  uint64_t same = match_any(mask, v);
  return same == lanes ? same : 0;
}
} // namespace warp

namespace block {
namespace detail_ {
/// The lanes of this thread's warp that exist (a block need not be a
/// whole number of warps), as a shuffle mask.
QD_DEVICE_FN inline uint32_t lanes_(uint32_t width, uint32_t ntid,
                                    uint32_t warp) {
  uint32_t n = ntid - warp * width;
  return n < width ? n : width;
}
QD_DEVICE_FN inline uint32_t mask_(uint32_t lanes) {
  return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
}
/// v combined over the block's threads; every thread gets the result.
template <typename T, typename F> QD_DEVICE_FN T all_reduce_(T v, F combine) {
  uint32_t width = qd::detail::warp_size_(), ntid = size();
  if (ntid == 1)
    return v;
  uint32_t tid = thread_idx(), lane = tid % width, warp = tid / width;
  uint32_t lanes = lanes_(width, ntid, warp), mask = mask_(lanes);
  for (uint32_t o = width / 2; o > 0; o /= 2) {
    T other = simt::warp::shfl_down_sync(mask, v, o);
    if (lane + o < lanes)
      v = combine(v, other);
  }
  QD_SHARED_ T partial[32]; // 1024 threads in warps of 32 at most
  if (lane == 0)
    partial[warp] = v;
  qd::detail::block_barrier_();
  T r = partial[0];
  for (uint32_t w = 1; w < (ntid + width - 1) / width; ++w)
    r = combine(r, partial[w]);
  // partial may be written again by the next call.
  qd::detail::block_barrier_();
  return r;
}
/// The sum of v over the threads up to this one (inclusive), and over
/// those before it in *before.
template <typename T> QD_DEVICE_FN T scan_add_(T v, T *before) {
  uint32_t width = qd::detail::warp_size_(), ntid = size();
  if (ntid == 1) {
    *before = T(0);
    return v;
  }
  uint32_t tid = thread_idx(), lane = tid % width, warp = tid / width;
  uint32_t lanes = lanes_(width, ntid, warp), mask = mask_(lanes);
  for (uint32_t o = 1; o < width; o *= 2) {
    T t = simt::warp::shfl_up_sync(mask, v, o);
    if (lane >= o)
      v = v + t;
  }
  T in_warp = simt::warp::shfl_up_sync(mask, v, 1);
  QD_SHARED_ T partial[32];
  if (lane == lanes - 1)
    partial[warp] = v;
  qd::detail::block_barrier_();
  T prefix = T(0);
  for (uint32_t w = 0; w < warp; ++w)
    prefix = prefix + partial[w];
  qd::detail::block_barrier_();
  *before = lane == 0 ? prefix : prefix + in_warp;
  return prefix + v;
}
} // namespace detail_
/// Over the block's threads, the result on every thread; every thread of
/// the block calls it (as sync()), with a 32- or 64-bit value.
template <typename T> QD_DEVICE_FN T reduce_add(T v) {
  return detail_::all_reduce_(v, [](T a, T b) { return a + b; });
}
template <typename T> QD_DEVICE_FN T reduce_min(T v) {
  return detail_::all_reduce_(v, [](T a, T b) { return b < a ? b : a; });
}
template <typename T> QD_DEVICE_FN T reduce_max(T v) {
  return detail_::all_reduce_(v, [](T a, T b) { return a < b ? b : a; });
}
/// Prefix sums in thread_idx() order: v plus the values of the threads
/// before (inclusive_add), or theirs alone (exclusive_add; 0 on thread 0).
template <typename T> QD_DEVICE_FN T inclusive_add(T v) {
  T before;
  return detail_::scan_add_(v, &before);
}
template <typename T> QD_DEVICE_FN T exclusive_add(T v) {
  T before;
  detail_::scan_add_(v, &before);
  return before;
}
/// Votes over the block (__syncthreads_count, _or, _and).
QD_DEVICE_FN inline uint32_t count(bool pred) {
  return reduce_add(uint32_t(pred ? 1 : 0));
}
QD_DEVICE_FN inline bool any(bool pred) { return count(pred) != 0; }
QD_DEVICE_FN inline bool all(bool pred) { return count(pred) == size(); }
} // namespace block
} // namespace simt

// Assertions (DESIGN section 1.2): the first failure of a module is
// recorded in its qd_assert_record_ (generated when the module has a
// QD_ASSERT), which the runtime reads at synchronization points; the
// task's loops stop at their next iteration (QD_ASSERT_STOPPED_), and on
// the CPU the failing thread's chunk stops at once.
namespace detail {
struct assert_stop_ {};
QD_DEVICE_FN inline void assert_copy_(char *dst, unsigned cap, const char *a,
                                      const char *b = nullptr) {
  unsigned n = 0;
  for (; a && *a && n + 1 < cap; ++a)
    dst[n++] = *a;
  for (; b && *b && n + 1 < cap; ++b)
    dst[n++] = *b;
  dst[n] = 0;
}
QD_DEVICE_FN inline void assert_fail_(qdrt_assert_record *r, const char *cond,
                                      const char *message, const char *file,
                                      unsigned line, const char *function,
                                      uint32_t kind = 0) {
#if !defined(__CUDA__) && !defined(__HIP__)
  r = assert_record_(r); // the launch's, when a launch runs this thread
#endif
  uint32_t expected = 0, one = 1;
  if (__atomic_compare_exchange(&r->failed, &expected, &one, /*weak=*/false,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    r->line = line;
    r->kind = kind;
    assert_copy_(r->function, sizeof(r->function), function);
    assert_copy_(r->file, sizeof(r->file), file);
    char head[160];
    assert_copy_(head, sizeof(head), cond, message && *message ? ": " : "");
    assert_copy_(r->text, sizeof(r->text), head, message);
  }
  QD_ASSERT_STOP_;
}
} // namespace detail
namespace detail {
/// A message built on the device: text and numbers, cut at its capacity.
struct message_ {
  char text[200];
  unsigned n = 0;
  QD_DEVICE_FN message_ &put(const char *s) {
    for (; *s && n + 1 < sizeof(text); ++s)
      text[n++] = *s;
    text[n] = 0;
    return *this;
  }
  QD_DEVICE_FN message_ &num(int64_t v) {
    char digits[24];
    int k = 0;
    uint64_t u = v < 0 ? uint64_t(-(v + 1)) + 1 : uint64_t(v);
    do
      digits[k++] = char('0' + u % 10);
    while ((u /= 10) && k < 23);
    if (v < 0 && n + 1 < sizeof(text))
      text[n++] = '-';
    while (k > 0 && n + 1 < sizeof(text))
      text[n++] = digits[--k];
    text[n] = 0;
    return *this;
  }
  QD_DEVICE_FN message_ &unum(uint64_t u, unsigned base = 10) {
    char digits[24];
    int k = 0;
    do
      digits[k++] = "0123456789abcdef"[u % base];
    while ((u /= base) && k < 23);
    while (k > 0 && n + 1 < sizeof(text))
      text[n++] = digits[--k];
    text[n] = 0;
    return *this;
  }
  /// Six decimals, as printf's %f; %e's form past 1e15 and below 1e-5.
  QD_DEVICE_FN message_ &flt(double v) {
    if (v != v)
      return put("nan");
    if (v < 0) {
      put("-");
      v = -v;
    }
    if (v > 1.7976931348623157e308)
      return put("inf");
    int exp10 = 0;
    bool sci = v >= 1e15 || (v != 0 && v < 1e-5);
    if (sci) {
      while (v >= 10) {
        v /= 10;
        ++exp10;
      }
      while (v < 1) {
        v *= 10;
        --exp10;
      }
    }
    uint64_t whole = uint64_t(v);
    uint64_t frac = uint64_t((v - double(whole)) * 1e6 + 0.5);
    if (frac >= 1000000) {
      ++whole;
      frac -= 1000000;
    }
    unum(whole).put(".");
    for (uint64_t d = 100000; d > frac && d > 1; d /= 10)
      put("0");
    unum(frac);
    if (sci)
      put(exp10 < 0 ? "e-" : "e+").unum(uint64_t(exp10 < 0 ? -exp10 : exp10));
    return *this;
  }
};

/// printf's conversions for QD_ASSERT's message: %d %i %u %x %c %s %p
/// %f %e %g (six decimals) and %%, with flags, width, precision and length
/// modifiers read and left out.
QD_DEVICE_FN inline const char *format_spec_(message_ &m, const char *f,
                                             char &conv) {
  for (; *f; ++f) {
    if (*f != '%') {
      char c[2] = {*f, 0};
      m.put(c);
      continue;
    }
    if (f[1] == '%') {
      m.put("%");
      ++f;
      continue;
    }
    ++f;
    while (*f && (*f == '-' || *f == '+' || *f == ' ' || *f == '#' ||
                  *f == '.' || (*f >= '0' && *f <= '9') || *f == 'h' ||
                  *f == 'l' || *f == 'z' || *f == 'j' || *f == 't' ||
                  *f == 'L'))
      ++f;
    conv = *f;
    return *f ? f + 1 : f;
  }
  conv = 0;
  return f;
}
template <typename T>
QD_DEVICE_FN inline void format_value_(message_ &m, T v, char conv) {
  if constexpr (is_integer_<T>::value) {
    if (conv == 'c') {
      char c[2] = {char(v), 0};
      m.put(c);
    } else if (conv == 'x' || conv == 'X') {
      m.unum(uint64_t(v), 16);
    } else if (T(-1) < T(0)) {
      m.num(int64_t(v));
    } else {
      m.unum(uint64_t(v));
    }
  } else {
    m.flt(double(v));
  }
}
QD_DEVICE_FN inline void format_value_(message_ &m, const char *v, char) {
  m.put(v ? v : "(null)");
}
QD_DEVICE_FN inline void format_value_(message_ &m, char *v, char conv) {
  format_value_(m, static_cast<const char *>(v), conv);
}
QD_DEVICE_FN inline void format_value_(message_ &m, char v, char conv) {
  if (conv == 'c') {
    char c[2] = {v, 0};
    m.put(c);
  } else {
    m.num(int64_t(v));
  }
}
QD_DEVICE_FN inline void format_value_(message_ &m, bool v, char) {
  m.unum(v ? 1 : 0);
}
template <typename T>
QD_DEVICE_FN inline void format_value_(message_ &m, T *v, char) {
  m.put("0x").unum(uint64_t(reinterpret_cast<__UINTPTR_TYPE__>(v)), 16);
}
QD_DEVICE_FN inline void format_(message_ &m, const char *f) {
  char conv = 0;
  while (*f)
    f = format_spec_(m, f, conv);
}
template <typename A, typename... Rest>
QD_DEVICE_FN inline void format_(message_ &m, const char *f, A a,
                                 Rest... rest) {
  char conv = 0;
  f = format_spec_(m, f, conv);
  if (!conv)
    return; // more arguments than conversions: the rest are left out
  format_value_(m, a, conv);
  format_(m, f, rest...);
}
template <typename... A>
QD_DEVICE_FN inline void
assert_fail_format_(qdrt_assert_record *r, const char *cond, const char *file,
                    unsigned line, const char *function, const char *format,
                    A... args) {
  message_ m;
  m.text[0] = 0;
  format_(m, format ? format : "", args...);
  assert_fail_(r, cond, m.text, file, line, function);
}
/// A loop that calls qd::simt::block::sync runs when its iteration count
/// is a multiple of the block size: every thread of a block then runs as
/// many iterations of the grid-stride loop and reaches every sync. Else the
/// first thread records why and no thread runs it (the same answer for
/// all, so none waits at a barrier the others never reach).
QD_DEVICE_FN inline bool block_uniform_(qdrt_assert_record *r, uint64_t n,
                                        const char *file, unsigned line,
                                        const char *function) {
  uint32_t b = block_size_();
  if (n % b == 0)
    return true;
  if (global_thread_idx_() == 0) {
    message_ m;
    m.put("the loop's ")
        .num(int64_t(n))
        .put(" iterations are not a multiple "
             "of its block_dim (");
    m.num(b).put(")");
    assert_fail_(r, m.text,
                 "every thread of a block must reach each "
                 "qd::simt::block::sync()",
                 file, line, function, /*kind=*/3);
  }
  return false;
}
} // namespace detail
#ifdef QD_DEBUG
QD_DEVICE_FN inline void detail::bounds_fail_(const char *what,
                                              const index_t_ &at,
                                              const int64_t *shape, int rank) {
  // "index <i> is out of bounds of <what> of shape (<d0>, <d1>)".
  message_ m;
  m.put("index ").num(at.v).put(" is out of bounds of ").put(what);
  m.put(" of shape (");
  for (int d = 0; d < rank; ++d)
    (d ? m.put(", ") : m).num(shape[d]);
  m.put(")");
  assert_fail_(QD_ASSERT_RECORD_(), m.text, "found by qdc --debug", at.file,
               at.line, at.function, /*kind=*/1);
}
#endif
#define QD_ASSERT(cond, ...)                                                   \
  ((cond) ? (void)0                                                            \
          : ::qd::detail::assert_fail_format_(QD_ASSERT_RECORD_(), #cond,      \
                                              __FILE__, __LINE__, __func__,    \
                                              __VA_ARGS__))
#define QD_ASSERT_STOPPED_()                                                   \
  __atomic_load_n(&QD_ASSERT_RECORD_()->failed, __ATOMIC_RELAXED)

// Random numbers (DESIGN section 1.2): Philox4x32-10, counter-based. The
// key is the call's (a function of the seed and of how many calls came
// before, from the launcher) mixed with the task's index; the counter is
// the iteration's index and how many numbers this iteration drew. So a
// number depends on the seed, the call, the iteration and the draw, not on
// how iterations are spread over threads: the same on every run.
namespace detail {
QD_DEVICE_FN inline void rng_task_begin_(uint64_t key, uint32_t task) {
  rng_slot_ &s = rng_slot_for_thread_();
  s.key = key;
  s.task = task;
  s.iteration = 0;
  s.calls = 0;
}
QD_DEVICE_FN inline void rng_iteration_(uint64_t iteration) {
  rng_slot_ &s = rng_slot_for_thread_();
  s.iteration = iteration;
  s.calls = 0;
}
/// 128 random bits: the next draw of this thread's iteration.
QD_DEVICE_FN inline void rng_next_(uint32_t out[4]) {
  rng_slot_ &s = rng_slot_for_thread_();
  uint32_t c[4] = {s.calls++, s.task, uint32_t(s.iteration),
                   uint32_t(s.iteration >> 32)};
  uint32_t k[2] = {uint32_t(s.key), uint32_t(s.key >> 32)};
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k[0];
    uint32_t n2 = uint32_t(p0 >> 32) ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = uint32_t(p1);
    c[2] = n2;
    c[3] = uint32_t(p0);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  for (int i = 0; i < 4; ++i)
    out[i] = c[i];
}
} // namespace detail

/// Uniform in [0, 1) for float and double; uniform over the type for
/// integers.
template <typename T = float> QD_DEVICE_FN T random() {
  uint32_t w[4];
  detail::rng_next_(w);
  uint64_t bits = (uint64_t(w[1]) << 32) | w[0];
  if constexpr (__is_same(T, float))
    return float(w[0] >> 8) * (1.0f / 16777216.0f);
  else if constexpr (__is_same(T, double))
    return double(bits >> 11) * (1.0 / 9007199254740992.0);
  else
    return T(bits);
}
/// Standard normal (Box-Muller), float or double.
template <typename T = float> QD_DEVICE_FN T randn() {
  uint32_t w[4];
  detail::rng_next_(w);
  if constexpr (__is_same(T, float)) {
    // T, not float: the math calls wait for the instantiation, so a target
    // without its math library fails only where randn is used.
    T u1 = T((w[0] >> 8) + 1) * T(1.0f / 16777216.0f); // (0, 1]
    T u2 = T(w[1] >> 8) * T(1.0f / 16777216.0f);
    return sqrt(T(-2) * log(u1)) * cos(T(2 * pi) * u2);
  } else {
    uint64_t a = (uint64_t(w[1]) << 32) | w[0];
    uint64_t b = (uint64_t(w[3]) << 32) | w[2];
    T u1 = T((a >> 11) + 1) * T(1.0 / 9007199254740992.0);
    T u2 = T(b >> 11) * T(1.0 / 9007199254740992.0);
    return sqrt(T(-2) * log(u1)) * cos(T(2 * pi) * u2);
  }
}

namespace detail {

/// The number of iterations of [begin, end): 0 when end <= begin.
template <typename B, typename E> QD_DEVICE_FN uint64_t trip(B begin, E end) {
  return end > begin ? uint64_t(end - begin) : 0;
}

/// `*dst = combine(*dst, value)`, atomically, by compare-and-swap.
template <typename T, typename Combine>
QD_DEVICE_FN void atomic_combine_(T *dst, T value, Combine combine) {
  T old;
  __atomic_load(dst, &old, __ATOMIC_RELAXED);
  T next = combine(old, value);
  while (!__atomic_compare_exchange(dst, &old, &next, /*weak=*/true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    next = combine(old, value);
}

// The reductions of kernel scalars (DESIGN section 1.1): each thread
// combines its iterations into a private accumulator that starts at the
// operator's identity; reduce() then combines the accumulators of a block
// (block_combine, per target) and updates the scalar with one atomic.
struct op_add {
  template <typename T> static QD_DEVICE_FN T identity() { return T(0); }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a + b;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    qd::atomic_add(*dst, v);
  }
};
struct op_mul {
  template <typename T> static QD_DEVICE_FN T identity() { return T(1); }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a * b;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    atomic_combine_(dst, v, [](T a, T b) { return a * b; });
  }
};
struct op_or {
  template <typename T> static QD_DEVICE_FN T identity() { return T(0); }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a | b;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    __atomic_fetch_or(dst, v, __ATOMIC_RELAXED);
  }
};
struct op_and {
  template <typename T> static QD_DEVICE_FN T identity() { return T(~T(0)); }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a & b;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    __atomic_fetch_and(dst, v, __ATOMIC_RELAXED);
  }
};
struct op_xor {
  template <typename T> static QD_DEVICE_FN T identity() { return T(0); }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a ^ b;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    __atomic_fetch_xor(dst, v, __ATOMIC_RELAXED);
  }
};
/// The largest value of T (+infinity for floating point), and the least.
template <typename T> QD_DEVICE_FN T highest_() {
  if constexpr (__is_floating_point(T))
    return T(__builtin_huge_val());
  else if constexpr (T(-1) < T(0))
    return T(~(T(1) << (sizeof(T) * 8 - 1)));
  else
    return T(~T(0));
}
template <typename T> QD_DEVICE_FN T lowest_() {
  if constexpr (__is_floating_point(T))
    return T(-__builtin_huge_val());
  else if constexpr (T(-1) < T(0))
    return T(-highest_<T>() - 1);
  else
    return T(0);
}
struct op_min {
  template <typename T> static QD_DEVICE_FN T identity() {
    return highest_<T>();
  }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return b < a ? b : a;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    qd::atomic_min(*dst, v);
  }
};
struct op_max {
  template <typename T> static QD_DEVICE_FN T identity() {
    return lowest_<T>();
  }
  template <typename T> static QD_DEVICE_FN T combine(T a, T b) {
    return a < b ? b : a;
  }
  template <typename T> static QD_DEVICE_FN void atomic(T *dst, T v) {
    qd::atomic_max(*dst, v);
  }
};

/// Combines the accumulators of a block (every thread calls it, after its
/// loop): within each warp by shuffles (32 lanes on NVIDIA, 32 or 64 on
/// AMD), then the warps' results through shared memory. True in the one
/// thread that holds the block's result in v. A CPU block is one thread; a
/// block whose size is not a multiple of the warp has a partial warp,
/// which cannot shuffle: there every thread is its own leader.
template <typename Op, typename T> QD_DEVICE_FN bool block_combine(T &v) {
  uint32_t width = warp_size_(), ntid = block_size_();
  if (ntid == 1 || ntid % width != 0)
    return true;
  uint32_t tid = block_thread_idx_(), lane = tid % width, warp = tid / width;
  for (uint32_t o = width / 2; o > 0; o /= 2)
    v = Op::combine(v, simt::warp::shfl_down_sync(0xffffffffu, v, o));
  QD_SHARED_ T partial[32]; // 1024 threads in warps of 32 at most
  if (lane == 0)
    partial[warp] = v;
  block_barrier_();
  if (warp == 0) {
    v = lane < ntid / width ? partial[lane] : Op::template identity<T>();
    for (uint32_t o = width / 2; o > 0; o /= 2)
      v = Op::combine(v, simt::warp::shfl_down_sync(0xffffffffu, v, o));
  }
  // partial may be used again by the next reduction of this thread.
  block_barrier_();
  return tid == 0;
}

/// Combines every thread's accumulator v into *dst: called by every thread
/// of the task, after its loop.
template <typename Op, typename T> QD_DEVICE_FN void reduce(T *dst, T v) {
  if (block_combine<Op>(v))
    Op::atomic(dst, v);
}

} // namespace detail
} // namespace qd

// The standard assert (<assert.h>, which follows NDEBUG) reports as
// QD_ASSERT does. GPUs: a device overload of glibc's __assert_fail, as
// Clang's CUDA headers have. The CPU: the CPU code is compiled with
// __assert_fail renamed to qd_assert_fail_cpu_, which records the failure
// and leaves the task's chunk by longjmp (glibc declares the function
// noexcept and noreturn, so it can neither throw nor return); outside a
// task it is glibc's own.
#if defined(__CUDA__) || defined(__HIP__)
__device__ static inline void __assert_fail(const char *expr, const char *file,
                                            unsigned line,
                                            const char *function) {
  qd::detail::assert_fail_(&::qd_assert_record_, expr, "", file, line, function,
                           /*kind=*/2);
}
#else
extern "C" [[noreturn]] void qd_real_assert_fail_(const char *, const char *,
                                                  unsigned,
                                                  const char *) noexcept
    __asm__("__assert_fail");
namespace qd::detail {
inline thread_local jmp_buf *cpu_assert_jump_ = nullptr;
} // namespace qd::detail
extern "C" [[noreturn]] inline void
qd_assert_fail_cpu_(const char *expr, const char *file, unsigned line,
                    const char *function) noexcept {
  jmp_buf *jump = qd::detail::cpu_assert_jump_;
  if (!jump)
    qd_real_assert_fail_(expr, file, line, function);
  qdrt_assert_record *r = QD_ASSERT_RECORD_();
  uint32_t expected = 0, one = 1;
  if (__atomic_compare_exchange(&r->failed, &expected, &one, false,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    r->line = line;
    r->kind = 2;
    qd::detail::assert_copy_(r->function, sizeof(r->function), function);
    qd::detail::assert_copy_(r->file, sizeof(r->file), file);
    qd::detail::assert_copy_(r->text, sizeof(r->text), expr);
  }
  longjmp(*jump, 1);
}
#endif

#endif // QD_DETAIL_KERNEL_H
