"""Host microseconds per call of an empty-bodied kernel with 0, 1 and 4
tensor arguments, side by side in one run: the qdc Python module
(bench_py.qd), its C++ launcher (bench-py-cxx, when given), a Triton kernel,
the kernel as the torch.library op that register_torch_ops() makes, and CuPy's RawKernel where
installed. Each figure is the median of 9 batches of 2000 calls on one
stream, the stream synchronized after each batch (not timed); qdc's Python
and C++ figures are the medians of seven alternating rounds, the C++ ones
both in this process (bench_py_module.cpp) and in a process of their own.
The Python call's cost above the C++ launcher is also taken from 101 pairs
of single batches in this process (paired(): median and quartiles).

    python3 bench_python.py [path/to/bench-py-cxx]
"""

import statistics
import subprocess
import sys
import time

import torch

import bench_py as qb

BATCH, BATCHES = 2000, 9


def us_per_call(call, sync, batch=BATCH, batches=BATCHES):
    for _ in range(batch):  # warm-up
        call()
    sync()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        t1 = time.perf_counter()
        sync()
        times.append((t1 - t0) / batch * 1e6)
    return statistics.median(times)


def paired(calls, rounds=101, batch=500):
    """The Python call's cost above the C++ launcher of this process, taken
    in pairs of one batch each (their order alternating), so that the
    machine's drift, slower than a pair, touches both sides of a difference
    alike: the median and quartiles of the pairs' differences per argument
    count."""
    diffs = {n: [] for n in calls}
    for r in range(rounds):
        for n, call in calls.items():
            pair = [lambda: qb.cxx_us_per_call(n, batch, 1),
                    lambda: us_per_call(call[0], call[1], batch, 1)]
            if r % 2:
                pair.reverse()
            first, second = pair[0](), pair[1]()
            cxx, py = (second, first) if r % 2 else (first, second)
            diffs[n].append(py - cxx)
    return {n: statistics.quantiles(d, n=4) for n, d in diffs.items()}


def main():
    qb.init("cuda")
    print("device", torch.cuda.get_device_name())
    a, b, c, d = (torch.zeros(1024, device="cuda") for _ in range(4))
    rows = {}

    # qdc's Python call and its C++ launcher take turns, seven rounds, each
    # figure the median of its rounds: drifts of the machine touch both
    # alike. The C++ launcher runs in this process (cxx_us_per_call, the
    # module's own C++ loop) and, when given, in a process of its own.
    s = qb.create_stream()
    rounds = {}
    for _ in range(7):
        for n in (0, 1, 4):
            rounds.setdefault(f"cxx_inproc_args{n}_us", []).append(
                qb.cxx_us_per_call(n))
        if len(sys.argv) > 1:
            out = subprocess.run([sys.argv[1]], capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                key, value = line.split()
                rounds.setdefault(key, []).append(float(value))
        for key, call in (
                ("qdc_args0_us", lambda: qb.args0(1, stream=s)),
                ("qdc_args1_us", lambda: qb.args1(1, a, stream=s)),
                ("qdc_args4_us", lambda: qb.args4(1, a, b, c, d, stream=s))):
            rounds.setdefault(key, []).append(us_per_call(call, s.synchronize))
    for key, values in rounds.items():
        rows[key] = statistics.median(values)
    # The Python call's cost above the C++ launcher in this process: the
    # median of the rounds' differences.
    for n in (0, 1, 4):
        rows[f"qdc_python_minus_cxx_inproc_args{n}_us"] = statistics.median(
            p - c for p, c in zip(rounds[f"qdc_args{n}_us"],
                                  rounds[f"cxx_inproc_args{n}_us"]))
    # The same difference from pairs of single batches (the figure the
    # goal is judged by): quartiles 25/50/75.
    quartiles = paired({
        0: (lambda: qb.args0(1, stream=s), s.synchronize),
        1: (lambda: qb.args1(1, a, stream=s), s.synchronize),
        4: (lambda: qb.args4(1, a, b, c, d, stream=s), s.synchronize)})
    for n, (q1, q2, q3) in quartiles.items():
        rows[f"qdc_python_minus_cxx_paired_args{n}_us"] = q2
        rows[f"qdc_python_minus_cxx_paired_args{n}_q1_us"] = q1
        rows[f"qdc_python_minus_cxx_paired_args{n}_q3_us"] = q3
    ts = torch.cuda.Stream()
    rows["qdc_args4_torchstream_us"] = us_per_call(
        lambda: qb.args4(1, a, b, c, d, stream=ts), ts.synchronize)
    # No stream=: PyTorch's current stream, read through the DLPack C
    # exchange API when torch offers it.
    print("dlpack_c_exchange", qb._dlpack_c_exchange(a))
    with torch.cuda.stream(ts):
        rows["qdc_args1_current_us"] = us_per_call(lambda: qb.args1(1, a),
                                                   ts.synchronize)
        rows["qdc_args4_current_us"] = us_per_call(
            lambda: qb.args4(1, a, b, c, d), ts.synchronize)

    try:
        import triton
        import triton.language as tl

        @triton.jit
        def t0(n):
            pass

        @triton.jit
        def t1(pa, n):
            pass

        @triton.jit
        def t4(pa, pb, pc, pd, n):
            pass

        with torch.cuda.stream(ts):
            rows["triton_args0_us"] = us_per_call(lambda: t0[(1,)](1), ts.synchronize)
            rows["triton_args1_us"] = us_per_call(lambda: t1[(1,)](a, 1), ts.synchronize)
            rows["triton_args4_us"] = us_per_call(lambda: t4[(1,)](a, b, c, d, 1),
                                                  ts.synchronize)
    except Exception as e:  # noqa: BLE001 - a missing or broken Triton
        print("triton: not measured:", type(e).__name__, e)

    # The kernel as the torch.library op register_torch_ops made, called
    # eagerly on the current stream.
    qb.register_torch_ops()
    op4 = torch.ops.bench_py.args4
    with torch.cuda.stream(ts):
        rows["torch_library_qdc_args4_us"] = us_per_call(
            lambda: op4(1, a, b, c, d), ts.synchronize)

    try:
        import cupy as cp
        src = r'''
        extern "C" __global__ void k0(int n) {}
        extern "C" __global__ void k1(float *a, int n) {}
        extern "C" __global__ void k4(float *a, float *b, float *c, float *d, int n) {}
        '''
        mod = cp.RawModule(code=src)
        k0, k1, k4 = (mod.get_function(n) for n in ("k0", "k1", "k4"))
        ca, cb, cc, cd = (cp.zeros(1024, cp.float32) for _ in range(4))
        cs = cp.cuda.Stream(non_blocking=True)
        with cs:
            rows["cupy_args0_us"] = us_per_call(
                lambda: k0((1,), (1,), (cp.int32(1),)), cs.synchronize)
            rows["cupy_args1_us"] = us_per_call(
                lambda: k1((1,), (1,), (ca, cp.int32(1))), cs.synchronize)
            rows["cupy_args4_us"] = us_per_call(
                lambda: k4((1,), (1,), (ca, cb, cc, cd, cp.int32(1))),
                cs.synchronize)
    except Exception as e:  # noqa: BLE001 - a missing or broken CuPy
        print("cupy: not measured:", type(e).__name__, e)

    for key, value in rows.items():
        print(f"{key} {value:.3f}")
    if "cxx_args4_us" in rows:
        for n in (0, 1, 4):
            print(f"qdc_python_minus_cxx_args{n}_us "
                  f"{rows[f'qdc_args{n}_us'] - rows[f'cxx_args{n}_us']:.3f}")


if __name__ == "__main__":
    main()
