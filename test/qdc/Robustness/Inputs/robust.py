"""Runs qdc on malformed and oversized inputs; every run must end in time
with success or a diagnostic, never a crash or a hang.

usage: robust.py <qdc> <workdir> <case-set> [valid.qd ...]
Case sets: truncated, garbage, empty, nesting, large (-fsyntax-only), and
corpus (the given files, compiled in full).
"""
import os
import random
import subprocess
import sys
import time

TIMEOUT_S = 120


def run(qdc, path, expect=None, full=False):
    start = time.monotonic()
    out = os.path.splitext(path)[0] + ".o"
    try:
        p = subprocess.run(
            [qdc, path, "-o", out] if full else [qdc, "-fsyntax-only", path],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"FAIL {os.path.basename(path)}: no result after {TIMEOUT_S} s"
    took = time.monotonic() - start
    err = p.stderr.decode("utf-8", "replace")
    name = os.path.basename(path)
    if p.returncode not in (0, 1):
        return f"FAIL {name}: exit code {p.returncode}\n{err[-2000:]}"
    if "Stack dump" in err or "PLEASE submit" in err:
        return f"FAIL {name}: crash report\n{err[-2000:]}"
    if p.returncode == 1 and "error" not in err:
        return f"FAIL {name}: exit code 1 without a diagnostic"
    if expect is not None and p.returncode != expect:
        return f"FAIL {name}: exit code {p.returncode}, expected {expect}\n{err[-2000:]}"
    return f"ok {name}: exit {p.returncode} in {took:.1f} s"


def write(workdir, name, data):
    path = os.path.join(workdir, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def truncated(workdir, valid):
    for src in valid:
        data = open(src, "rb").read()
        base = os.path.splitext(os.path.basename(src))[0]
        for k in range(1, 9):
            cut = len(data) * k // 9
            yield write(workdir, f"{base}-cut{cut}.qd", data[:cut]), None


def garbage(workdir, valid):
    rng = random.Random(20261122)
    for n in range(6):
        yield write(workdir, f"random{n}.qd", bytes(rng.randrange(256) for _ in range(4096))), 1
    yield write(workdir, "nul-bytes.qd", b"\0" * 512), None
    yield write(workdir, "utf16.qd", "QD_KERNEL void k() {}".encode("utf-16")), None
    yield write(workdir, "unterminated-comment.qd", b"QD_KERNEL void k() { /* "), 1
    yield write(workdir, "unterminated-string.qd", b'QD_KERNEL void k() { const char *s = "'), 1
    yield write(workdir, "lone-macro.qd", b"QD_STREAM_PARALLEL"), 1
    yield write(workdir, "lone-kernel.qd", b"QD_KERNEL"), 1
    if valid:
        data = bytearray(open(valid[0], "rb").read())
        for n in range(4):
            mutated = bytearray(data)
            for _ in range(8):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            yield write(workdir, f"mutated{n}.qd", bytes(mutated)), None


def empty(workdir, valid):
    yield write(workdir, "empty.qd", b""), 0
    yield write(workdir, "blank.qd", b"\n\n   \n"), 0
    yield write(workdir, "comment-only.qd", b"// nothing here\n"), 0


def nesting(workdir, valid):
    field = b"#include <qd/qd.h>\nqd::field<float, 8> a;\n"
    for depth in (2, 50, 200, 600):
        body = b"QD_STREAM_PARALLEL {\n" * depth + b"a[0] = 1;\n" + b"}\n" * depth
        yield write(workdir, f"nested-blocks-{depth}.qd",
                    field + b"QD_KERNEL void k() {\n" + body + b"}\n"), 1
    body = b"if (a[0] > 0) {\n" * 2000 + b"a[0] = 1;\n" + b"}\n" * 2000
    yield write(workdir, "nested-ifs-2000.qd", field + b"QD_KERNEL void k() {\n" + body + b"}\n"), 1
    expr = b"(" * 5000 + b"1" + b")" * 5000
    yield write(workdir, "nested-parens.qd",
                field + b"QD_KERNEL void k() { a[0] = " + expr + b"; }\n"), 1


def large(workdir, valid):
    out = [b"#include <qd/qd.h>\nconstexpr int N = 1024;\nqd::field<float, N> a, b;\n"]
    for i in range(5000):
        if i % 2:
            out.append(b"QD_KERNEL void k%d(float v) {\n  for (int i : qd::range(N))\n"
                       b"    a[i] = v * %d.0f;\n}\n" % (i, i))
        else:
            out.append(b"QD_KERNEL void k%d() {\n  QD_STREAM_PARALLEL {\n"
                       b"    for (int i : qd::range(N)) a[i] = %d;\n  }\n"
                       b"  QD_STREAM_PARALLEL {\n    for (int j : qd::range(N)) b[j] = %d;\n"
                       b"  }\n}\n" % (i, i, i))
    yield write(workdir, "kernels-5000.qd", b"".join(out)), 0


def corpus(workdir, valid):
    """The fuzzer's regression corpus (the given files), compiled in full."""
    for src in valid:
        yield write(workdir, os.path.basename(src), open(src, "rb").read()), None


def main():
    qdc, workdir, case_set = sys.argv[1:4]
    valid = sys.argv[4:]
    os.makedirs(workdir, exist_ok=True)
    cases = {"truncated": truncated, "garbage": garbage, "empty": empty,
             "nesting": nesting, "large": large, "corpus": corpus}[case_set]
    failures = 0
    for path, expect in cases(workdir, valid):
        line = run(qdc, path, expect, full=case_set == "corpus")
        print(line)
        failures += line.startswith("FAIL")
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
