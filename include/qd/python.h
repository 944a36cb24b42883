//===- qd/python.h - Python modules of .qd files (nanobind) -----*- C++ -*-===//
//
// Part of qdc, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the bindings that `qdc --emit=python` writes are made of (DESIGN
// section 5.1): one def_kernel per kernel, one def_field per field, and
// define_runtime for the runtime API (init, sync, streams, events, the
// module's Error). Header-only over nanobind and libqdrt; a kernel call
// goes through the same C++ launcher as a C++ caller's.
//
// Arguments:
//  - an ndarray parameter takes any DLPack producer (NumPy, PyTorch, CuPy,
//    JAX; a field's array) without a copy: its dtype, rank, device and
//    C-contiguity are checked before anything runs, a mismatch is a
//    TypeError (dtype, rank, not an array) or a ValueError (device, layout)
//    naming the kernel and the parameter. A qd::vec/qd::mat element adds
//    its extents as trailing dimensions: an ndarray<vec3, 1> of n is an
//    (n, 3) array of float32.
//  - a scalar takes a Python number (a bool for bool), a qd::vec a sequence
//    of its components, a qd::mat a sequence of rows.
//  - `stream=` (keyword only): None (the default stream), a Stream of the
//    module, an object with a `cuda_stream` attribute (torch.cuda.Stream)
//    or a raw handle as an int.
// A kernel's return value comes back as a number, or a tuple for a vector
// (a tuple of rows for a matrix). A qd::Error becomes the module's Error.
//
//===----------------------------------------------------------------------===//

#ifndef QD_PYTHON_H
#define QD_PYTHON_H

#include "qd/runtime.h"

#include <nanobind/eval.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace qd::python {

namespace nb = nanobind;

namespace detail {

/// What a qd::vec or qd::mat is made of; T itself for a scalar.
template <typename T> struct Element {
  using Scalar = T;
  static constexpr int Rank = 0;
  static constexpr std::array<int64_t, 2> Extents{0, 0};
};
template <typename T, int N> struct Element<qd::vec<T, N>> {
  using Scalar = T;
  static constexpr int Rank = 1;
  static constexpr std::array<int64_t, 2> Extents{N, 0};
};
template <typename T, int R, int C> struct Element<qd::mat<T, R, C>> {
  using Scalar = T;
  static constexpr int Rank = 2;
  static constexpr std::array<int64_t, 2> Extents{R, C};
};

/// A plain struct of the module (no base, public members, no arrays): the
/// generated bindings specialize it with members(), a tuple of member
/// pointers, and names, the members' names. Python passes such a struct as
/// a tuple (or a dict by member name) and gets it back as a tuple.
template <typename T> struct Struct;
template <typename T, typename = void> struct IsStruct : std::false_type {};
template <typename T>
struct IsStruct<T, std::void_t<decltype(Struct<T>::members())>>
    : std::true_type {};

/// "kernel 'k': argument 'x'".
inline std::string where(const char *Kernel, const char *Param) {
  return std::string("kernel '") + Kernel + "': argument '" + Param + "'";
}

inline std::string dtypeName(nb::dlpack::dtype D) {
  const char *Code = "?";
  switch (static_cast<nb::dlpack::dtype_code>(D.code)) {
  case nb::dlpack::dtype_code::Int:
    Code = "int";
    break;
  case nb::dlpack::dtype_code::UInt:
    Code = "uint";
    break;
  case nb::dlpack::dtype_code::Float:
    Code = "float";
    break;
  case nb::dlpack::dtype_code::Bool:
    return "bool";
  default:
    return "dtype (code " + std::to_string(D.code) + ", " +
           std::to_string(D.bits) + " bits)";
  }
  return Code + std::to_string(D.bits) +
         (D.lanes != 1 ? "x" + std::to_string(D.lanes) : "");
}

/// The DLPack device types whose memory the running backend's kernels use.
inline bool usableDevice(int32_t Type, qd::Arch A) {
  switch (A) {
  case qd::Arch::cuda:
    return Type == nb::device::cuda::value ||
           Type == nb::device::cuda_managed::value;
  case qd::Arch::amdgpu:
    return Type == nb::device::rocm::value;
  case qd::Arch::cpu:
    return Type == nb::device::cpu::value ||
           Type == nb::device::cuda_host::value;
  case qd::Arch::best:
    break;
  }
  return false;
}

inline const char *deviceName(int32_t Type) {
  switch (Type) {
  case nb::device::cpu::value:
    return "cpu";
  case nb::device::cuda::value:
    return "cuda";
  case nb::device::cuda_host::value:
    return "cuda_host";
  case nb::device::cuda_managed::value:
    return "cuda_managed";
  case nb::device::rocm::value:
    return "rocm";
  default:
    return "another device";
  }
}

// The DLPack C exchange API (DLPack 1.3): a producer's type offers, as
// `__dlpack_c_exchange_api__`, a table of C functions that describe a
// tensor without a Python call and name the framework's current stream.
// Declared here as the ABI is (only the parts used), so that no dlpack.h of
// a particular version is needed.
struct DLTensorABI {
  void *Data;
  int32_t DeviceType, DeviceId;
  int32_t NDim;
  uint8_t Code, Bits;
  uint16_t Lanes;
  int64_t *Shape;
  int64_t *Strides; ///< may be null: C-contiguous
  uint64_t ByteOffset;
};
struct ExchangeAPI {
  uint32_t Major, Minor;
  const void *Previous;
  void *ManagedTensorAllocator;
  void *ManagedTensorFromPyObject;
  void *ManagedTensorToPyObject;
  int (*DLTensorFromPyObject)(void *Object, DLTensorABI *Out);
  int (*CurrentWorkStream)(int32_t DeviceType, int32_t DeviceId, void **Stream);
};

/// T's exchange API, or null when it offers none this code can use. The
/// last few types asked about are remembered per thread (and kept alive, so
/// that a remembered type is never another one at the same address).
inline const ExchangeAPI *exchangeApi(PyTypeObject *T) {
  struct Entry {
    PyTypeObject *Type = nullptr;
    const ExchangeAPI *Api = nullptr;
  };
  constexpr unsigned Ways = 4;
  thread_local Entry Cache[Ways];
  thread_local unsigned Next = 0;
  for (const Entry &E : Cache)
    if (E.Type == T)
      return E.Api;
  const ExchangeAPI *Api = nullptr;
  if (PyObject *A = PyObject_GetAttrString(reinterpret_cast<PyObject *>(T),
                                           "__dlpack_c_exchange_api__")) {
    if (PyCapsule_CheckExact(A))
      Api = static_cast<const ExchangeAPI *>(
          PyCapsule_GetPointer(A, PyCapsule_GetName(A)));
    else if (PyLong_Check(A))
      Api = static_cast<const ExchangeAPI *>(PyLong_AsVoidPtr(A));
    Py_DECREF(A);
  }
  if (PyErr_Occurred())
    PyErr_Clear();
  if (Api && (Api->Major != 1 || !Api->DLTensorFromPyObject ||
              !Api->CurrentWorkStream))
    Api = nullptr;
  Entry &E = Cache[Next++ % Ways];
  Py_XDECREF(reinterpret_cast<PyObject *>(E.Type));
  Py_INCREF(reinterpret_cast<PyObject *>(T));
  E = {T, Api};
  return Api;
}

/// What one call knows once: the running backend, and the stream of the
/// framework whose tensor came first through the exchange API.
struct CallContext {
  qd::Arch Arch = qd::Arch::best;
  int Device = 0;
  uint64_t Generation = 0; ///< of the runtime the arrays' views belong to
  const ExchangeAPI *StreamApi = nullptr;
  int32_t StreamDeviceType = 0, StreamDeviceId = 0;
  /// The type of the last array imported and its exchange API: a call's
  /// arrays are mostly of one type.
  PyTypeObject *LastType = nullptr;
  const ExchangeAPI *LastApi = nullptr;

