//===- qd/dlpack.h - Arrays exchanged through DLPack ------------*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// qd::from_dlpack and qd::to_dlpack (DESIGN section 3.1):
// PyTorch, CuPy, JAX and NumPy tensors passed to kernels without a copy,
// and qdc's arrays handed to them, over DLPack's C structs (Debian's
// libdlpack-dev, <dlpack/dlpack.h>). Header-only: libqdrt does not depend
// on DLPack.
//
// Ownership follows DLPack: from_dlpack takes the producer's
// DLManagedTensor and calls its deleter exactly once, when the last copy
// of the returned qd::DLPackArray is gone (views of it then refuse to be
// used); when from_dlpack throws, the tensor was not taken and the caller
// still owns it. to_dlpack returns a DLManagedTensor that the consumer
// must delete (by its deleter) once.
//
//===----------------------------------------------------------------------===//

#ifndef QD_DLPACK_H
#define QD_DLPACK_H

#include "qd/runtime.h"

#include <dlpack/dlpack.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace qd {

namespace detail {

/// DLPack's name for T: scalars only (a qd::vec or a struct has no
/// DLPack type: exchange it as an array with one more dimension of its
/// scalars).
template <typename T> constexpr DLDataType dlpack_type() {
  static_assert(std::is_arithmetic_v<T>,
                "DLPack exchanges arrays of integers, floating-point "
                "numbers or bool");
  uint8_t code = std::is_floating_point_v<T> ? kDLFloat
                 : std::is_signed_v<T>       ? kDLInt
                                             : kDLUInt;
  return DLDataType{code, uint8_t(8 * sizeof(T)), 1};
}

/// The DLPack device of the running runtime's memory.
inline DLDevice dlpack_device() {
  switch (current_arch()) {
  case Arch::cuda:
    return DLDevice{kDLCUDA, current_device()};
  case Arch::amdgpu:
    return DLDevice{kDLROCM, current_device()};
  default:
    return DLDevice{kDLCPU, 0};
  }
}

inline std::string dlpack_type_name(DLDataType t) {
  const char *code = t.code == kDLInt     ? "int"
                     : t.code == kDLUInt  ? "uint"
                     : t.code == kDLFloat ? "float"
                                          : "code ";
  std::string name = code;
  if (t.code > kDLFloat)
    name += std::to_string(t.code) + " ";
  name += std::to_string(t.bits);
  if (t.lanes != 1)
    name += "x" + std::to_string(t.lanes);
  return name;
}

inline std::string dlpack_device_name(DLDevice d) {
  const char *type = d.device_type == kDLCPU    ? "kDLCPU"
                     : d.device_type == kDLCUDA ? "kDLCUDA"
                     : d.device_type == kDLROCM ? "kDLROCM"
                                                : nullptr;
  return (type ? std::string(type)
               : "device type " + std::to_string(d.device_type)) +
         " " + std::to_string(d.device_id);
}

/// Throws qd::Error "qd::from_dlpack: ..." unless `t` can be used as a
/// contiguous row-major array of `dims` elements of `want` (`elem_bytes`
/// bytes, aligned to `align`) on the running runtime's device. Every field
/// is checked before it is read through: a null shape, a negative extent,
/// a size that overflows, null data with elements, misaligned data.
inline void check_dlpack(const DLTensor &t, DLDataType want, int dims,
                         size_t elem_bytes, size_t align) {
  auto fail = [](const std::string &why) {
    throw Error("qd::from_dlpack: " + why);
  };
  if (t.ndim != dims)
    fail("the tensor has " + std::to_string(t.ndim) + " dimensions, the " +
         "array " + std::to_string(dims));
  if (dims > 0 && !t.shape)
    fail("the tensor's shape is null, with " + std::to_string(dims) +
         " dimensions");
  if (t.dtype.code != want.code || t.dtype.bits != want.bits ||
      t.dtype.lanes != want.lanes)
    fail("the tensor's elements are " + dlpack_type_name(t.dtype) +
         ", the array's " + dlpack_type_name(want));
  DLDevice mine = dlpack_device();
  if (t.device.device_type != mine.device_type ||
      t.device.device_id != mine.device_id)
    fail("the tensor is on " + dlpack_device_name(t.device) + ", the " +
         arch_name(current_arch()) + " runtime's memory is " +
         dlpack_device_name(mine));
  bool empty = false;
  for (int d = 0; d < dims; ++d) {
    if (t.shape[d] < 0)
      fail("dimension " + std::to_string(d) + " has a negative extent " +
           std::to_string(t.shape[d]));
    empty |= t.shape[d] == 0;
  }
  size_t elements = 1, bytes = 0;
  if (!empty) {
    bool overflow = false;
    for (int d = 0; d < dims && !overflow; ++d)
      overflow = __builtin_mul_overflow(elements, t.shape[d], &elements);
    if (overflow || __builtin_mul_overflow(elements, elem_bytes, &bytes) ||
        bytes > static_cast<size_t>(PTRDIFF_MAX))
      fail("the tensor's size in bytes overflows");
  }
  if (bytes && !t.data)
    fail("the tensor's data is null, with " + std::to_string(bytes) +
         " bytes of elements");
  if (bytes && (reinterpret_cast<uintptr_t>(t.data) + t.byte_offset) % align)
    fail("the tensor's data (with its byte_offset " +
         std::to_string(t.byte_offset) + ") is not aligned to its " +
         std::to_string(align) + "-byte elements");
  if (!t.strides || !bytes)
    return; // compact row-major (null strides), or nothing to lay out
  int64_t expected = 1;
  for (int d = dims - 1; d >= 0; --d) {
    // A dimension of extent 1 may have any stride (PyTorch's do).
    if (t.shape[d] != 1 && t.strides[d] != expected)
      fail("the tensor is not contiguous row-major: dimension " +
           std::to_string(d) + " has stride " + std::to_string(t.strides[d]) +
           " elements, not " + std::to_string(expected));
    expected *= t.shape[d];
  }
}

/// The DLManagedTensor that to_dlpack hands out, with what it keeps alive.
template <int Dims> struct DLPackExport {
  DLManagedTensor tensor{};
  std::array<int64_t, Dims> shape{};
  std::shared_ptr<const void> keep;
};

template <typename T, int Dims>
DLManagedTensor *export_dlpack(T *data, const std::array<int64_t, Dims> &shape,
                               std::shared_ptr<const void> keep) {
  auto *out = new DLPackExport<Dims>;
  out->shape = shape;
  out->keep = std::move(keep);
  DLTensor &t = out->tensor.dl_tensor;
  t.data = data;
  t.device = dlpack_device();
  t.ndim = Dims;
  t.dtype = dlpack_type<T>();
  t.shape = Dims ? out->shape.data() : nullptr;
  t.strides = nullptr; // compact row-major
  t.byte_offset = 0;
  out->tensor.manager_ctx = out;
  out->tensor.deleter = [](DLManagedTensor *self) {
    delete static_cast<DLPackExport<Dims> *>(self->manager_ctx);
  };
  return &out->tensor;
}

} // namespace detail

