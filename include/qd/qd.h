//===- qd/qd.h - The qdc kernel language ------------------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Included implicitly in every .qd file; include it explicitly
// (`#include <qd/qd.h>`, with `qdc --print-include-dir` on the include path)
// so that editors, clangd and clang-tidy read a .qd file as plain C++20.
//
// Everything here is a declaration for the kernel side: qdc reads kernels
// from the Clang AST and generates the device and host code itself.
//
//===----------------------------------------------------------------------===//

#ifndef QD_QD_H
#define QD_QD_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "qd/detail/math_list.h"
#include "qd/linalg.h"

#if defined(__clang__)
#define QD_ANNOTATE_(what) __attribute__((annotate(what)))
// Its generated launcher calls a kernel: one in an unnamed namespace is not
// an unused function (-Wunused-function).
#define QD_CALLED_BY_LAUNCHER_ __attribute__((unused))
#else
#define QD_ANNOTATE_(what)
#define QD_CALLED_BY_LAUNCHER_
#endif

/// A kernel: `QD_KERNEL void name(params) { ... }`. Its top-level loops run
/// in parallel, its other top-level statements serially, in order.
#define QD_KERNEL QD_ANNOTATE_("qd.kernel") QD_CALLED_BY_LAUNCHER_

/// `QD_ASSERT(cond, "message")` in device code: when cond is false, the
/// thread records the failure and the task's threads stop their
/// iterations; the host gets a qd::Error naming the function, file:line,
/// condition and message at the next synchronization. The message is a
/// printf format: `QD_ASSERT(i < n, "i = %d of %d", i, n)`.
#define QD_ASSERT(cond, ...)                                                   \
  ::qd::detail::assert_check_(static_cast<bool>(cond), __VA_ARGS__)

/// A device function that kernels (and other QD_FUNCs) can call.
#define QD_FUNC QD_ANNOTATE_("qd.func")
/// After QD_KERNEL: on GPUs the first call records the kernel's tasks
/// (with its groups' fork and join) as a graph, and later calls replay it
/// with their own arguments (DESIGN section 3.2).
#define QD_GRAPH QD_ANNOTATE_("qd.graph")
/// After QD_KERNEL: the kernel's ndarray and pointer parameters reach
/// disjoint memory, so the compiler may keep what it reads through one in
/// registers across writes through another (as `__restrict__` on every
/// one of them). The launcher checks every pair of ndarrays: overlapping
/// ones are a qd::Error before anything runs. Pointers are taken at their
/// word, as `__restrict__` ones are.
#define QD_NOALIAS QD_ANNOTATE_("qd.noalias")

/// `QD_STREAM_PARALLEL { ... }`: one group of a stream-parallel kernel. The
/// blocks of a kernel run concurrently, each on its own stream; the loops in
/// one block run in order.
#define QD_STREAM_PARALLEL                                                     \
  if (::qd::detail::stream_parallel_block qd_stream_parallel_block_{}; true)