  void resolve() {
    if (Arch == qd::Arch::best) {
      qd::detail::CurrentContext C = qd::detail::current_context();
      Generation = C.generation;
      Arch = C.arch;
      Device = C.device;
    }
  }
};

/// An array argument as DLPack describes it.
struct ArrayInfo {
  const void *Data = nullptr;
  int NDim = 0;
  const int64_t *Shape = nullptr;
  const int64_t *Strides = nullptr; ///< null: C-contiguous
  nb::dlpack::dtype Dtype{};
  int32_t DeviceType = 0, DeviceId = 0;
  nb::ndarray<nb::ro> Held; ///< what keeps an import through __dlpack__ alive
};

/// Imports H for Kernel's parameter Param: through its type's exchange API
/// when it offers one (no Python call), else through nanobind's import
/// (__dlpack__, the buffer protocol).
inline void importArray(nb::handle H, const char *Kernel, const char *Param,
                        ArrayInfo &Out, CallContext &Call) {
  PyTypeObject *Type = Py_TYPE(H.ptr());
  if (Type != Call.LastType) {
    Call.LastType = Type;
    Call.LastApi = exchangeApi(Type);
  }
  if (const ExchangeAPI *Api = Call.LastApi) {
    DLTensorABI T;
    if (Api->DLTensorFromPyObject(H.ptr(), &T) != 0)
      throw nb::python_error();
    Out.Data = static_cast<const char *>(T.Data) + T.ByteOffset;
    Out.NDim = T.NDim;
    Out.Shape = T.Shape;
    Out.Strides = T.Strides;
    Out.Dtype = {T.Code, T.Bits, T.Lanes};
    Out.DeviceType = T.DeviceType;
    Out.DeviceId = T.DeviceId;
    if (!Call.StreamApi && T.DeviceType != nb::device::cpu::value) {
      Call.StreamApi = Api;
      Call.StreamDeviceType = T.DeviceType;
      Call.StreamDeviceId = T.DeviceId;
    }
    return;
  }
  if (!nb::try_cast(H, Out.Held, /*convert=*/false))
    throw nb::type_error((where(Kernel, Param) +
                          " is not an array (no __dlpack__ or buffer "
                          "protocol): got " +
                          nb::type_name(H.type()).c_str())
                             .c_str());
  Out.Data = Out.Held.data();
  Out.NDim = int(Out.Held.ndim());
  Out.Shape = Out.Held.shape_ptr();
  Out.Strides = Out.Held.stride_ptr();
  Out.Dtype = Out.Held.dtype();
  Out.DeviceType = Out.Held.device_type();
  Out.DeviceId = Out.Held.device_id();
}

/// Checks A's dtype, its rank (any when Rank is negative), its device and
/// that it is C-contiguous.
inline void checkArray(const ArrayInfo &A, const char *Kernel,
                       const char *Param, nb::dlpack::dtype Want, int Rank,
                       CallContext &Call) {
  if (A.Dtype != Want)
    throw nb::type_error((where(Kernel, Param) + " has dtype " +
                          dtypeName(A.Dtype) + "; the kernel takes " +
                          dtypeName(Want))
                             .c_str());
  if (Rank >= 0 && A.NDim != Rank)
    throw nb::type_error(
        (where(Kernel, Param) + " has " + std::to_string(A.NDim) +
         " dimensions; the kernel takes " + std::to_string(Rank))
            .c_str());
  Call.resolve();
  if (!usableDevice(A.DeviceType, Call.Arch) ||
      (Call.Arch != qd::Arch::cpu && A.DeviceId != Call.Device))
    throw nb::value_error(
        (where(Kernel, Param) + " is on " + deviceName(A.DeviceType) + ":" +
         std::to_string(A.DeviceId) + ", but the runtime runs on " +
         qd::arch_name(Call.Arch) + ":" + std::to_string(Call.Device))
            .c_str());
  if (!A.Strides)
    return;
  // Strides say nothing of an empty array's (absent) elements.
  int64_t Expected = 1;
  for (int I = 0; I < A.NDim; ++I)
    if (A.Shape[I] == 0)
      return;
  for (int I = A.NDim; I-- > 0;) {
    if (A.Shape[I] != 1 && A.Strides[I] != Expected)
      throw nb::value_error(
          (where(Kernel, Param) + " is not C-contiguous (dimension " +
           std::to_string(I) + " has stride " + std::to_string(A.Strides[I]) +
           ", expected " + std::to_string(Expected) +
           "); pass a contiguous copy")
              .c_str());
    Expected *= A.Shape[I];
  }
}

/// An ndarray parameter of element T and rank Dims: an array of T's scalar
/// with rank Dims plus the element's extents.
template <typename T, int Dims> struct ArrayArg {
  using E = Element<T>;
  ArrayInfo Info;
  std::array<int64_t, Dims> Shape{};
  uint64_t Generation = 0;

  void load(nb::handle H, const char *Kernel, const char *Param,
            CallContext &Call) {
    importArray(H, Kernel, Param, Info, Call);
    checkArray(Info, Kernel, Param, nb::dtype<typename E::Scalar>(),
               Dims + E::Rank, Call);
    for (int I = 0; I < E::Rank; ++I)
      if (Info.Shape[Dims + I] != E::Extents[size_t(I)])
        throw nb::value_error((where(Kernel, Param) + ": dimension " +
                               std::to_string(Dims + I) + " has " +
                               std::to_string(Info.Shape[Dims + I]) +
                               " elements, the vector or matrix " +
                               std::to_string(E::Extents[size_t(I)]))
                                  .c_str());
    for (int I = 0; I < Dims; ++I)
      Shape[size_t(I)] = Info.Shape[I];
    Generation = Call.Generation;
  }

  qd::NdarrayView<T, Dims> get() const {
    return qd::NdarrayView<T, Dims>(
        static_cast<T *>(const_cast<void *>(Info.Data)), Shape, Generation,
        "a Python array",
        Info.DeviceType == nb::device::cpu::value ? QDRT_CURRENT_DEVICE
                                                  : Info.DeviceId);
  }
};

/// A pointer parameter: a contiguous array of its pointee, of any rank.
template <typename T> struct PointerArg {
  using E = Element<std::remove_const_t<T>>;
  ArrayInfo Info;

  void load(nb::handle H, const char *Kernel, const char *Param,
            CallContext &Call) {
    importArray(H, Kernel, Param, Info, Call);
    checkArray(Info, Kernel, Param, nb::dtype<typename E::Scalar>(), -1, Call);
  }
  T *get() const { return static_cast<T *>(const_cast<void *>(Info.Data)); }
};

/// Converts a Python number to the scalar T (a bool only from a bool).
template <typename T>
T loadScalar(nb::handle H, const char *Kernel, const char *Param) {
  T Value{};
  bool IsBool = PyBool_Check(H.ptr());
  bool Ok = std::is_same_v<T, bool> ? IsBool : !IsBool;
  if (!Ok || !nb::try_cast(H, Value, /*convert=*/true))
    throw nb::type_error(
        (where(Kernel, Param) + " must be " +
         (std::is_same_v<T, bool>       ? "a bool"
          : std::is_floating_point_v<T> ? "a real number"
                                        : "an integer in range of the "
                                          "parameter's type") +
         ": got " + nb::type_name(H.type()).c_str())
            .c_str());
  return Value;
}

/// A sequence of exactly N items of H.
inline nb::sequence loadSequence(nb::handle H, size_t N, const char *Kernel,
                                 const char *Param) {
  if (!PySequence_Check(H.ptr()) || PyUnicode_Check(H.ptr()) ||
      size_t(nb::len(H)) != N)
    throw nb::type_error((where(Kernel, Param) + " must be a sequence of " +
                          std::to_string(N) + " items: got " +
                          nb::type_name(H.type()).c_str())
                             .c_str());
  return nb::borrow<nb::sequence>(H);
}

/// A parameter passed by value: a scalar, a qd::vec, a qd::mat.
template <typename T> struct ValueArg {
  T Value{};
  void load(nb::handle H, const char *Kernel, const char *Param,
            CallContext &) {
    Value = loadValue<T>(H, Kernel, Param);
  }
  const T &get() const { return Value; }

  template <typename U>
  static U loadValue(nb::handle H, const char *Kernel, const char *Param) {
    if constexpr (IsStruct<U>::value) {
      return loadStruct<U>(H, Kernel, Param);
    } else if constexpr (Element<U>::Rank == 0) {
      static_assert(std::is_arithmetic_v<U>,
                    "a struct parameter has no Python form");
      return loadScalar<U>(H, Kernel, Param);
    } else if constexpr (Element<U>::Rank == 1) {
      constexpr int N = int(Element<U>::Extents[0]);
      nb::sequence S = loadSequence(H, N, Kernel, Param);
      U Out{};
      for (int I = 0; I < N; ++I)
        Out[I] = loadScalar<typename Element<U>::Scalar>(S[I], Kernel, Param);
      return Out;
    } else {
      constexpr int R = int(Element<U>::Extents[0]);
      constexpr int C = int(Element<U>::Extents[1]);
      using Row = qd::vec<typename Element<U>::Scalar, C>;
      nb::sequence S = loadSequence(H, R, Kernel, Param);
      U Out{};
      for (int I = 0; I < R; ++I)
        Out.rows[I] = loadValue<Row>(S[I], Kernel, Param);
      return Out;
    }
  }

  /// A struct from a tuple of its members in order, or a dict of them.
  template <typename U>
  static U loadStruct(nb::handle H, const char *Kernel, const char *Param) {
    constexpr auto Members = Struct<U>::members();
    constexpr size_t N = std::tuple_size_v<decltype(Members)>;
    U Out{};
    bool IsDict = PyDict_Check(H.ptr());
    if (!IsDict && (!PySequence_Check(H.ptr()) || PyUnicode_Check(H.ptr()) ||
                    size_t(nb::len(H)) != N)) {
      std::string Names;
      for (size_t I = 0; I < N; ++I)
        Names += (I ? ", " : "") + std::string(Struct<U>::names[I]);
      throw nb::type_error((where(Kernel, Param) + " must be a tuple of " +
                            std::to_string(N) + " members (" + Names +
                            ") or a dict of them: got " +
                            nb::type_name(H.type()).c_str())
                               .c_str());
    }
    auto Item = [&](size_t I) -> nb::object {
      if (!IsDict)
        return nb::borrow<nb::sequence>(H)[I];
      nb::dict D = nb::borrow<nb::dict>(H);
      if (!D.contains(Struct<U>::names[I]))
        throw nb::type_error((where(Kernel, Param) + " has no member '" +
                              Struct<U>::names[I] + "'")
                                 .c_str());
      return D[Struct<U>::names[I]];
    };
    std::apply(
        [&](auto... Member) {
          size_t I = 0;
          ((Out.*Member =
                loadValue<std::remove_reference_t<decltype(Out.*Member)>>(
                    Item(I++), Kernel, Param)),
           ...);
        },
        Members);
    return Out;
  }
};

template <typename T> struct ArgOf { using type = ValueArg<T>; };
template <typename T, int Dims> struct ArgOf<qd::NdarrayView<T, Dims>> {
  using type = ArrayArg<T, Dims>;
};
template <typename T> struct ArgOf<T *> { using type = PointerArg<T>; };
template <typename P>
using arg_of =
    typename ArgOf<std::remove_cv_t<std::remove_reference_t<P>>>::type;

/// A kernel's return value as a Python object.
template <typename R> nb::object toPython(const R &Value) {
  if constexpr (IsStruct<R>::value) {
    nb::list Out;
    std::apply(
        [&](auto... Member) { (Out.append(toPython(Value.*Member)), ...); },
        Struct<R>::members());
    return nb::tuple(Out);
  } else if constexpr (Element<R>::Rank == 0) {
    return nb::cast(Value);
  } else if constexpr (Element<R>::Rank == 1) {
    constexpr int N = int(Element<R>::Extents[0]);
    nb::list Out;
    for (int I = 0; I < N; ++I)
      Out.append(nb::cast(Value[I]));
    return nb::tuple(Out);
  } else {
    constexpr int Rows = int(Element<R>::Extents[0]);
    nb::list Out;
    for (int I = 0; I < Rows; ++I)
      Out.append(toPython(Value.rows[I]));
    return nb::tuple(Out);
  }
}

/// Where a call launches: `stream=` resolved; with none, the current stream
/// of the framework whose tensor came through the exchange API (a GPU
/// backend's native stream is its own handle), else the default stream.
/// Wrapped keeps a stream made from a raw handle for the call.
inline qd::Launch resolveStream(nb::handle S,
                                std::optional<qd::Stream> &Wrapped,
                                const char *Kernel, CallContext &Call) {
  if (S.is_none()) {
    void *Current = nullptr;
    if (Call.StreamApi &&
        Call.StreamApi->CurrentWorkStream(Call.StreamDeviceType,
                                          Call.StreamDeviceId, &Current) != 0)
      throw nb::python_error();
    return qd::Launch{Current, QDRT_CURRENT_DEVICE};
  }
  if (qd::Stream *Own = nullptr; nb::try_cast(S, Own, false) && Own)
    return qd::on(*Own);
  nb::handle Handle = S;
  nb::object Attribute;
  if (nb::hasattr(S, "cuda_stream")) { // torch.cuda.Stream
    Attribute = S.attr("cuda_stream");
    Handle = Attribute;
  }
  uintptr_t Raw = 0;
  if (PyBool_Check(Handle.ptr()) || !nb::try_cast(Handle, Raw, false))
    throw nb::type_error(
        (std::string("kernel '") + Kernel +
         "': stream= must be None, a Stream, an object with a cuda_stream "
         "attribute or a raw stream handle (int): got " +
         nb::type_name(S.type()).c_str())
            .c_str());
  Wrapped.emplace(qd::Stream::wrap(reinterpret_cast<void *>(Raw)));
  return qd::on(*Wrapped);
}

/// A kernel as torch.library may register it: every parameter a tensor,
/// a float, an int or a bool, nothing returned.
struct TorchOp {
  std::string Name;
  std::vector<std::string> Params, Types, Written;
  nb::object Function;
};

/// This extension's kernels that torch.library may register (never
/// destroyed: Python objects outlive no interpreter).
inline std::vector<TorchOp> &torchOps() {
  static auto *Ops = new std::vector<TorchOp>;
  return *Ops;
}

/// The type hint torch.library infers P's schema type from; empty when it
/// has none (a vector, a struct).
template <typename P> std::string torchType() {
  using T = std::remove_cv_t<std::remove_reference_t<P>>;
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<T>)
    return "int";
  else if constexpr (std::is_floating_point_v<T>)
    return "float";
  else if constexpr (std::is_pointer_v<T> ||
                     !std::is_same_v<arg_of<P>, ValueArg<T>>)
    return "torch.Tensor";
  else
    return "";
}

