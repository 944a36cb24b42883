"""The Python module of pykernels.qd, called with NumPy arrays.

Every result is checked element by element against NumPy's own arithmetic;
every wrong argument must raise the documented exception before anything
runs (the output arrays stay untouched). Runs on the backend QD_ARCH names
(CI: cpu); test_gpu.py covers PyTorch tensors on a GPU.
"""

import ctypes
import os
import unittest

import numpy as np

import pykernels as pk

ARCH = os.environ.get("QD_ARCH", "best")


class KernelCalls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pk.init(ARCH)

    def test_axpy_1d(self):
        rng = np.random.default_rng(1)
        x = rng.standard_normal(1000).astype(np.float32)
        y = rng.standard_normal(1000).astype(np.float32)
        expected = np.float32(2.5) * x + y
        pk.axpy(y, x, 2.5)
        pk.sync()
        np.testing.assert_array_equal(y, expected)

    def test_keywords_and_signature(self):
        x = np.ones(8, np.float32)
        y = np.zeros(8, np.float32)
        pk.axpy(a=3.0, x=x, y=y)
        pk.sync()
        np.testing.assert_array_equal(y, np.full(8, 3.0, np.float32))
        self.assertIn("axpy(y, x, a, *, stream=None)", pk.axpy.__doc__)

    def test_2d_and_bool(self):
        m = np.zeros((3, 5), np.int32)
        pk.index_2d(m, False)
        pk.sync()
        i, j = np.meshgrid(np.arange(3), np.arange(5), indexing="ij")
        np.testing.assert_array_equal(m, i * 100 + j)
        pk.index_2d(m, True)
        pk.sync()
        np.testing.assert_array_equal(m, -(i * 100 + j))

    def test_vectors(self):
        p = np.arange(12, dtype=np.float32).reshape(4, 3)
        expected = p + np.array([1, -2, 0.5], np.float32)
        r = pk.shift(p, (1.0, -2.0, 0.5))
        np.testing.assert_array_equal(p, expected)
        self.assertEqual(r, (2.0, -4.0, 1.0))
        self.assertIsInstance(r, tuple)

    def test_struct_in_and_out(self):
        out = np.zeros(6, np.float32)
        q = pk.heavier(((1.0, 2.0, 3.0), 2.0, 7), 1.5, out)
        self.assertEqual(q, ((1.0, 2.0, 3.0), 3.0, 8))
        np.testing.assert_array_equal(out, [2, 4, 6, 2, 4, 6])
        q = pk.heavier({"pos": (0.5, 0.0, 0.0), "mass": 4.0, "id": 1}, 0.5,
                       out)
        self.assertEqual(q, ((0.5, 0.0, 0.0), 2.0, 2))

    def test_reduction_return(self):
        x = np.arange(1, 1001, dtype=np.float64)
        self.assertEqual(pk.total(x), float(x.sum()))
        self.assertEqual(pk.total(np.zeros(0)), 0.0)

    def test_stream_parallel_on_a_stream(self):
        a = np.zeros(100, np.float32)
        b = np.zeros(100, np.float32)
        s = pk.create_stream()
        pk.both(a, b, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(a, np.arange(100, dtype=np.float32) * 2)
        np.testing.assert_array_equal(b, np.arange(100, dtype=np.float32) + 0.5)

    def test_events(self):
        s = pk.create_stream()
        e = pk.create_event()
        x = np.ones(4, np.float32)
        y = np.zeros(4, np.float32)
        pk.axpy(y, x, 1.0, stream=s)
        e.record(s)
        e.wait()
        e.synchronize()
        self.assertTrue(e.query())
        np.testing.assert_array_equal(y, x)

    def test_pointer(self):
        out = np.zeros((2, 3), np.float32)
        pk.fill_pointer(out, out.size, 7.0)
        pk.sync()
        np.testing.assert_array_equal(out, np.full((2, 3), 7.0, np.float32))

    def test_submodule(self):
        v = np.full(5, 2.0, np.float32)
        pk.physics.damp(v, 0.5)
        pk.sync()
        np.testing.assert_array_equal(v, np.ones(5, np.float32))

    def test_fields(self):
        pk.fill_fields(0.5)
        pk.sync()
        np.testing.assert_array_equal(
            pk.weights.to_numpy(), np.arange(64, dtype=np.float32) * 0.5)
        g = pk.grid.to_numpy()
        self.assertEqual(g.shape, (4, 8))
        self.assertEqual(g.dtype, np.int32)
        np.testing.assert_array_equal(g, np.arange(32).reshape(4, 8))
        pts = pk.points.to_numpy()
        self.assertEqual(pts.shape, (5, 3))
        np.testing.assert_array_equal(
            pts, np.arange(5)[:, None] + np.arange(3)[None, :])
        self.assertEqual(pk.grid.shape, (4, 8))
        # from_numpy, then a kernel reads the field through a DLPack view.
        w = np.linspace(0, 1, 64, dtype=np.float32)
        pk.weights.from_numpy(w)
        np.testing.assert_array_equal(pk.weights.to_numpy(), w)
        view = np.from_dlpack(pk.weights)
        np.testing.assert_array_equal(view, w)
        y = np.zeros(64, np.float32)
        pk.axpy(y, pk.weights, 2.0)
        pk.sync()
        np.testing.assert_array_equal(y, 2 * w)

    def test_qdc_arrays(self):
        # An Array qdc owns: zero-filled, passed to kernels without a copy,
        # seen by NumPy through DLPack, copied to and from NumPy.
        y = pk.Array((100,), "float32")
        self.assertEqual(y.shape, (100,))
        np.testing.assert_array_equal(y.to_numpy(), np.zeros(100, np.float32))
        x = np.arange(100, dtype=np.float32)
        pk.axpy(y, x, 3.0)
        pk.sync()
        np.testing.assert_array_equal(y.to_numpy(), 3 * x)
        view = np.from_dlpack(y)  # the same memory
        pk.axpy(y, x, 1.0)
        pk.sync()
        np.testing.assert_array_equal(view, 4 * x)
        m = pk.Array((3, 5), "int32")
        pk.index_2d(m, False)
        pk.sync()
        i, j = np.meshgrid(np.arange(3), np.arange(5), indexing="ij")
        np.testing.assert_array_equal(m.to_numpy(), i * 100 + j)
        m.from_numpy(np.ones((3, 5), np.int32))
        np.testing.assert_array_equal(m.to_numpy(), np.ones((3, 5)))
        with self.assertRaises(TypeError):
            pk.axpy(pk.Array((100,), "float64"), x, 1.0)
        with self.assertRaises(ValueError):
            pk.Array((4,), "complex64")
        with self.assertRaises(pk.Error):
            pk.Array((-1,), "float32")

    def test_assert_raises_module_error(self):
        x = np.array([1, 2, 30, 4], np.int32)
        with self.assertRaises(pk.Error) as cm:
            pk.checked(x, 10)
            pk.sync()
        self.assertIn("x[2] is over the limit", str(cm.exception))
        self.assertIn("checked", str(cm.exception))
        pk.checked(x, 100)  # the runtime goes on
        pk.sync()


class WrongArguments(unittest.TestCase):
    """Each call must fail before running: y stays as it was."""

    @classmethod
    def setUpClass(cls):
        pk.init(ARCH)

    def setUp(self):
        self.y = np.zeros(8, np.float32)
        self.x = np.ones(8, np.float32)

    def tearDown(self):
        pk.sync()
        np.testing.assert_array_equal(self.y, np.zeros(8, np.float32))

    def check(self, exc, text, *args, **kwargs):
        with self.assertRaises(exc) as cm:
            pk.axpy(*args, **kwargs)
        self.assertIn(text, str(cm.exception))

    def test_dtype(self):
        self.check(TypeError, "kernel 'axpy': argument 'x' has dtype float64; "
                   "the kernel takes float32",
                   self.y, np.ones(8), 1.0)

    def test_rank(self):
        self.check(TypeError, "argument 'x' has 2 dimensions; the kernel "
                   "takes 1", self.y, np.ones((2, 4), np.float32), 1.0)

    def test_not_contiguous(self):
        self.check(ValueError, "argument 'x' is not C-contiguous",
                   self.y, np.ones(16, np.float32)[::2], 1.0)

    def test_not_an_array(self):
        self.check(TypeError, "argument 'x' is not an array", self.y,
                   [1.0] * 8, 1.0)

    def test_scalar(self):
        self.check(TypeError, "argument 'a' must be a real number: got str",
                   self.y, self.x, "2")

    def test_bool_is_not_a_number(self):
        self.check(TypeError, "argument 'a' must be a real number: got bool",
                   self.y, self.x, True)

    def test_stream(self):
        self.check(TypeError, "stream= must be None, a Stream",
                   self.y, self.x, 1.0, stream="s")

    def test_missing_argument(self):
        with self.assertRaises(TypeError):
            pk.axpy(self.y, self.x)

    def test_vector_length(self):
        p = np.zeros((2, 3), np.float32)
        with self.assertRaises(TypeError) as cm:
            pk.shift(p, (1.0, 2.0))
        self.assertIn("argument 'by' must be a sequence of 3 items",
                      str(cm.exception))
        np.testing.assert_array_equal(p, np.zeros((2, 3), np.float32))

    def test_vector_array_extent(self):
        p = np.zeros((2, 4), np.float32)
        with self.assertRaises(ValueError) as cm:
            pk.shift(p, (1.0, 2.0, 3.0))
        self.assertIn("dimension 1 has 4 elements, the vector or matrix 3",
                      str(cm.exception))

    def test_struct_shape(self):
        out = np.zeros(3, np.float32)
        with self.assertRaises(TypeError) as cm:
            pk.heavier(((1.0, 2.0, 3.0), 2.0), 1.0, out)
        self.assertIn("argument 'p' must be a tuple of 3 members (pos, mass, "
                      "id) or a dict of them", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            pk.heavier({"pos": (1.0, 2.0, 3.0), "mass": 2.0}, 1.0, out)
        self.assertIn("argument 'p' has no member 'id'", str(cm.exception))
        with self.assertRaises(TypeError):
            pk.heavier(((1.0, 2.0), 2.0, 1), 1.0, out)
        np.testing.assert_array_equal(out, np.zeros(3, np.float32))

    def test_integer_range(self):
        m = np.zeros(4, np.int32)
        with self.assertRaises(TypeError) as cm:
            pk.checked(m, 2**40)
        self.assertIn("argument 'limit' must be an integer",
                      str(cm.exception))

    def test_field_from_numpy(self):
        with self.assertRaises(TypeError):
            pk.weights.from_numpy(np.zeros(3, np.float32))
        with self.assertRaises(TypeError):
            pk.weights.from_numpy(np.zeros(64, np.float64))


class DLTensorC(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


FROM_OBJECT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                               ctypes.POINTER(DLTensorC))
WORK_STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32,
                               ctypes.POINTER(ctypes.c_void_p))


class ExchangeAPIC(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev", ctypes.c_void_p), ("allocator", ctypes.c_void_p),
                ("managed_from", ctypes.c_void_p),
                ("managed_to", ctypes.c_void_p),
                ("dltensor_from", FROM_OBJECT), ("stream", WORK_STREAM)]


class CTensor:
    """A producer that offers only the DLPack C exchange API (as PyTorch
    2.11 does beside __dlpack__): kernel calls must describe it through the
    table's dltensor_from_py_object_no_sync, with no Python call."""

    calls = 0

    def __init__(self, array, device=(1, 0)):
        self.array = np.ascontiguousarray(array)
        self.device = device
        self.shape = (ctypes.c_int64 * self.array.ndim)(*self.array.shape)


def _from_object(obj, out):
    t = ctypes.cast(obj, ctypes.py_object).value
    CTensor.calls += 1
    a = t.array
    out.contents.data = a.ctypes.data
    out.contents.device_type, out.contents.device_id = t.device
    out.contents.ndim = a.ndim
    out.contents.code = {"f": 2, "i": 0, "u": 1, "b": 6}[a.dtype.kind]
    out.contents.bits = a.dtype.itemsize * 8
    out.contents.lanes = 1
    out.contents.shape = ctypes.cast(t.shape, ctypes.POINTER(ctypes.c_int64))
    out.contents.strides = None
    out.contents.byte_offset = 0
    return 0


def _work_stream(device_type, device_id, out):
    out[0] = None
    return 0


_API = ExchangeAPIC(1, 3, None, None, None, None, FROM_OBJECT(_from_object),
                    WORK_STREAM(_work_stream))
CTensor.__dlpack_c_exchange_api__ = ctypes.addressof(_API)


class ExchangeAPI(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pk.init(ARCH)

    def test_arrays_through_the_table(self):
        self.assertTrue(pk._dlpack_c_exchange(CTensor(np.zeros(1))))
        self.assertFalse(pk._dlpack_c_exchange(np.zeros(1)))
        x = CTensor(np.arange(10, dtype=np.float32))
        y = CTensor(np.ones(10, np.float32))
        before = CTensor.calls
        pk.axpy(y, x, 3.0)
        pk.sync()
        self.assertEqual(CTensor.calls - before, 2)
        np.testing.assert_array_equal(y.array,
                                      3 * np.arange(10, dtype=np.float32) + 1)

    def test_checks_apply(self):
        y = CTensor(np.zeros(4, np.float32))
        with self.assertRaises(TypeError) as cm:
            pk.axpy(y, CTensor(np.zeros(4, np.int32)), 1.0)
        self.assertIn("argument 'x' has dtype int32", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            pk.axpy(y, CTensor(np.zeros(4, np.float32), device=(2, 0)), 1.0)
        self.assertIn("argument 'x' is on cuda:0, but the runtime runs on cpu",
                      str(cm.exception))


class Runtime(unittest.TestCase):
    def test_arch_and_errors(self):
        pk.init(ARCH)
        self.assertIn(pk.current_arch(), ("cpu", "cuda", "amdgpu"))
        with self.assertRaises(ValueError):
            pk.init("tpu")
        self.assertTrue(issubclass(pk.Error, Exception))

    def test_stream_wrap_and_handle(self):
        s = pk.create_stream()
        self.assertIsInstance(s.handle, int)
        w = pk.Stream.wrap(s.handle)
        self.assertEqual(w.handle, s.handle)


if __name__ == "__main__":
    unittest.main(verbosity=2)
