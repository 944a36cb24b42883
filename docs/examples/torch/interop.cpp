// The C functions a Python program calls (through ctypes) to run qdc
// kernels on PyTorch tensors without copies: tensors come in and go out as
// DLPack DLManagedTensor pointers (torch.utils.dlpack), and the kernels run
// on PyTorch's current CUDA stream, wrapped with qd::Stream::wrap, so that
// they are ordered with PyTorch's own work.
#include "axpy.qd.h"

#include <qd/dlpack.h>

#include <cstdio>

namespace {
/// Takes T: as qd::from_dlpack, but a tensor it refuses is deleted too, so
/// that the caller has given every tensor away, used or not.
qd::DLPackArray<float, 1> take(DLManagedTensor *T) {
  try {
    return qd::from_dlpack<float, 1>(T);
  } catch (const qd::Error &) {
    if (T && T->deleter)
      T->deleter(T);
    throw;
  }
}

/// Runs Fn, turning a qd::Error into its message in Error (0: success).
template <typename F> int guarded(char *Error, size_t Size, F &&Fn) {
  try {
    Fn();
    return 0;
  } catch (const qd::Error &E) {
    std::snprintf(Error, Size, "%s", E.what());
    return 1;
  }
}
} // namespace

extern "C" {

/// y = a * x + y, in place, on `stream` (a cudaStream_t; 0: the default).
/// Takes both tensors, also on error (their deleters run when the kernel is
/// enqueued and the arrays go out of scope: PyTorch's caching allocator
/// keeps the memory for the stream's work).
int qd_axpy(DLManagedTensor *y, DLManagedTensor *x, float a, void *stream,
            char *error, size_t size) {
  return guarded(error, size, [&] {
    qd::DLPackArray<float, 1> Y, X;
    try {
      Y = take(y);
    } catch (const qd::Error &) {
      if (x && x->deleter)
        x->deleter(x);
      throw;
    }
    X = take(x);
    qd::Stream S = qd::Stream::wrap(stream);
    axpy::axpy(Y, X, a, qd::on(S));
  });
}

/// A new array of n values step * i, made by a qdc kernel and handed to
/// the caller, who owns it (and frees it by the tensor's deleter).
DLManagedTensor *qd_ramp(int64_t n, float step, void *stream, char *error,
                         size_t size) {
  DLManagedTensor *Out = nullptr;
  guarded(error, size, [&] {
    qd::Ndarray<float, 1> A({n});
    qd::Stream S = qd::Stream::wrap(stream);
    axpy::ramp(A, step, qd::on(S));
    Out = qd::to_dlpack(std::move(A));
  });
  return Out;
}
}