template <size_t> using Handle = nb::handle;

template <typename R, typename Params, typename Launcher, size_t... I>
void defKernel(nb::module_ M, const char *Name, Launcher Call,
               const std::array<const char *, sizeof...(I)> &Names,
               const char *Doc, std::vector<std::string> Written,
               const char *OpName, std::index_sequence<I...>) {
  auto Bound = [Call, Name, Names](Handle<I>... Args,
                                   nb::handle Stream) -> nb::object {
    std::tuple<arg_of<std::tuple_element_t<I, Params>>...> Converted;
    CallContext Context;
    (std::get<I>(Converted).load(Args, Name, Names[I], Context), ...);
    std::optional<qd::Stream> Wrapped;
    qd::Launch L = resolveStream(Stream, Wrapped, Name, Context);
    if constexpr (std::is_void_v<R>) {
      // A GPU launch only enqueues: it keeps the GIL. On the CPU backend a
      // call without stream= waits for its work, without the GIL (host
      // arrays from NumPy or PyTorch have no stream to order them, and
      // their frameworks' own calls are done when they return); with
      // stream= it is queued on that CPU stream.
      Context.resolve();
      if (Context.Arch != qd::Arch::cpu) {
        Call(std::get<I>(Converted).get()..., L);
      } else {
        nb::gil_scoped_release Unlocked;
        Call(std::get<I>(Converted).get()..., L);
        if (Stream.is_none())
          qd::sync();
      }
      return nb::none();
    } else {
      std::optional<R> Result;
      {
        nb::gil_scoped_release Unlocked;
        Result.emplace(Call(std::get<I>(Converted).get()..., L));
      }
      return toPython(*Result);
    }
  };
  M.def(Name, Bound, nb::arg(Names[I])..., nb::kw_only(),
        nb::arg("stream").none() = nb::none(), Doc);
  TorchOp Op{OpName,
             {Names[I]...},
             {torchType<std::tuple_element_t<I, Params>>()...},
             std::move(Written),
             M.attr(Name)};
  bool Typed = std::is_void_v<R>;
  for (const std::string &T : Op.Types)
    Typed = Typed && !T.empty();
  if (Typed)
    torchOps().push_back(std::move(Op));
}