/// An array imported from DLPack: the producer's memory, used in place.
/// Copies share the producer's tensor; the last one calls its deleter.
/// Passes to kernels, copies and fills like an Ndarray (as its view()).
template <typename T, int Dims> class DLPackArray {
public:
  DLPackArray() = default;

  int64_t shape(int d) const { return view_.shape(d); }
  const std::array<int64_t, Dims> &shape() const { return view_.shape(); }
  size_t size() const { return view_.size(); }
  size_t bytes() const { return view_.bytes(); }
  T *data() const { return view_.data(); }

  /// A view that refuses to be used once every DLPackArray sharing this
  /// tensor is gone.
  NdarrayView<T, Dims> view() const { return view_; }
  operator NdarrayView<T, Dims>() const { return view_; }

  std::vector<T> to_vector() const { return view_.to_vector(); }
  void copy_from(const std::vector<T> &values) { view_.copy_from(values); }
  void fill(const T &value) { view_.fill(value); }
  void fill_async(const T &value, const Stream &s) {
    view_.fill_async(value, s);
  }

private:
  template <typename U, int D>
  friend DLPackArray<U, D> from_dlpack(DLManagedTensor *);
  template <typename U, int D>
  friend DLManagedTensor *to_dlpack(const DLPackArray<U, D> &);

  std::shared_ptr<DLManagedTensor> tensor_;
  NdarrayView<T, Dims> view_;
};

