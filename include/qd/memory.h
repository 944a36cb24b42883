//===- qd/memory.h - Device memory and launch options -----------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::Ndarray, the host handles of fields, and qd::Launch:
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
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace qd {

class Stream;

/// A device of the runtime's backend (DESIGN section 3.3).
struct Device {
  int ordinal = 0;
  std::string name;
  int compute_capability = 0; ///< NVIDIA: 90 for sm_90; 0 elsewhere
  size_t memory = 0;          ///< bytes of device memory (the host's on CPU)
};

/// The optional last argument of every generated kernel function: where to
/// launch. Launch{} is the current device's default stream; qd::on(stream)
/// names the stream and its device.
struct Launch {
  void *stream = nullptr;
  /// The ordinal of the device that runs the call; QDRT_CURRENT_DEVICE: the
  /// current one.
  int32_t device = QDRT_CURRENT_DEVICE;
};

namespace detail {
/// Device memory on the current device; host memory on CPU. Zero-filled.
void *allocate(size_t bytes);
/// The same (null for 0 bytes), with the generation of the runtime that
/// allocated it, taken in the same call (a qd::reset() on another thread
/// cannot come in between).
void *allocate(size_t bytes, uint64_t &generation);
/// The same on device `device` (QDRT_CURRENT_DEVICE: the current one),
/// also saying which device that is.
void *allocate_on(size_t bytes, int device, uint64_t &generation, int &ordinal);
void deallocate(void *pointer, uint64_t generation) noexcept;
/// Zero-filled host memory of at least `bytes`, page-aligned, registered
/// with the current device (page-locked on GPUs): the pointer (null for 0
/// bytes), the generation of the runtime that registered it and the
/// device's ordinal.
void *allocate_host(size_t bytes, uint64_t &generation, int &ordinal);
/// Frees it once every open device's queued work is done, unregistering it
/// when that runtime still runs (a reset dropped the registration already).
void deallocate_host(void *pointer, uint64_t generation, int ordinal) noexcept;
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

/// Fills `count` elements of `elem_bytes` bytes at `dst` (device memory)
/// with the element at `value` (host memory), on the device: one memset
/// when the element repeats a 1-, 2- or 4-byte pattern, else the first
/// element copied in and doubled by device-to-device copies.
void fill(void *dst, const void *value, size_t elem_bytes, size_t count,
          void *stream, bool wait);
/// Copies `bytes` between device buffers; `what` names the call in errors.
/// Overlapping ranges are a qd::Error (the same range copies nothing).
/// Stream::device(), for code that sees Stream declared only.
int stream_device(const Stream &stream);
/// Issued by device `device` (QDRT_CURRENT_DEVICE: the current one), on
/// its `stream`; the two sides may be on different devices.
void copy_on_device(void *dst, const void *src, size_t bytes, void *stream,
                    bool wait, const char *what,
                    int device = QDRT_CURRENT_DEVICE);
/// Throws qd::Error "<what>: ..." when `bytes` at `data` cannot be a view:
/// a null pointer with elements, or memory the current device's kernels
/// cannot use (as far as its driver can tell).
void check_view(const void *data, size_t bytes, const char *what);
/// Throws qd::Error "<kind>::<op>: ..." when an array's memory is gone:
/// freed by qd::reset() (`generation` is not the running runtime's), or
/// released by the owner a view was made from (`released`).
void check_array(uint64_t generation, bool released, const char *kind,
                 const char *op);
/// "<kind>::<op>", for messages that name the call; kind alone when op is
/// null (a name already whole: "kernel 'k', argument 'x'").
std::string call_name(const char *kind, const char *op);
/// Throws qd::Error "<what>: the shapes differ: [..] and [..]".
[[noreturn]] void throw_shape_mismatch(const char *what, const int64_t *dst,
                                       const int64_t *src, int dims);
} // namespace detail

template <typename T, int Dims> class NdarrayView;

/// A run-time-shaped array in device memory, owned. Passed to kernels that
/// take a qd::ndarray<T, Dims> (as a view). An array remembers the runtime
/// that allocated it: after qd::reset() its memory is gone, so copying to
/// or from it or passing it to a kernel is a qd::Error (also after a new
/// qd::init()); destroying it or assigning to it is safe. Views of it know
/// when it is gone. A rank-0 array (`qd::Ndarray<float, 0> t({})`) holds
/// one value.
template <typename T, int Dims> class Ndarray {
  static_assert(Dims >= 0, "an Ndarray's rank is not negative");

public:
  using value_type = T;
  static constexpr int rank = Dims;

  Ndarray() = default;
  /// Every element is zero (all bytes 0). Throws qd::Error for a negative
  /// extent or a shape too large to address (its size in bytes over
  /// PTRDIFF_MAX).
  explicit Ndarray(const std::array<int64_t, Dims> &shape)
      : Ndarray(shape, QDRT_CURRENT_DEVICE) {}
  Ndarray(std::initializer_list<int64_t> shape) : Ndarray(toShape(shape)) {}
  /// On device `on` (the current device otherwise): kernels called on
  /// another device refuse it.
  Ndarray(const std::array<int64_t, Dims> &shape, const Device &on)
      : Ndarray(shape, on.ordinal) {}
  Ndarray(std::initializer_list<int64_t> shape, const Device &on)
      : Ndarray(toShape(shape), on.ordinal) {}
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
  size_t size() const { return data_ ? elements(shape_) : 0; }
  size_t bytes() const { return size() * sizeof(T); }
  /// The device address; null for an empty array. Not to be used after
  /// qd::reset().
  void *data() const { return data_; }
  /// The ordinal of the device whose memory it is (QDRT_CURRENT_DEVICE for
  /// an array without memory).
  int device() const { return device_; }

  /// A non-owning view of the whole array, for kernels, copies and fills;
  /// using it after the array is destroyed is a qd::Error.
  NdarrayView<T, Dims> view() const { return NdarrayView<T, Dims>(*this); }

  /// Copies the contents to the host, after the default stream's work.
  std::vector<T> to_vector() const { return view().to_vector(); }
  /// Copies host data in; `values` must hold size() elements.
  void copy_from(const std::vector<T> &values) { view().copy_from(values); }
  /// Sets every element to `value`, on the device, and waits for it.
  void fill(const T &value) { view().fill(value); }
  /// The same, ordered on `stream`, without waiting.
  void fill_async(const T &value, const Stream &s) {
    view().fill_async(value, s);
  }

  /// Asynchronous copies, ordered on `stream`: the host buffer must stay
  /// alive and unchanged until the stream is synchronized. A null host
  /// pointer is an error unless there is nothing to copy.
  void copy_from_async(const T *values, size_t count, const Stream &s) {
    view().copy_from_async(values, count, s);
  }
  void copy_to_async(T *out, size_t count, const Stream &s) const {
    view().copy_to_async(out, count, s);
  }

private:
  friend class NdarrayView<T, Dims>;

  Ndarray(const std::array<int64_t, Dims> &shape, int on) : shape_(shape) {
    size_t n = detail::checked_size(shape_.data(), Dims, sizeof(T));
    data_ = detail::allocate_on(n * sizeof(T), on, generation_, device_);
    alive_ = std::make_shared<char>();
  }

  static size_t elements(const std::array<int64_t, Dims> &shape) {
    size_t n = 1;
    for (int64_t s : shape)
      n *= static_cast<size_t>(s);
    return n;
  }
  static std::array<int64_t, Dims> toShape(std::initializer_list<int64_t> s) {
    if (s.size() != static_cast<size_t>(Dims))
      detail::throw_shape_error(s.size(), Dims, 0);
    std::array<int64_t, Dims> out{};
    size_t i = 0;
    for (int64_t v : s)
      out[i++] = v;
    return out;
  }
  void swap(Ndarray &o) noexcept {
    std::swap(shape_, o.shape_);
    std::swap(data_, o.data_);
    std::swap(generation_, o.generation_);
    std::swap(device_, o.device_);
    std::swap(alive_, o.alive_);
  }

  std::array<int64_t, Dims> shape_{};
  void *data_ = nullptr;
  uint64_t generation_ = 0;     ///< the allocating runtime's; 0: none
  int device_ = QDRT_CURRENT_DEVICE;
  std::shared_ptr<char> alive_; ///< views hold it weakly
};

/// A non-owning view of contiguous row-major memory on the current device
/// (host memory on the CPU backend): memory the program allocated itself
/// (cudaMalloc, another library's buffer, a std::vector on the CPU), an
/// Ndarray (`a.view()`, or implicitly), a field (`ns::f.view()`), or a
/// DLPack tensor (<qd/dlpack.h>). Passed to kernels that take a
/// qd::ndarray<T, Dims>, and to copies and fills, like an Ndarray. Copying
/// a view copies the reference, never the data.
template <typename T, int Dims> class NdarrayView {
  static_assert(Dims >= 0, "a view's rank is not negative");

public:
  using value_type = T;
  static constexpr int rank = Dims;

  NdarrayView() = default;
  /// Views `data` as an array of `shape`. qd::Error for a negative extent,
  /// a null `data` with elements, or memory the device cannot use as far
  /// as its driver can tell (on CUDA: host memory the driver does not know,
  /// another GPU's memory, a shape past the end of the allocation).
  NdarrayView(T *data, const std::array<int64_t, Dims> &shape)
      : shape_(shape), data_(data) {
    size_t n = detail::checked_size(shape_.data(), Dims, sizeof(T));
    detail::check_view(data, n * sizeof(T), "qd::NdarrayView");
    if (!n)
      data_ = nullptr;
  }
  NdarrayView(T *data, std::initializer_list<int64_t> shape)
      : NdarrayView(data, Ndarray<T, Dims>::toShape(shape)) {}
  /// The whole of `a`; knows when `a` is destroyed.
  NdarrayView(const Ndarray<T, Dims> &a)
      : shape_(a.shape_), data_(static_cast<T *>(a.data_)),
        generation_(a.generation_), device_(a.device_), owner_(a.alive_),
        tracked_(a.alive_ != nullptr), kind_("qd::Ndarray") {}
  /// A view whose memory lives as long as `owner` (the DLPack import), on
  /// device `device` (QDRT_CURRENT_DEVICE: not known).
  NdarrayView(T *data, const std::array<int64_t, Dims> &shape,
              const std::shared_ptr<const void> &owner, const char *kind,
              int device = QDRT_CURRENT_DEVICE)
      : NdarrayView(data, shape) {
    owner_ = owner;
    tracked_ = true;
    kind_ = kind;
    device_ = device;
  }
  /// Memory the runtime of `generation` owns (a field's, or an array a
  /// binding checked), on device `device` (QDRT_CURRENT_DEVICE: not known).
  NdarrayView(T *data, const std::array<int64_t, Dims> &shape,
              uint64_t generation, const char *kind,
              int device = QDRT_CURRENT_DEVICE)
      : shape_(shape), data_(data), generation_(generation), device_(device),
        kind_(kind) {}

  int64_t shape(int d) const {
    if (d < 0 || d >= Dims)
      detail::throw_dimension_error(d, Dims);
    return shape_[static_cast<size_t>(d)];
  }
  const std::array<int64_t, Dims> &shape() const { return shape_; }
  size_t size() const { return data_ ? Ndarray<T, Dims>::elements(shape_) : 0; }
  size_t bytes() const { return size() * sizeof(T); }
  T *data() const { return data_; }
  /// The ordinal of the device whose memory it views; QDRT_CURRENT_DEVICE
  /// when not known (memory the program gave by address).
  int device() const { return device_; }

  /// Throws qd::Error "<kind>::<op>: ..." when the memory is gone (the
  /// runtime was reset, or the owner it was made from was destroyed); kind
  /// defaults to what the view was made from ("qd::Ndarray", ...).
  void check(const char *op, const char *kind = nullptr) const {
    detail::check_array(generation_, tracked_ && owner_.expired(),
                        kind ? kind : kind_, op);
  }
  const char *kind() const { return kind_; }

  std::vector<T> to_vector() const {
    check("to_vector");
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> packs bits: go through one byte an element.
      std::vector<uint8_t> bytes_(size());
      detail::copy_to_host(bytes_.data(), data_, bytes(), nullptr, true);
      return std::vector<bool>(bytes_.begin(), bytes_.end());
    } else {
      std::vector<T> out(size());
      detail::copy_to_host(out.data(), data_, bytes(), nullptr, true);
      return out;
    }
  }
  void copy_from(const std::vector<T> &values) const {
    check("copy_from");
    checkSize(values.size(), "copy_from");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes_(values.begin(), values.end());
      detail::copy_to_device(data_, bytes_.data(), bytes(), nullptr, true);
    } else {
      detail::copy_to_device(data_, values.data(), bytes(), nullptr, true);
    }
  }
  void fill(const T &value) const {
    check("fill");
    detail::fill(data_, &value, sizeof(T), size(), nullptr, true);
  }
  void fill_async(const T &value, const Stream &s) const {
    check("fill_async");
    detail::fill(data_, &value, sizeof(T), size(), streamOf(s, "fill_async"),
                 false);
  }
  void copy_from_async(const T *values, size_t count, const Stream &s) const {
    const char *op = "copy_from_async";
    check(op);
    checkSize(count, op);
    detail::check_host_pointer(values, bytes(),
                               detail::call_name(kind_, op).c_str());
    detail::copy_to_device(data_, values, bytes(), streamOf(s, op), false);
  }
  void copy_to_async(T *out, size_t count, const Stream &s) const {
    const char *op = "copy_to_async";
    check(op);
    checkSize(count, op);
    detail::check_host_pointer(out, bytes(),
                               detail::call_name(kind_, op).c_str());
    detail::copy_to_host(out, data_, bytes(), streamOf(s, op), false);
  }