/// Registers Op as the torch.library custom op Namespace::<name>, through
/// a Python function with the type hints torch.library infers the schema
/// from, and a fake implementation (nothing to compute: the op returns
/// nothing and mutates Op.Written).
inline nb::object registerTorchOp(const TorchOp &Op,
                                  const std::string &Namespace,
                                  nb::handle Torch, nb::handle Library) {
  nb::module_ Keyword = nb::module_::import_("keyword");
  std::string Params, Args;
  for (size_t I = 0; I < Op.Params.size(); ++I) {
    if (nb::cast<bool>(Keyword.attr("iskeyword")(Op.Params[I])))
      throw nb::value_error(("register_torch_ops: parameter '" + Op.Params[I] +
                             "' of kernel '" + Op.Name +
                             "' is a Python keyword")
                                .c_str());
    Params += (I ? ", " : "") + Op.Params[I] + ": " + Op.Types[I];
    Args += (I ? ", " : "") + Op.Params[I];
  }
  nb::dict Scope;
  Scope["torch"] = Torch;
  Scope["_qd_kernel"] = Op.Function;
  nb::exec(nb::str(("def " + Op.Name + "(" + Params + ") -> None:\n" +
                    "    _qd_kernel(" + Args + ")\n" + "def _qd_fake(" + Args +
                    "):\n    return None\n")
                       .c_str()),
           Scope);
  nb::list Mutated;
  for (const std::string &W : Op.Written)
    Mutated.append(W);
  nb::object Def = Library.attr("custom_op")(
      Namespace + "::" + Op.Name, Scope[Op.Name.c_str()],
      nb::arg("mutates_args") = nb::tuple(Mutated));
  Def.attr("register_fake")(Scope["_qd_fake"]);
  return Def;
}