/// Takes `tensor` (see the file comment for ownership): a qd::Error, with
/// the tensor not taken, when it is null, of another rank or element type,
/// on another device than the runtime's (kDLCUDA with the runtime's device
/// on CUDA, kDLCPU on the CPU backend), not contiguous row-major (null
/// strides mean compact row-major), or malformed: a null shape, a negative
/// extent, null or misaligned data with elements.
template <typename T, int Dims>
DLPackArray<T, Dims> from_dlpack(DLManagedTensor *tensor) {
  if (!tensor)
    throw Error("qd::from_dlpack: the tensor is null");
  const DLTensor &t = tensor->dl_tensor;
  detail::check_dlpack(t, detail::dlpack_type<T>(), Dims, sizeof(T),
                       alignof(T));
  std::array<int64_t, Dims> shape{};
  for (int d = 0; d < Dims; ++d)
    shape[static_cast<size_t>(d)] = t.shape[d];
  // An empty tensor's data may be null (with any offset): nothing is read.
  T *data = t.data ? reinterpret_cast<T *>(static_cast<char *>(t.data) +
                                           t.byte_offset)
                   : nullptr;
  // Checked as a view (null data, memory the device cannot use) before it
  // is taken.
  NdarrayView<T, Dims> checked(data, shape);
  DLPackArray<T, Dims> out;
  out.tensor_ =
      std::shared_ptr<DLManagedTensor>(tensor, [](DLManagedTensor *m) {
        if (m->deleter)
          m->deleter(m);
      });
  // A GPU tensor's device is known: kernels called on another refuse it.
  bool Gpu = t.device.device_type == kDLCUDA ||
             t.device.device_type == kDLCUDAManaged ||
             t.device.device_type == kDLROCM;
  out.view_ = NdarrayView<T, Dims>(
      checked.data(), shape, out.tensor_, "qd::DLPackArray",
      Gpu ? int(t.device.device_id) : QDRT_CURRENT_DEVICE);
  return out;
}

/// Hands `x`'s memory to a DLPack consumer without a copy: the consumer
/// must not use it after `x`'s memory is gone (keep the array alive, or
/// pass the Ndarray by std::move to give it to the tensor).
template <typename T, int Dims>
DLManagedTensor *to_dlpack(const NdarrayView<T, Dims> &x) {
  x.check("to_dlpack");
  return detail::export_dlpack<T, Dims>(x.data(), x.shape(), nullptr);
}
template <typename T, int Dims>
DLManagedTensor *to_dlpack(const Ndarray<T, Dims> &x) {
  return to_dlpack(x.view());
}
/// The tensor owns the array: its memory lives until the consumer deletes
/// the tensor.
template <typename T, int Dims>
DLManagedTensor *to_dlpack(Ndarray<T, Dims> &&x) {
  auto owned = std::make_shared<Ndarray<T, Dims>>(std::move(x));
  owned->view().check("to_dlpack");
  return detail::export_dlpack<T, Dims>(static_cast<T *>(owned->data()),
                                        owned->shape(), owned);
}
/// Shares the imported tensor: the producer's memory lives until both the
/// DLPackArray copies and the new tensor are gone.
template <typename T, int Dims>
DLManagedTensor *to_dlpack(const DLPackArray<T, Dims> &x) {
  x.view().check("to_dlpack");
  return detail::export_dlpack<T, Dims>(x.data(), x.shape(), x.tensor_);
}

} // namespace qd

#endif // QD_DLPACK_H
