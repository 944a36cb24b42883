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
/// The native handle of a stream (0 for the default stream).
void *stream_handle(const Stream &stream);
/// Throws qd::Error: "<what>: <got> values for <kind> of <want>".
[[noreturn]] void throw_size_error(const char *what, size_t got, size_t want);
/// Throws qd::Error for a bad Ndarray shape.
[[noreturn]] void throw_shape_error(size_t extents, int dims, int64_t negative);
} // namespace detail

/// A run-time-shaped array in device memory, owned. Passed to kernels that
/// take a qd::ndarray<T, Dims>.
template <typename T, int Dims> class Ndarray {
  static_assert(Dims >= 1, "an Ndarray has at least one dimension");

public:
  using value_type = T;

  Ndarray() = default;
  explicit Ndarray(const std::array<int64_t, Dims> &shape) : shape_(shape) {
    size_t n = size();
    if (n)
      data_ = detail::allocate(n * sizeof(T));
    generation_ = detail::generation();
  }
  Ndarray(std::initializer_list<int64_t> shape) : Ndarray(toShape(shape)) {}
  ~Ndarray() { detail::deallocate(data_, generation_); }
  Ndarray(Ndarray &&o) noexcept { swap(o); }
  Ndarray &operator=(Ndarray &&o) noexcept {
    Ndarray(std::move(o)).swap(*this);
    return *this;
  }
  Ndarray(const Ndarray &) = delete;
  Ndarray &operator=(const Ndarray &) = delete;

  int64_t shape(int d) const { return shape_.at(static_cast<size_t>(d)); }
  const std::array<int64_t, Dims> &shape() const { return shape_; }
  size_t size() const {
    size_t n = 1;
    for (int64_t s : shape_)
      n *= static_cast<size_t>(s);
    return n;
  }
  size_t bytes() const { return size() * sizeof(T); }
  void *data() const { return data_; }

  /// Copies the contents to the host, after the default stream's work.
  std::vector<T> to_vector() const {
    std::vector<T> out(size());
    detail::copy_to_host(out.data(), data_, bytes(), nullptr, true);
    return out;
  }
  /// Copies host data in; `values` must hold size() elements.
  void copy_from(const std::vector<T> &values) {
    checkSize(values.size());
    detail::copy_to_device(data_, values.data(), bytes(), nullptr, true);
  }
  void fill(const T &value) { copy_from(std::vector<T>(size(), value)); }

  /// Asynchronous forms, ordered on `stream`: the host buffer must stay
  /// alive and unchanged until the stream is synchronized.
  void copy_from_async(const T *values, size_t count, const Stream &s) {
    checkSize(count);
    detail::copy_to_device(data_, values, bytes(), detail::stream_handle(s),
                           false);
  }
  void copy_to_async(T *out, size_t count, const Stream &s) const {
    checkSize(count);
    detail::copy_to_host(out, data_, bytes(), detail::stream_handle(s), false);
  }

private:
  static std::array<int64_t, Dims> toShape(std::initializer_list<int64_t> s) {
    if (s.size() != static_cast<size_t>(Dims))
      detail::throw_shape_error(s.size(), Dims, 0);
    std::array<int64_t, Dims> out{};
    size_t i = 0;
    for (int64_t v : s) {
      if (v < 0)
        detail::throw_shape_error(s.size(), Dims, v);
      out[i++] = v;
    }
    return out;
  }
  void checkSize(size_t count) const {
    if (count != size())
      detail::throw_size_error("qd::Ndarray", count, size());
  }
  void swap(Ndarray &o) noexcept {
    std::swap(shape_, o.shape_);
    std::swap(data_, o.data_);
    std::swap(generation_, o.generation_);
  }

  std::array<int64_t, Dims> shape_{};
  void *data_ = nullptr;
  uint64_t generation_ = 0;
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
    constexpr int64_t dims[] = {Dims...};
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
      detail::throw_size_error("qd::Field", values.size(), size());
    detail::copy_to_device(data(), values.data(), bytes(), nullptr, true);
  }
  void fill(const T &value) { copy_from(std::vector<T>(size(), value)); }
  void copy_from_async(const T *values, const Stream &s) {
    detail::copy_to_device(data(), values, bytes(), detail::stream_handle(s),
                           false);
  }
  void copy_to_async(T *out, const Stream &s) const {
    detail::copy_to_host(out, data(), bytes(), detail::stream_handle(s), false);
  }

private:
  ModuleFn module_;
  uint32_t index_;
};

} // namespace qd

#endif // QD_MEMORY_H