/// Device memory seen from Python: a field of a module (FieldRef) or an
/// array qdc owns (ArrayRef), with copies to and from NumPy and DLPack
/// export of the memory itself.
struct BufferRef {
  std::string What; ///< "field 'f'", "Array", for messages
  nb::dlpack::dtype Dtype;
  std::vector<size_t> Shape; ///< with the element's extents
  size_t Bytes = 0;

  virtual ~BufferRef() = default;
  /// The memory, on device(); the host's on the CPU.
  virtual void *address() const = 0;
  virtual int device() const = 0;

  nb::object toNumpy() const {
    auto *Host = new uint8_t[Bytes ? Bytes : 1];
    nb::capsule Owner(
        Host, [](void *P) noexcept { delete[] static_cast<uint8_t *>(P); });
    qd::detail::copy_to_host(Host, address(), Bytes, nullptr, true);
    return nb::cast(nb::ndarray<nb::numpy>(Host, Shape.size(), Shape.data(),
                                           Owner, nullptr, Dtype));
  }

  void fromNumpy(nb::handle H) {
    nb::ndarray<nb::ro> A;
    if (!nb::try_cast(H, A, false))
      throw nb::type_error((What + ": from_numpy takes an array").c_str());
    bool SameShape = A.ndim() == Shape.size();
    for (size_t I = 0; SameShape && I < Shape.size(); ++I)
      SameShape = A.shape(I) == Shape[I];
    if (A.dtype() != Dtype || !SameShape)
      throw nb::type_error((What + ": from_numpy takes a " + dtypeName(Dtype) +
                            " array of its shape")
                               .c_str());
    if (A.device_type() != nb::device::cpu::value)
      throw nb::value_error(
          (What + ": from_numpy takes a host (CPU) array").c_str());
    int64_t Expected = 1;
    for (size_t I = Shape.size(); I-- > 0;) {
      if (Shape[I] != 1 && A.stride(I) != Expected)
        throw nb::value_error(
            (What + ": from_numpy takes a C-contiguous array").c_str());
      Expected *= int64_t(Shape[I]);
    }
    qd::detail::copy_to_device(address(), A.data(), Bytes, nullptr, true);
  }

