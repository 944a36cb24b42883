"""Calls the kernels of saxpy.qd from NumPy (any DLPack producer works)."""
import numpy as np

import saxpy

saxpy.init()  # the best backend: CUDA, HIP or the CPU
x = np.arange(8, dtype=np.float32)
y = np.ones(8, dtype=np.float32)
if saxpy.current_arch() == "cpu":
    saxpy.saxpy(y, x, 2.0)
    saxpy.sync()
    print("y =", y)
    print("x . x =", saxpy.dot(x, x))
else:
    import torch  # device arrays: PyTorch tensors on the GPU
    xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    saxpy.saxpy(yt, xt, 2.0)
    print("y =", yt.cpu().numpy())
    print("x . x =", saxpy.dot(xt, xt))