private:
  void checkSize(size_t count, const char *op) const {
    if (count != size())
      detail::throw_size_error(detail::call_name(kind_, op).c_str(), count,
                               size());
  }
  void *streamOf(const Stream &s, const char *op) const {
    return detail::stream_handle(s, detail::call_name(kind_, op).c_str());
  }

  std::array<int64_t, Dims> shape_{};
  T *data_ = nullptr;
  uint64_t generation_ = 0; ///< the runtime the memory belongs to; 0: none
  int device_ = QDRT_CURRENT_DEVICE;
  std::weak_ptr<const void> owner_;
  bool tracked_ = false; ///< made from an owner whose end owner_ shows
  const char *kind_ = "qd::NdarrayView";
};

/// The host's handle on a module-level field of a qdc-generated module:
/// `compute::a.to_vector()`, `compute::a.fill(0)`. Copies are ordered on
/// the default stream (or the given one for the async forms).
template <typename T, int64_t... Dims> class Field {
public:
  using ModuleFn = qdrt_module *(*)();
  using value_type = T;
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
  void *data() const { return data_on(QDRT_CURRENT_DEVICE); }
  /// Its address on device `device`: each device that runs the module's
  /// kernels has its own copy of the field.
  void *data_on(int device) const {
    void *p = nullptr;
    detail::check(qdrt_field_address(module_(), device, index_, &p));
    return p;
  }
  /// The copy on device `device`, as a view.
  NdarrayView<T, rank> on(int device) const {
    uint64_t generation = detail::generation();
    return NdarrayView<T, rank>(static_cast<T *>(data_on(device)),
                                std::array<int64_t, rank>{Dims...}, generation,
                                "qd::Field", device);
  }
  /// The field as a view, for kernels taking an ndarray, copies and fills;
  /// a view kept past qd::reset() is a qd::Error when used.
  NdarrayView<T, rank> view() const {
    // The generation before the address: should a qd::reset() come in
    // between, the view belongs to the runtime that is gone (refused when
    // used), never a gone address to the new one.
    uint64_t generation = detail::generation();
    return NdarrayView<T, rank>(static_cast<T *>(data()),
                                std::array<int64_t, rank>{Dims...}, generation,
                                "qd::Field");
  }
  operator NdarrayView<T, rank>() const { return view(); }

  std::vector<T> to_vector() const { return view().to_vector(); }
  void copy_from(const std::vector<T> &values) { view().copy_from(values); }
  /// Sets every element to `value`, on the device, and waits for it.
  void fill(const T &value) { view().fill(value); }
  void fill_async(const T &value, const Stream &s) {
    view().fill_async(value, s);
  }
  /// Asynchronous forms, ordered on `stream`: the host buffer must stay
  /// alive and unchanged until the stream is synchronized.
  void copy_from_async(const T *values, const Stream &s) {
    view().copy_from_async(values, size(), s);
  }
  void copy_to_async(T *out, const Stream &s) const {
    view().copy_to_async(out, size(), s);
  }

private:
  ModuleFn module_;
  uint32_t index_;
};

