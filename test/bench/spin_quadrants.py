"""The spin chain of spin.qd in Quadrants, with and without fast_math.

Run beside bench-spin and bench-spin-fast (utils/bench-gpu.sh): milliseconds
per call from the host, each call followed by qd.sync(). Prints
`quadrants_spin_ms[_fast] median min max`.
"""
import statistics
import sys
import time

import quadrants as qd

LANES, STEPS, RUNS = 128, 1 << 20, 20


def measure(fast_math):
    qd.init(arch=qd.cuda, fast_math=fast_math, offline_cache=False)
    sink = qd.field(qd.f32, shape=LANES)

    @qd.kernel
    def spin(steps: qd.i32):
        qd.loop_config(block_dim=LANES)
        for i in range(LANES):
            x = qd.cast(i, qd.f32)
            for _ in range(steps):
                x = x * 0.99999 + 0.5
            sink[i] = x

    for _ in range(3):
        spin(STEPS)
    qd.sync()
    ms = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        spin(STEPS)
        qd.sync()
        ms.append((time.perf_counter() - t0) * 1e3)
    key = "quadrants_spin_ms_fast" if fast_math else "quadrants_spin_ms"
    print(f"{key} {statistics.median(ms):.4f} {min(ms):.4f} {max(ms):.4f}")
    print(f"# lane 1 after {STEPS} steps: {sink[1]:.6f}")
    sys.stdout.flush()
    qd.reset()


measure(False)
measure(True)