  /// The memory as an array of its device, without a copy; Owner (this
  /// object's Python object) is kept alive by it.
  nb::ndarray<nb::array_api> array(nb::handle Owner) const {
    qd::Arch A = qd::current_arch();
    int32_t Type = A == qd::Arch::cuda     ? nb::device::cuda::value
                   : A == qd::Arch::amdgpu ? nb::device::rocm::value
                                           : nb::device::cpu::value;
    return nb::ndarray<nb::array_api>(address(), Shape.size(), Shape.data(),
                                      Owner, nullptr, Dtype, Type, device());
  }
};

/// A field of the module, as its Python attribute: the current device's
/// copy.
struct FieldRef : BufferRef {
  std::function<void *()> Address;
  void *address() const override { return Address(); }
  int device() const override { return qd::current_device(); }
};

/// The dtype of a NumPy-style name ("float32", "int64", "bool", ...).
inline nb::dlpack::dtype parseDtype(const std::string &Name) {
  using namespace nb::dlpack;
  struct Known {
    const char *Name;
    dtype Type;
  };
  static const Known Types[] = {
      {"bool", nb::dtype<bool>()},       {"int8", nb::dtype<int8_t>()},
      {"int16", nb::dtype<int16_t>()},   {"int32", nb::dtype<int32_t>()},
      {"int64", nb::dtype<int64_t>()},   {"uint8", nb::dtype<uint8_t>()},
      {"uint16", nb::dtype<uint16_t>()}, {"uint32", nb::dtype<uint32_t>()},
      {"uint64", nb::dtype<uint64_t>()}, {"float32", nb::dtype<float>()},
      {"float64", nb::dtype<double>()}};
  for (const Known &K : Types)
    if (Name == K.Name)
      return K.Type;
  throw nb::value_error(("Array: dtype '" + Name +
                         "' is not one of bool, int8, int16, int32, int64, "
                         "uint8, uint16, uint32, uint64, float32, float64")
                            .c_str());
}

/// An array qdc owns (module.Array): zero-filled device memory of the
/// current device (or the one given), passed to kernels without a copy
/// (through DLPack), freed with its Python object.
struct ArrayRef : BufferRef {
  void *Data = nullptr;
  uint64_t Generation = 0;
  int Device = QDRT_CURRENT_DEVICE;