/// Host memory that copies to and from devices use at the bus's speed: on
/// a GPU backend it is page-locked ("pinned") for every device, so that
/// `copy_from_async(h.data(), h.size(), s)` and `copy_to_async` are one DMA
/// that returns at once (memory from `new` or std::vector is copied
/// through the runtime's own pinned blocks instead, and may wait for the
/// host side); on the CPU backend it is ordinary memory. Zero-filled,
/// page-aligned, owned. Its destructor waits for the queued work of every
/// open device, as freeing device memory does. The
/// memory is the program's, not the runtime's: after qd::reset() it is
/// still there, only no longer pinned (copies then take the staged path).
template <typename T> class HostArray {
  static_assert(std::is_trivially_copyable_v<T>,
                "a HostArray holds trivially copyable elements");

public:
  using value_type = T;

  HostArray() = default;
  /// n elements, zero; a qd::Error when the memory cannot be had or the
  /// device refuses to pin it.
  explicit HostArray(size_t n) {
    // Past PTRDIFF_MAX bytes the runtime refuses the size.
    size_t bytes = n > PTRDIFF_MAX / sizeof(T) ? SIZE_MAX : n * sizeof(T);
    data_ =
        static_cast<T *>(detail::allocate_host(bytes, generation_, device_));
    size_ = n;
  }
  ~HostArray() { detail::deallocate_host(data_, generation_, device_); }
  HostArray(HostArray &&o) noexcept { swap(o); }
  HostArray &operator=(HostArray &&o) noexcept {
    HostArray(std::move(o)).swap(*this);
    return *this;
  }
  HostArray(const HostArray &) = delete;
  HostArray &operator=(const HostArray &) = delete;

  T *data() { return data_; }
  const T *data() const { return data_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }

private:
  void swap(HostArray &o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(generation_, o.generation_);
    std::swap(device_, o.device_);
  }

  T *data_ = nullptr;
  size_t size_ = 0;
  uint64_t generation_ = 0;
  int device_ = QDRT_CURRENT_DEVICE;
};

