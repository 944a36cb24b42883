//===- qd/runtime.h - The qdc runtime API (libqdrt) -------------*- C++ -*-===//
//
// Part of qdc. What host programs use: pick a backend, create streams and
// events, own device memory, and pass a stream to a generated kernel with
// qd::on(stream). Every failure is a qd::Error naming the operation and,
// for driver calls, the driver's own error string.
//
//===----------------------------------------------------------------------===//

#ifndef QD_RUNTIME_H
#define QD_RUNTIME_H

#include "qd/abi.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace qd {

/// A runtime failure. The message names the operation that failed.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Backends. `best` picks cuda, then amdgpu, then cpu; the environment
/// variable QD_ARCH (cuda, amdgpu, cpu) overrides it.
enum class Arch { best, cuda, amdgpu, cpu };

/// "cuda", "amdgpu", "cpu" or "best".
const char *arch_name(Arch arch);

struct InitOptions {
  int device = 0; ///< ordinal of the GPU to use on machines with several
};

/// Starts the runtime on `arch`. Calling it again with the same arch and
/// device does nothing; with another one, it is an error until reset().
/// A program that never calls init gets init() on its first runtime call.
void init(Arch arch = Arch::best, InitOptions options = {});

/// The backend the runtime runs on (initializing it if needed).
Arch current_arch();

/// Waits for all work, releases every stream, event, module and buffer the
/// runtime owns, and returns to the uninitialized state.
void reset();

/// Waits for the default stream only; explicit streams have synchronize().
void sync();

/// A stream: work on one stream runs in order, work on different streams
/// may overlap. Non-blocking (it does not synchronize with the default
/// stream). Move-only; the destructor calls destroy().
class Stream {
public:
  Stream() = default;
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  /// Adopts a native CUstream / hipStream_t without owning it.
  static Stream wrap(void *native);

  /// Blocks the host until the stream's work is done.
  void synchronize() const;
  /// Waits for the stream's work, then destroys it; handle() becomes 0.
  /// Idempotent. A wrapped stream is only forgotten, never destroyed.
  void destroy();
  /// The native handle; 0 means the default stream (and every stream on
  /// CPU).
  void *handle() const { return handle_; }
  bool owned() const { return owned_; }

private:
  friend Stream create_stream();
  Stream(void *handle, bool owned, uint64_t generation)
      : handle_(handle), owned_(owned), generation_(generation) {}

  void *handle_ = nullptr;
  bool owned_ = false;
  bool live_ = false;
  uint64_t generation_ = 0;
};

Stream create_stream();

struct EventOptions {
  bool timing = false; ///< allows elapsed_ms
};

/// A point in a stream's work that other streams and the host can wait for.
class Event {
public:
  Event() = default;
  ~Event();
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Captures the work submitted to `stream` so far.
  void record(const Stream &stream);
  /// Captures the work submitted to the default stream so far.
  void record();
  /// Makes `stream` wait (on the device, not the host) for the captured
  /// work.
  void wait(const Stream &stream) const;
  /// Makes the default stream wait for the captured work.
  void wait() const;
  /// Blocks the host until the captured work is done.
  void synchronize() const;
  /// True when the captured work is done.
  bool query() const;
  /// Destroys the event; handle() becomes 0. Idempotent.
  void destroy();
  void *handle() const { return handle_; }

private:
  friend Event create_event(EventOptions);
  friend float elapsed_ms(const Event &, const Event &);
  void *handle_ = nullptr;
  bool live_ = false;
  bool timing_ = false;
  uint64_t generation_ = 0;
  double host_ms_ = -1.0; ///< CPU backend: host time of the last record
};

Event create_event(EventOptions options = {});

/// Milliseconds between two recorded timing events.
float elapsed_ms(const Event &start, const Event &end);

/// The optional last argument of every generated kernel function: where to
/// launch. Launch{} is the default stream.
struct Launch {
  void *stream = nullptr;
};

inline Launch on(const Stream &stream) { return Launch{stream.handle()}; }

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
    detail::copy_to_device(data_, values, bytes(), s.handle(), false);
  }
  void copy_to_async(T *out, size_t count, const Stream &s) const {
    checkSize(count);
    detail::copy_to_host(out, data_, bytes(), s.handle(), false);
  }

private:
  static std::array<int64_t, Dims> toShape(std::initializer_list<int64_t> s) {
    if (s.size() != static_cast<size_t>(Dims))
      throw Error("qd::Ndarray: shape has " + std::to_string(s.size()) +
                  " extents, expected " + std::to_string(Dims));
    std::array<int64_t, Dims> out{};
    size_t i = 0;
    for (int64_t v : s) {
      if (v < 0)
        throw Error("qd::Ndarray: negative extent " + std::to_string(v));
      out[i++] = v;
    }
    return out;
  }
  void checkSize(size_t count) const {
    if (count != size())
      throw Error("qd::Ndarray: " + std::to_string(count) +
                  " values for an array of " + std::to_string(size()));
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
      throw Error("qd::Field: " + std::to_string(values.size()) +
                  " values for a field of " + std::to_string(size()));
    detail::copy_to_device(data(), values.data(), bytes(), nullptr, true);
  }
  void fill(const T &value) { copy_from(std::vector<T>(size(), value)); }
  void copy_from_async(const T *values, const Stream &s) {
    detail::copy_to_device(data(), values, bytes(), s.handle(), false);
  }
  void copy_to_async(T *out, const Stream &s) const {
    detail::copy_to_host(out, data(), bytes(), s.handle(), false);
  }

private:
  ModuleFn module_;
  uint32_t index_;
};

} // namespace qd

#endif // QD_RUNTIME_H