  ArrayRef(nb::handle ShapeArg, const std::string &DtypeName,
           nb::handle OnDevice) {
    What = "Array";
    Dtype = parseDtype(DtypeName);
    std::vector<int64_t> Extents;
    for (nb::handle E : nb::iter(ShapeArg))
      Extents.push_back(nb::cast<int64_t>(E));
    size_t Elements = qd::detail::checked_size(
        Extents.data(), int(Extents.size()), size_t(Dtype.bits / 8));
    for (int64_t E : Extents)
      Shape.push_back(size_t(E));
    Bytes = Elements * size_t(Dtype.bits / 8);
    int On = OnDevice.is_none() ? QDRT_CURRENT_DEVICE : nb::cast<int>(OnDevice);
    Data = qd::detail::allocate_on(Bytes, On, Generation, Device);
  }
  ~ArrayRef() override { qd::detail::deallocate(Data, Generation); }
  ArrayRef(const ArrayRef &) = delete;
  ArrayRef &operator=(const ArrayRef &) = delete;

  void *address() const override { return Data; }
  int device() const override {
    return Device == QDRT_CURRENT_DEVICE ? qd::current_device() : Device;
  }
};

inline qd::Arch parseArch(const std::string &Name) {
  for (qd::Arch A :
       {qd::Arch::best, qd::Arch::cuda, qd::Arch::amdgpu, qd::Arch::cpu})
    if (Name == qd::arch_name(A))
      return A;
  throw nb::value_error(
      ("init: arch '" + Name + "' is not one of best, cuda, amdgpu, cpu")
          .c_str());
}

} // namespace detail

/// Binds kernel Fn, the generated launcher of a kernel, as M.Name with its
/// parameters named Names (plus the keyword-only stream=).
template <typename R, typename... A>
void def_kernel(nb::module_ M, const char *Name, R (*Fn)(A...),
                const std::array<const char *, sizeof...(A) - 1> &Names,
                const char *Doc, std::vector<std::string> Written = {},
                const char *OpName = nullptr) {
  if (!OpName)
    OpName = Name;
  using Params = std::tuple<A...>;
  static_assert(std::is_same_v<std::tuple_element_t<sizeof...(A) - 1, Params>,
                               qd::Launch>,
                "a launcher ends with its qd::Launch");
  detail::defKernel<R, Params>(M, Name, Fn, Names, Doc, std::move(Written),
                               OpName,
                               std::make_index_sequence<sizeof...(A) - 1>{});
}

/// Binds field F as the attribute M.Name.
template <typename T, int64_t... Dims>
void def_field(nb::module_ M, const char *Name, qd::Field<T, Dims...> &F) {
  using E = detail::Element<T>;
  static_assert(std::is_arithmetic_v<typename E::Scalar>,
                "a field of structs has no Python form");
  detail::FieldRef Ref;
  Ref.What = std::string("field '") + Name + "'";
  Ref.Dtype = nb::dtype<typename E::Scalar>();
  Ref.Shape = {size_t(Dims)...};
  for (int I = 0; I < E::Rank; ++I)
    Ref.Shape.push_back(size_t(E::Extents[size_t(I)]));
  Ref.Bytes = F.bytes();
  Ref.Address = [&F] { return F.data(); };
  M.attr(Name) = nb::cast(std::move(Ref));
}