namespace qd {

namespace detail {
/// Marks a QD_STREAM_PARALLEL block in the AST.
struct stream_parallel_block {
  stream_parallel_block() noexcept {}
};

template <typename T> struct range_iterator {
  T value;
  T operator*() const noexcept { return value; }
  range_iterator &operator++() noexcept {
    ++value;
    return *this;
  }
  bool operator!=(const range_iterator &o) const noexcept {
    return value != o.value;
  }
};

template <typename T> struct range_t {
  T first, last;
  range_iterator<T> begin() const noexcept { return {first}; }
  range_iterator<T> end() const noexcept { return {last}; }
};

template <std::size_t N> struct ndrange_iterator {
  std::array<int64_t, N> index;
  std::array<int64_t, N> extent;
  const std::array<int64_t, N> &operator*() const noexcept { return index; }
  ndrange_iterator &operator++() noexcept;
  bool operator!=(const ndrange_iterator &o) const noexcept;
};

template <std::size_t N> struct ndrange_t {
  std::array<int64_t, N> extent;
  ndrange_iterator<N> begin() const noexcept;
  ndrange_iterator<N> end() const noexcept;
};
} // namespace detail

/// `for (int i : qd::range(n))`: a parallel loop over [0, n).
template <typename T> detail::range_t<T> range(T n) noexcept {
  return {T(0), n};
}
/// `for (int i : qd::range(b, e))`: a parallel loop over [b, e).
template <typename T> detail::range_t<T> range(T begin, T end) noexcept {
  return {begin, end};
}
/// `qd::range(k + 1, n)` with bounds of two integer types of one signedness
/// (an int and an int64_t): the range is over the wider type. Mixed
/// signedness is refused (-1 would become a huge unsigned bound).
template <typename B, typename E>
  requires(std::is_integral_v<B> && std::is_integral_v<E> &&
           std::is_signed_v<B> == std::is_signed_v<E>)
detail::range_t<std::common_type_t<B, E>> range(B begin, E end) noexcept {
  return {begin, end};
}

/// `for (auto [i, j] : qd::ndrange(n, m))`: a parallel loop over
/// [0, n) x [0, m) x ...
template <typename... Ts>
detail::ndrange_t<sizeof...(Ts)> ndrange(Ts... extents) noexcept;

/// One dimension of an ndrange: `n` for [0, n), `{b, e}` for [b, e).
struct ndrange_extent {
  int64_t begin, end;
  constexpr ndrange_extent(int64_t end) noexcept : begin(0), end(end) {}
  constexpr ndrange_extent(int64_t begin, int64_t end) noexcept
      : begin(begin), end(end) {}
};
/// `for (auto [i, j] : qd::ndrange({1, n - 1}, m))`: dimensions given as
/// `{begin, end}` pairs (or extents).
detail::ndrange_t<1> ndrange(ndrange_extent a) noexcept;
detail::ndrange_t<2> ndrange(ndrange_extent a, ndrange_extent b) noexcept;
detail::ndrange_t<3> ndrange(ndrange_extent a, ndrange_extent b,
                             ndrange_extent c) noexcept;
detail::ndrange_t<4> ndrange(ndrange_extent a, ndrange_extent b,
                             ndrange_extent c, ndrange_extent d) noexcept;

/// The threads of a block: `128`, or a tile `{32, 8}` (`{x, y, z}`) whose x
/// threads go along the last dimension of a `qd::ndrange` loop, y along the
/// one before it and z along the one before that, as CUDA's `dim3` block.
struct block_shape {
  int x = 0, y = 1, z = 1;
  constexpr block_shape(int threads = 0) noexcept : x(threads) {}
  constexpr block_shape(int x, int y, int z = 1) noexcept : x(x), y(y), z(z) {}
};

/// Options of `qd::loop_config({.block_dim = 128})`, in this order.
struct loop_config_options {
  /// threads per block (0: the backend's default), or their tile over an
  /// ndrange loop's last dimensions: `{.block_dim = {32, 8}}`
  block_shape block_dim = 0;
  /// Run the loop in order on one thread: `break` works, and the loop may
  /// write kernel scalars like a serial statement.
  bool serialize = false;
  /// At most this many CPU threads run the loop (0: all of them); GPUs
  /// ignore it.
  int parallelize = 0;
};

/// Configures the top-level loop that follows.
void loop_config(loop_config_options options) noexcept;

/// A module-level array with a fixed shape: `qd::field<float, N> a;`.
/// `a[i]` for one dimension, `a(i, j, ...)` for any; a rank-0 field
/// (`qd::field<float> t;`) holds one value, `t()`.
template <typename T, int64_t... Dims> struct field {
  static_assert(((Dims > 0) && ...), "field dimensions must be positive");
  using value_type = T;
  static constexpr int rank = sizeof...(Dims);
  static constexpr int64_t shape(int d) noexcept {
    constexpr int64_t dims[] = {Dims..., 0};
    return dims[d];
  }
  T &operator[](int64_t i) const noexcept;
  /// One index per dimension (a wrong count is an error at the call).
  template <typename... Is>
  requires(sizeof...(Is) == sizeof...(Dims))
  T &operator()(Is... indices) const noexcept;
  /// An integer vector, one component per dimension: `a[qd::ivec2{i, j}]`.
  template <typename I>
  requires std::is_integral_v<I>
  T &operator[](const vec<I, sizeof...(Dims)> &index) const noexcept;
};

/// A run-time-shaped array passed to a kernel: `qd::ndarray<float, 2> x`.
/// `qd::ndarray<float, 0> t` has rank 0: one value, `t()`.
template <typename T, int Dims> struct ndarray {
  static_assert(Dims >= 0, "an ndarray's rank is not negative");
  using value_type = T;
  static constexpr int rank = Dims;
  int64_t shape(int d) const noexcept;
  T &operator[](int64_t i) const noexcept;
  /// One index per dimension (a wrong count is an error at the call).
  template <typename... Is>
  requires(sizeof...(Is) == Dims)
  T &operator()(Is... indices) const noexcept;
  /// An integer vector, one component per dimension: `x[qd::ivec2{i, j}]`.
  template <typename I>
  requires std::is_integral_v<I>
  T &operator[](const vec<I, Dims> &index) const noexcept;
};

// Device math (DESIGN section 1.2): float and double, integers promoted to
// float (but pow of two integers).
#define QD_MATH_DECLARE_1_(name)                                               \
  float name(float x) noexcept;                                                \
  double name(double x) noexcept;                                              \
  template <typename T>                                                        \
  requires std::is_integral_v<T>                                               \
  float name(T x) noexcept;
#define QD_MATH_DECLARE_2_(name)                                               \
  float name(float x, float y) noexcept;                                       \
  double name(double x, double y) noexcept;                                    \
  template <typename T, typename U>                                            \
  requires(std::is_integral_v<T> && std::is_integral_v<U>) float name(         \
      T x, U y) noexcept;
QD_MATH_LIBRARY_1_(QD_MATH_DECLARE_1_)
QD_MATH_LIBRARY_2_REST_(QD_MATH_DECLARE_2_)
float pow(float x, float y) noexcept;
double pow(double x, double y) noexcept;
/// Two integers: an integer, exact (wrapping as * does); a negative
/// exponent gives 1 / x^|y| truncated toward zero.
template <typename T, typename U>
requires(std::is_integral_v<T> && std::is_integral_v<U>)
auto pow(T x, U y) noexcept -> decltype(x * y);
QD_MATH_DECLARE_1_(rsqrt)
QD_MATH_DECLARE_1_(sqrt)
QD_MATH_DECLARE_1_(floor)
QD_MATH_DECLARE_1_(ceil)
QD_MATH_DECLARE_1_(trunc)
#undef QD_MATH_DECLARE_1_
#undef QD_MATH_DECLARE_2_
// Component-wise on vectors: qd::sqrt(v).
#define QD_MATH_DECLARE_VEC_(name)                                             \
  template <typename T, int N> vec<T, N> name(const vec<T, N> &v) noexcept;
QD_MATH_LIBRARY_1_(QD_MATH_DECLARE_VEC_)
QD_MATH_DECLARE_VEC_(rsqrt)
QD_MATH_DECLARE_VEC_(sqrt)
QD_MATH_DECLARE_VEC_(floor)
QD_MATH_DECLARE_VEC_(ceil)
QD_MATH_DECLARE_VEC_(trunc)
QD_MATH_DECLARE_VEC_(abs)
QD_MATH_DECLARE_VEC_(sign)
#undef QD_MATH_DECLARE_VEC_
float fma(float a, float b, float c) noexcept;
double fma(double a, double b, double c) noexcept;
template <typename T> T abs(T x) noexcept;
template <typename T> T min(T a, T b) noexcept;
template <typename T> T max(T a, T b) noexcept;
template <typename T> T clamp(T x, T lo, T hi) noexcept;
/// -1, 0 or 1.
template <typename T> T sign(T x) noexcept;
/// Python's // and % (Quadrants' semantics): the quotient rounded toward
/// minus infinity, and the remainder with the divisor's sign;
/// floordiv(-7, 2) is -4, mod(-7, 2) is 1. For floats, floor(a / b) and
/// a - b * floor(a / b). Division by zero is undefined, as with / and %.
template <typename T> T floordiv(T a, T b) noexcept;
template <typename T> T mod(T a, T b) noexcept;
template <typename T> bool isnan(T x) noexcept;
template <typename T> bool isinf(T x) noexcept;
template <typename T> bool isfinite(T x) noexcept;
inline constexpr double pi = 3.14159265358979323846;
inline constexpr double e = 2.71828182845904523536;

namespace detail {
void assert_check_(bool condition, const char *format, ...) noexcept
    __attribute__((format(printf, 2, 3)));
} // namespace detail

/// Uniform in [0, 1) for float and double, uniform over the type for
/// integers; the stream depends on the seed (qd::set_random_seed), the
/// kernel call, the iteration and the draw, so runs repeat.
template <typename T = float> T random() noexcept;
/// Standard normal, float or double.
template <typename T = float> T randn() noexcept;

// GPU-level operations (Quadrants' qd.simt). On the CPU a block is one
// thread, a warp one lane, and global_thread_idx() the iteration's index.
uint64_t global_thread_idx() noexcept;
namespace simt {
namespace block {
uint32_t thread_idx() noexcept;
/// The threads of a block: the loop's block_dim on GPUs, 1 on the CPU.
uint32_t size() noexcept;
/// A barrier of the block's threads (__syncthreads), in the body of a
/// parallel loop with a block_dim whose iteration count fills whole blocks.
void sync() noexcept;
/// An array shared by the threads of a block, declared in a parallel loop's
/// body without an initializer; buf[i], or buf(i, j) for more extents.
template <typename T, int64_t... N> struct shared_array {
  static constexpr int64_t size() noexcept { return (N * ...); }
  T &operator[](int64_t i) noexcept;
  const T &operator[](int64_t i) const noexcept;
  template <typename... I> T &operator()(I... i) noexcept;
};
/// Over the block's threads, the result on every thread (32- and 64-bit
/// values); like sync(), every thread of the block calls them.
template <typename T> T reduce_add(T v) noexcept;
template <typename T> T reduce_min(T v) noexcept;
template <typename T> T reduce_max(T v) noexcept;
/// Prefix sums in thread_idx() order, with (inclusive) or without this
/// thread's value.
template <typename T> T inclusive_add(T v) noexcept;
template <typename T> T exclusive_add(T v) noexcept;
/// Votes: how many threads' pred holds, whether any, whether all.
uint32_t count(bool pred) noexcept;
bool any(bool pred) noexcept;
bool all(bool pred) noexcept;
/// A memory fence at the block's scope (__threadfence_block).
void mem_sync() noexcept;
} // namespace block
namespace grid {
/// Memory fences at the device's scope (__threadfence) and the system's
/// (__threadfence_system).
void memfence() noexcept;
void memfence_system() noexcept;
} // namespace grid
namespace warp {
uint32_t lane_id() noexcept;
uint32_t size() noexcept;
/// The lanes running this call together (__activemask).
uint64_t active_mask() noexcept;
/// The lanes of mask wait for each other (__syncwarp).
void sync(uint32_t mask = 0xffffffffu) noexcept;
/// The lanes of mask whose v has this lane's bits (__match_any_sync), and
/// mask's lanes when all hold the same v, else 0 (__match_all_sync).
template <typename T> uint64_t match_any(uint32_t mask, T v) noexcept;
template <typename T> uint64_t match_all(uint32_t mask, T v) noexcept;
/// Bit i set when lane i's pred is true.
uint64_t ballot(bool pred) noexcept;
bool all_nonzero(uint32_t mask, bool pred) noexcept;
bool any_nonzero(uint32_t mask, bool pred) noexcept;
/// A source lane outside the warp gives the lane's own value, as in CUDA.
template <typename T>
T shfl_sync(uint32_t mask, T v, int32_t src_lane) noexcept;
template <typename T>
T shfl_up_sync(uint32_t mask, T v, uint32_t delta) noexcept;
template <typename T>
T shfl_down_sync(uint32_t mask, T v, uint32_t delta) noexcept;
template <typename T>
T shfl_xor_sync(uint32_t mask, T v, uint32_t delta) noexcept;
/// Over the warp; valid on every lane.
template <typename T> T reduce_add(T v) noexcept;
template <typename T> T reduce_min(T v) noexcept;
template <typename T> T reduce_max(T v) noexcept;
} // namespace warp
} // namespace simt

namespace graph {
/// `while (qd::graph::do_while(flag)) { ... }` at the top level of a
/// QD_GRAPH kernel, flag a 0-d int32_t ndarray parameter or field: the body
/// runs, then runs again while the flag is non-zero (on sm_90 and newer
/// without the host; elsewhere the runtime reads the flag after each run).
template <typename Flag> bool do_while(const Flag &flag) noexcept;
} // namespace graph

// Device atomics on field and ndarray elements and kernel scalars: return
// the value before the update. add, sub, mul, min, max: 32- and 64-bit
// integers, float, double; and, or, xor: integers.
template <typename T>
T atomic_add(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_sub(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_mul(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_min(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_max(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_and(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_or(T &dst, std::type_identity_t<T> value) noexcept;
template <typename T>
T atomic_xor(T &dst, std::type_identity_t<T> value) noexcept;
/// Stores value; returns the value before.
template <typename T>
T atomic_exchange(T &dst, std::type_identity_t<T> value) noexcept;
/// Stores desired if dst holds expected; returns the value before (as
/// CUDA's atomicCAS).
template <typename T>
T atomic_compare_exchange(T &dst, T expected, T desired) noexcept;

} // namespace qd

#endif // QD_QD_H
