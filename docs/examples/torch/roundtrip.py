"""PyTorch tensors through qdc kernels, without copies (DLPack).

Builds nothing: it loads build/lib/libqd-torch-example.so (the CMake
target qd-torch-example) with ctypes. Run on a machine with a CUDA GPU and
PyTorch:  python3 docs/examples/torch/roundtrip.py [path/to/the/.so]
"""
import ctypes
import pathlib
import sys

import torch
import torch.utils.dlpack

lib_path = sys.argv[1] if len(sys.argv) > 1 else str(
    pathlib.Path(__file__).resolve().parents[3] / "build/lib/libqd-torch-example.so")
lib = ctypes.CDLL(lib_path)
lib.qd_axpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float,
                        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
lib.qd_ramp.argtypes = [ctypes.c_int64, ctypes.c_float, ctypes.c_void_p,
                        ctypes.c_char_p, ctypes.c_size_t]
lib.qd_ramp.restype = ctypes.c_void_p

capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def give(tensor):
    """The tensor's DLManagedTensor, owned from now on by the callee (the
    capsule is marked used, as DLPack consumers do)."""
    capsule = torch.utils.dlpack.to_dlpack(tensor)
    pointer = capsule_pointer(capsule, b"dltensor")
    capsule_rename(capsule, b"used_dltensor")
    return pointer


def check(status, error):
    if status:
        raise RuntimeError(error.value.decode())


stream = torch.cuda.current_stream().cuda_stream
error = ctypes.create_string_buffer(512)
n = 1 << 20
x = torch.arange(n, device="cuda", dtype=torch.float32)
y = torch.ones(n, device="cuda", dtype=torch.float32)
check(lib.qd_axpy(give(y), give(x), 2.0, stream, error, len(error)), error)
torch.cuda.synchronize()
assert torch.equal(y, 2.0 * torch.arange(n, device="cuda") + 1.0), "axpy"
print("qdc kernel on PyTorch tensors, in place: ok")

# The other way: an array made by qdc, handed to PyTorch.
pointer = lib.qd_ramp(n, 0.5, stream, error, len(error))
if not pointer:
    raise RuntimeError(error.value.decode())
ramp = torch.utils.dlpack.from_dlpack(capsule_new(pointer, b"dltensor", None))
torch.cuda.synchronize()
assert ramp.device.type == "cuda" and ramp.shape == (n,)
assert torch.equal(ramp, 0.5 * torch.arange(n, device="cuda", dtype=torch.float32)), "ramp"
print("qdc array as a PyTorch tensor: ok")

# What qdc refuses, as an error and not a crash: a tensor on the CPU, a
# double tensor, a strided view.
for bad, why in ((torch.ones(4), "kDLCPU"),
                 (torch.ones(4, device="cuda", dtype=torch.float64), "float64"),
                 (torch.ones(8, device="cuda")[::2], "contiguous")):
    status = lib.qd_axpy(give(bad), give(x), 1.0, stream, error, len(error))
    assert status == 1 and why in error.value.decode(), error.value.decode()
print("wrong device, dtype and strides refused: ok")
del ramp