/// The runtime API of a qdc Python module; once per module (a second call
/// does nothing). Types shared by every qdc module of the process (Stream,
/// Event, Field, Error) are registered by the first one imported.
inline void define_runtime(nb::module_ M) {
  if (nb::hasattr(M, "Stream"))
    return;
  using detail::FieldRef;
  if (!nb::type<qd::Stream>().is_valid()) {
    nb::class_<qd::Stream>(M, "Stream",
                           "A qdc stream; work on one stream runs in order.")
        .def_static(
            "wrap",
            [](uintptr_t H) {
              return qd::Stream::wrap(reinterpret_cast<void *>(H));
            },
            nb::arg("handle"), "Adopts a native stream without owning it.")
        .def("synchronize", &qd::Stream::synchronize,
             nb::call_guard<nb::gil_scoped_release>())
        .def("destroy", &qd::Stream::destroy)
        .def_prop_ro("handle",
                     [](const qd::Stream &S) {
                       return reinterpret_cast<uintptr_t>(S.handle());
                     })
        .def_prop_ro("device", &qd::Stream::device);
    nb::class_<qd::Event>(M, "Event", "A point in a stream's work.")
        .def(
            "record",
            [](qd::Event &E, const qd::Stream *S) {
              S ? E.record(*S) : E.record();
            },
            nb::arg("stream").none() = nb::none())
        .def(
            "wait",
            [](const qd::Event &E, const qd::Stream *S) {
              S ? E.wait(*S) : E.wait();
            },
            nb::arg("stream").none() = nb::none())
        .def("synchronize", &qd::Event::synchronize,
             nb::call_guard<nb::gil_scoped_release>())
        .def("query", &qd::Event::query)
        .def("destroy", &qd::Event::destroy);
    using detail::ArrayRef;
    using detail::BufferRef;
    nb::class_<BufferRef>(M, "Buffer",
                          "Device memory: a field, or an Array qdc owns.")
        .def("to_numpy", &BufferRef::toNumpy,
             "A copy of the memory in a NumPy array.")
        .def("from_numpy", &BufferRef::fromNumpy, nb::arg("array"),
             "Copies a host array of the same dtype and shape into it.")
        .def(
            "array",
            [](nb::handle_t<BufferRef> Self) {
              return nb::inst_ptr<BufferRef>(Self)->array(Self);
            },
            "The memory as a DLPack array, without a copy.")
        .def("__dlpack__",
             [](nb::handle_t<BufferRef> Self, nb::kwargs Kw) {
               nb::object A =
                   nb::cast(nb::inst_ptr<BufferRef>(Self)->array(Self));
               return A.attr("__dlpack__")(**Kw);
             })
        .def("__dlpack_device__",
             [](nb::handle_t<BufferRef> Self) {
               nb::object A =
                   nb::cast(nb::inst_ptr<BufferRef>(Self)->array(Self));
               return A.attr("__dlpack_device__")();
             })
        .def_prop_ro("shape",
                     [](const BufferRef &B) {
                       nb::list L;
                       for (size_t S : B.Shape)
                         L.append(S);
                       return nb::tuple(L);
                     })
        .def_prop_ro("device", &BufferRef::device);
    nb::class_<FieldRef, BufferRef>(M, "Field", "A field of a qdc module.")
        .def_ro("name", &FieldRef::What);
    nb::class_<ArrayRef, BufferRef>(
        M, "Array",
        "Zero-filled device memory qdc owns, passed to kernels without a copy.")
        .def(nb::init<nb::handle, const std::string &, nb::handle>(),
             nb::arg("shape"), nb::arg("dtype") = "float32",
             nb::arg("device").none() = nb::none());
    nb::exception<qd::Error>(M, "Error");
    // Kept with the shared types, for the modules imported after this one.
    nb::type<qd::Stream>().attr("_qd_error") = M.attr("Error");
  } else {
    M.attr("Stream") = nb::type<qd::Stream>();
    M.attr("Event") = nb::type<qd::Event>();
    M.attr("Buffer") = nb::type<detail::BufferRef>();
    M.attr("Field") = nb::type<FieldRef>();
    M.attr("Array") = nb::type<detail::ArrayRef>();
    M.attr("Error") = nb::type<qd::Stream>().attr("_qd_error");
  }
  M.def(
      "init",
      [](const std::string &Arch, int Device, uint64_t Seed) {
        qd::init(detail::parseArch(Arch), {Device, Seed});
      },
      nb::arg("arch") = "best", nb::arg("device") = 0,
      nb::arg("random_seed") = 0,
      "Starts the runtime on 'best', 'cuda', 'amdgpu' or 'cpu'.");
  M.def("current_arch",
        [] { return std::string(qd::arch_name(qd::current_arch())); });
  M.def("current_device", &qd::current_device);
  M.def("device_count", &qd::device_count);
  M.def("set_device", &qd::set_device, nb::arg("ordinal"),
        "Makes a device the calling thread's current one.");
  M.def("sync", &qd::sync, nb::call_guard<nb::gil_scoped_release>(),
        "Waits for the default stream.");
  M.def("reset", &qd::reset, nb::call_guard<nb::gil_scoped_release>());
  M.def("set_random_seed", &qd::set_random_seed, nb::arg("seed"));
  M.def(
      "create_stream",
      [](nb::handle Device) {
        return Device.is_none()
                   ? qd::create_stream()
                   : qd::create_stream(qd::device(nb::cast<int>(Device)));
      },
      nb::arg("device").none() = nb::none(),
      "A new stream of a device (the current one by default).");
  M.def(
      "create_event", [](bool Timing) { return qd::create_event({Timing}); },
      nb::arg("timing") = false);
  M.def("elapsed_ms", &qd::elapsed_ms, nb::arg("start"), nb::arg("end"));
  M.def(
      "register_torch_ops",
      [](nb::handle Namespace, nb::handle Module) {
        // Once per namespace: torch.library refuses a second definition.
        static auto *Done = new std::vector<std::pair<std::string, nb::object>>;
        std::string Ns = Namespace.is_none()
                             ? nb::cast<std::string>(Module.attr("__name__"))
                             : nb::cast<std::string>(Namespace);
        for (auto &[Name, Ops] : *Done)
          if (Name == Ns)
            return Ops;
        nb::module_ Torch = nb::module_::import_("torch");
        nb::module_ Library = nb::module_::import_("torch.library");
        nb::list Ops;
        for (const detail::TorchOp &Op : detail::torchOps())
          Ops.append(detail::registerTorchOp(Op, Ns, Torch, Library));
        Done->push_back({Ns, Ops});
        return nb::object(Ops);
      },
      nb::arg("namespace").none() = nb::none(), nb::arg("_module") = M,
      "Registers every kernel whose parameters are tensors, floats, ints "
      "and bools and that returns nothing as the torch.library custom op "
      "<namespace>::<kernel> (namespace: the module's name), with the "
      "arrays the kernel writes as its mutated arguments, so that "
      "torch.compile calls it without a graph break. Returns the ops.");
  M.def(
      "_dlpack_c_exchange",
      [](nb::handle Array) {
        return detail::exchangeApi(Py_TYPE(Array.ptr())) != nullptr;
      },
      "Whether the array's type offers the DLPack C exchange API that "
      "kernel calls use instead of __dlpack__().");
}

} // namespace qd::python

#endif // QD_PYTHON_H
