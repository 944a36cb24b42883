//===- qd/memory.h - Device memory and launch options -----------*- C++ -*-===//
//
// Part of qdc. qd::Ndarray, the host handles of fields, and qd::Launch:
// what generated launchers need, kept free of the heavier parts of
// <qd/runtime.h> so that generated code compiles quickly. Users include
// <qd/runtime.h>, which includes this.
//
//===----------------------------------------------------------------------===//

#ifndef QD_MEMORY_H
#define QD_MEMORY_H

#include "qd/abi.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace qd {

class Stream;

/// The optional last argument of every generated kernel function: where to
/// launch. Launch{} is the default stream.
struct Launch {
  void *stream = nullptr;
};

namespace detail {
/// Device memory on the current device; host memory on CPU.
void *allocate(size_t bytes);
void deallocate(void *pointer, uint64_t generation) noexcept;
uint64_t generation();
void copy_to_device(void *dst, const void *src, size_t bytes, void *stream,
                    bool wait);
void copy_to_host(void *dst, const void *src, size_t bytes, void *stream,
                  bool wait);
/// Throws qd::Error with qdrt_last_error() when status is not success.
void check(int status);
/// The native handle of a stream (0 for the default stream). Throws
/// qd::Error "<what>: the stream belongs to a runtime that was reset" for a
/// stream made before qd::reset().
void *stream_handle(const Stream &stream, const char *what);
/// Throws qd::Error: "<what>: <got> values for <kind> of <want>".
[[noreturn]] void throw_size_error(const char *what, size_t got, size_t want);
/// Throws qd::Error for a bad Ndarray shape.
[[noreturn]] void throw_shape_error(size_t extents, int dims, int64_t negative);
/// The number of elements of an Ndarray of `shape` (`dims` extents) whose
/// elements have `element_bytes` bytes. Throws qd::Error for a negative
/// extent, or when the size in bytes overflows or exceeds PTRDIFF_MAX.
size_t checked_size(const int64_t *shape, int dims, size_t element_bytes);
/// Throws qd::Error: "qd::Ndarray::shape: no dimension <d> in a
/// <dims>-dimensional array".
[[noreturn]] void throw_dimension_error(int d, int dims);
/// Throws qd::Error "<what>: the array was created before qd::reset(); its
/// memory was freed" when `generation` is not 0 (an array that belongs to
/// no runtime) and not the running runtime's. Starts no runtime.
void check_generation(uint64_t generation, const char *what);
/// Throws qd::Error "<what>: the host pointer is null, with <bytes> bytes
/// to copy" when `host` is null and `bytes` is not 0.
void check_host_pointer(const void *host, size_t bytes, const char *what);

/// What qd::detail reads of an Ndarray that users do not need.
struct NdarrayAccess {
  template <typename A> static uint64_t generation(const A &a) {
    return a.generation_;
  }
};
} // namespace detail

