"""The Python module of pykernels.qd on an NVIDIA GPU, with PyTorch tensors.

Results are checked against NumPy on the host. The side-stream test holds
no event: a kernel that ran on another stream than the one asked for would
read the input before the stream's own fill_ wrote it, and fail.
(utils/gpu-check-python.sh builds the module there and runs this.)
"""

import unittest

import numpy as np
import torch

import pykernels as pk


class TorchTensors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pk.init("cuda")

    def test_default_stream(self):
        rng = np.random.default_rng(3)
        x = rng.standard_normal(1 << 20).astype(np.float32)
        y = rng.standard_normal(1 << 20).astype(np.float32)
        xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        pk.axpy(yt, xt, 1.5)
        # The GPU fuses a * x + y (one rounding): the reference does too.
        expected = (1.5 * x.astype(np.float64) + y).astype(np.float32)
        np.testing.assert_array_equal(yt.cpu().numpy(), expected)

    def check_side_stream(self, launch):
        """launch(s, y, x) calls axpy(y, x, 2.0) on s, where s is held back
        ~0.1 s before x.fill_(3.0) on s: a kernel on another stream reads
        x too early."""
        n = 1 << 22
        s = torch.cuda.Stream()
        x = torch.zeros(n, device="cuda")
        y = torch.ones(n, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)
            x.fill_(3.0)
        launch(s, y, x)
        s.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(),
                                      np.full(n, 7.0, np.float32))

    def test_current_torch_stream(self):
        # No stream=: the kernel runs on PyTorch's current stream, read
        # through the DLPack C exchange API.
        if not pk._dlpack_c_exchange(torch.zeros(8, device="cuda")):
            self.skipTest("this PyTorch offers no __dlpack_c_exchange_api__")

        def launch(s, y, x):
            with torch.cuda.stream(s):
                pk.axpy(y, x, 2.0)
        self.check_side_stream(launch)

    def test_side_stream_torch(self):
        self.check_side_stream(lambda s, y, x: pk.axpy(y, x, 2.0, stream=s))

    def test_side_stream_raw_handle(self):
        self.check_side_stream(
            lambda s, y, x: pk.axpy(y, x, 2.0, stream=s.cuda_stream))

    def test_side_stream_wrapped(self):
        self.check_side_stream(lambda s, y, x: pk.axpy(
            y, x, 2.0, stream=pk.Stream.wrap(s.cuda_stream)))

    def test_return_value_and_2d(self):
        x = torch.arange(1, 10001, dtype=torch.float64, device="cuda")
        self.assertEqual(pk.total(x), float(np.arange(1, 10001).sum()))
        m = torch.zeros((64, 33), dtype=torch.int32, device="cuda")
        pk.index_2d(m, False)
        i, j = np.meshgrid(np.arange(64), np.arange(33), indexing="ij")
        np.testing.assert_array_equal(m.cpu().numpy(), i * 100 + j)

    def test_vectors_and_groups(self):
        p = torch.zeros((100, 3), device="cuda")
        self.assertEqual(pk.shift(p, (1.0, 2.0, 3.0)), (2.0, 4.0, 6.0))
        np.testing.assert_array_equal(p.cpu().numpy(),
                                      np.tile([1.0, 2.0, 3.0], (100, 1)))
        a = torch.zeros(5000, device="cuda")
        b = torch.zeros(5000, device="cuda")
        pk.both(a, b)
        pk.sync()
        np.testing.assert_array_equal(a.cpu().numpy(),
                                      np.arange(5000, dtype=np.float32) * 2)
        np.testing.assert_array_equal(b.cpu().numpy(),
                                      np.arange(5000, dtype=np.float32) + 0.5)

    def test_fields_as_tensors(self):
        pk.fill_fields(2.0)
        pk.sync()
        w = torch.from_dlpack(pk.weights)
        self.assertTrue(w.is_cuda)
        np.testing.assert_array_equal(w.cpu().numpy(),
                                      np.arange(64, dtype=np.float32) * 2)
        np.testing.assert_array_equal(pk.points.to_numpy()[4], [4, 5, 6])

    def test_qdc_array_with_torch(self):
        a = pk.Array((1000,), "float32")
        self.assertEqual(a.device, 0)
        x = torch.arange(1000, dtype=torch.float32, device="cuda")
        pk.axpy(a, x, 2.0)
        t = torch.from_dlpack(a)  # the same device memory
        self.assertTrue(t.is_cuda)
        np.testing.assert_array_equal(t.cpu().numpy(),
                                      2 * np.arange(1000, dtype=np.float32))
        np.testing.assert_array_equal(a.to_numpy(), t.cpu().numpy())

    def test_wrong_device(self):
        y = torch.zeros(8, device="cuda")
        x = torch.ones(8)  # on the host
        with self.assertRaises(ValueError) as cm:
            pk.axpy(y, x, 1.0)
        self.assertIn("argument 'x' is on cpu:0, but the runtime runs on cuda:0",
                      str(cm.exception))
        self.assertEqual(float(y.sum()), 0.0)

    def test_torch_compile(self):
        # The kernels registered as torch.library ops, with the arrays they
        # write as mutated arguments: torch.compile(fullgraph=True) calls
        # them without a graph break (it would raise on one).
        ops = pk.register_torch_ops()
        self.assertIs(ops, pk.register_torch_ops())  # once per namespace
        self.assertTrue(hasattr(torch.ops.pykernels, "axpy"))
        self.assertTrue(hasattr(torch.ops.pykernels, "physics_damp"))
        self.assertFalse(hasattr(torch.ops.pykernels, "total"))  # returns

        @torch.compile(fullgraph=True)
        def step(y, x):
            torch.ops.pykernels.axpy(y, x, 2.0)
            torch.ops.pykernels.physics_damp(y, 0.5)
            return y * 3.0

        x = torch.arange(1000, dtype=torch.float32, device="cuda")
        y = torch.ones(1000, device="cuda")
        r = step(y, x)
        want_y = (2.0 * np.arange(1000, dtype=np.float32) + 1.0) * 0.5
        np.testing.assert_array_equal(y.cpu().numpy(), want_y)
        np.testing.assert_array_equal(r.cpu().numpy(), want_y * 3.0)

    def test_assert(self):
        x = torch.tensor([1, 2, 50], dtype=torch.int32, device="cuda")
        with self.assertRaises(pk.Error) as cm:
            pk.checked(x, 10)
            pk.sync()
        self.assertIn("x[2] is over the limit", str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