namespace detail {
template <typename A> struct ArrayTraits; // Ndarray, NdarrayView, Field
template <typename T, int Dims> struct ArrayTraits<Ndarray<T, Dims>> {
  using View = NdarrayView<T, Dims>;
};
template <typename T, int Dims> struct ArrayTraits<NdarrayView<T, Dims>> {
  using View = NdarrayView<T, Dims>;
};
template <typename T, int64_t... Dims> struct ArrayTraits<Field<T, Dims...>> {
  using View = NdarrayView<T, sizeof...(Dims)>;
};
template <typename A> using view_of = typename ArrayTraits<A>::View;

/// `device`: the stream's (QDRT_CURRENT_DEVICE for the default stream,
/// then the device of the destination, else of the source, issues it).
template <typename D, typename S>
void copy_views(const D &dst, const S &src, void *stream, int device, bool wait,
                const char *what) {
  static_assert(std::is_same_v<typename D::value_type, typename S::value_type>,
                "qd::copy: the element types differ");
  static_assert(D::rank == S::rank, "qd::copy: the ranks differ");
  dst.check("copy");
  src.check("copy");
  if (dst.shape() != src.shape())
    throw_shape_mismatch(what, dst.shape().data(), src.shape().data(), D::rank);
  if (device == QDRT_CURRENT_DEVICE)
    device = dst.device() != QDRT_CURRENT_DEVICE ? dst.device() : src.device();
  copy_on_device(dst.data(), src.data(), dst.bytes(), stream, wait, what,
                 device);
}
} // namespace detail

/// Copies `src` into `dst` on the device, and waits for it: ndarrays,
/// views and fields of the same element type and shape (else a qd::Error);
/// overlapping memory is a qd::Error.
template <typename D, typename S> void copy(const D &dst, const S &src) {
  detail::copy_views(detail::view_of<D>(dst), detail::view_of<S>(src), nullptr,
                     QDRT_CURRENT_DEVICE, true, "qd::copy");
}
/// The same, ordered on `stream`, without waiting.
template <typename D, typename S>
void copy_async(const D &dst, const S &src, const Stream &stream) {
  detail::copy_views(detail::view_of<D>(dst), detail::view_of<S>(src),
                     detail::stream_handle(stream, "qd::copy_async"),
                     detail::stream_device(stream), false, "qd::copy_async");
}

} // namespace qd

#endif // QD_MEMORY_H