/// A run-time-shaped array in device memory, owned. Passed to kernels that
/// take a qd::ndarray<T, Dims>. An array remembers the runtime that
/// allocated it: after qd::reset() its memory is gone, so copying to or
/// from it or passing it to a kernel is a qd::Error (also after a new
/// qd::init()); destroying it or assigning to it is safe.
/// A rank-0 array (`qd::Ndarray<float, 0> t({})`) holds one value.
template <typename T, int Dims> class Ndarray {
  static_assert(Dims >= 0, "an Ndarray's rank is not negative");

public:
  using value_type = T;

  Ndarray() = default;
  /// Throws qd::Error for a negative extent or a shape too large to
  /// address (its size in bytes over PTRDIFF_MAX).
  explicit Ndarray(const std::array<int64_t, Dims> &shape) : shape_(shape) {
    size_t n = detail::checked_size(shape_.data(), Dims, sizeof(T));
    if (n)
      data_ = detail::allocate(n * sizeof(T));
    generation_ = detail::generation();
  }
  Ndarray(std::initializer_list<int64_t> shape) : Ndarray(toShape(shape)) {}
  /// Frees the memory, unless qd::reset() already did.
  ~Ndarray() { detail::deallocate(data_, generation_); }
  Ndarray(Ndarray &&o) noexcept { swap(o); }
  Ndarray &operator=(Ndarray &&o) noexcept {
    Ndarray(std::move(o)).swap(*this);
    return *this;
  }
  Ndarray(const Ndarray &) = delete;
  Ndarray &operator=(const Ndarray &) = delete;

  /// The extent of dimension `d`; qd::Error unless 0 <= d < Dims.
  int64_t shape(int d) const {
    if (d < 0 || d >= Dims)
      detail::throw_dimension_error(d, Dims);
    return shape_[static_cast<size_t>(d)];
  }
  const std::array<int64_t, Dims> &shape() const { return shape_; }
  /// The number of elements (checked not to overflow at construction); 0
  /// for an array without memory (default-constructed or moved-from, of
  /// any rank).
  size_t size() const {
    if (!data_)
      return 0;
    size_t n = 1;
    for (int64_t s : shape_)
      n *= static_cast<size_t>(s);
    return n;
  }
  size_t bytes() const { return size() * sizeof(T); }
  /// The device address; null for an empty array. Not to be used after
  /// qd::reset().
  void *data() const { return data_; }

  /// Copies the contents to the host, after the default stream's work.
  std::vector<T> to_vector() const {
    detail::check_generation(generation_, "qd::Ndarray::to_vector");
    std::vector<T> out(size());
    detail::copy_to_host(out.data(), data_, bytes(), nullptr, true);
    return out;
  }
  /// Copies host data in; `values` must hold size() elements.
  void copy_from(const std::vector<T> &values) {
    detail::check_generation(generation_, "qd::Ndarray::copy_from");
    checkSize(values.size(), "qd::Ndarray::copy_from");
    detail::copy_to_device(data_, values.data(), bytes(), nullptr, true);
  }
  void fill(const T &value) {
    detail::check_generation(generation_, "qd::Ndarray::fill");
    copy_from(std::vector<T>(size(), value));
  }

  /// Asynchronous forms, ordered on `stream`: the host buffer must stay
  /// alive and unchanged until the stream is synchronized. A null host
  /// pointer is an error unless there is nothing to copy.
  void copy_from_async(const T *values, size_t count, const Stream &s) {
    const char *what = "qd::Ndarray::copy_from_async";
    detail::check_generation(generation_, what);
    checkSize(count, what);
    detail::check_host_pointer(values, bytes(), what);
    detail::copy_to_device(data_, values, bytes(),
                           detail::stream_handle(s, what), false);
  }
  void copy_to_async(T *out, size_t count, const Stream &s) const {
    const char *what = "qd::Ndarray::copy_to_async";
    detail::check_generation(generation_, what);
    checkSize(count, what);
    detail::check_host_pointer(out, bytes(), what);
    detail::copy_to_host(out, data_, bytes(), detail::stream_handle(s, what),
                         false);
  }

private:
  friend struct detail::NdarrayAccess;

  static std::array<int64_t, Dims> toShape(std::initializer_list<int64_t> s) {
    if (s.size() != static_cast<size_t>(Dims))
      detail::throw_shape_error(s.size(), Dims, 0);
    std::array<int64_t, Dims> out{};
    size_t i = 0;
    for (int64_t v : s)
      out[i++] = v;
    return out;
  }
  void checkSize(size_t count, const char *what) const {
    if (count != size())
      detail::throw_size_error(what, count, size());
  }
  void swap(Ndarray &o) noexcept {
    std::swap(shape_, o.shape_);
    std::swap(data_, o.data_);
    std::swap(generation_, o.generation_);
  }

  std::array<int64_t, Dims> shape_{};
  void *data_ = nullptr;
  uint64_t generation_ = 0; ///< the allocating runtime's; 0: none
};

/// The host's handle on a module-level field of a qdc-generated module:
/// `compute::a.to_vector()`, `compute::a.fill(0)`. Copies are ordered on
/// the default stream (or the given one for the async forms).
template <typename T, int64_t... Dims> class Field {
public:
  using ModuleFn = qdrt_module *(*)();
  constexpr Field(ModuleFn module, uint32_t index)
      : module_(module), index_(index) {}

  static constexpr int rank = sizeof...(Dims);
  static constexpr int64_t shape(int d) {
    constexpr int64_t dims[] = {Dims..., 0}; // a rank-0 field has none
    return dims[d];
  }
  static constexpr size_t size() { return size_t((Dims * ... * int64_t(1))); }
  static constexpr size_t bytes() { return size() * sizeof(T); }

  /// The field's address on the current device (host address on CPU).
  void *data() const {
    void *p = nullptr;
    detail::check(qdrt_field_address(module_(), index_, &p));
    return p;
  }
  std::vector<T> to_vector() const {
    std::vector<T> out(size());
    detail::copy_to_host(out.data(), data(), bytes(), nullptr, true);
    return out;
  }
  void copy_from(const std::vector<T> &values) {
    if (values.size() != size())
      detail::throw_size_error("qd::Field::copy_from", values.size(), size());
    detail::copy_to_device(data(), values.data(), bytes(), nullptr, true);
  }
  void fill(const T &value) { copy_from(std::vector<T>(size(), value)); }
  /// Asynchronous forms, ordered on `stream`: the host buffer must stay
  /// alive and unchanged until the stream is synchronized.
  void copy_from_async(const T *values, const Stream &s) {
    const char *what = "qd::Field::copy_from_async";
    detail::check_host_pointer(values, bytes(), what);
    detail::copy_to_device(data(), values, bytes(),
                           detail::stream_handle(s, what), false);
  }
  void copy_to_async(T *out, const Stream &s) const {
    const char *what = "qd::Field::copy_to_async";
    detail::check_host_pointer(out, bytes(), what);
    detail::copy_to_host(out, data(), bytes(), detail::stream_handle(s, what),
                         false);
  }

private:
  ModuleFn module_;
  uint32_t index_;
};

} // namespace qd

#endif // QD_MEMORY_H
