"""Deeply nested and oddly numbered inputs through the whole compile: each
ends in time with an object or a located error, never a crash or a hang.

usage: deep.py <qdc> <workdir>
Prints one line per case and `<n> failed` last.
"""
import os
import subprocess
import sys

HEADER = "#include <qd/qd.h>\nqd::field<int, 4> f;\n"


def kernel(body):
    return HEADER + "QD_KERNEL void k() {\n" + body + "}\n"


def loop(expr):
    return kernel("  for (int i : qd::range(4)) f[i] = " + expr + ";\n")


def chain(n):
    return "".join(f"i == {k} ? {k} : " for k in range(n)) + "0"


TOO_LARGE = ("warning: this function is too large to optimize (30003 basic blocks; "
             "the limit is 8192): it is compiled without optimization")

CASES = [
    # name, source, expected exit code, text stderr must hold[, qdc options]
    ("minus5k", loop("- " * 5000 + "1"), 0, ""),
    ("sum100k", loop("+".join(["1"] * 100000)), 0, ""),
    ("ifelse10k", kernel("  for (int i : qd::range(4)) {\n    if (i == 0) f[i] = 1;\n"
                         + "    else if (i == 0) f[i] = 1;\n" * 10000 + "  }\n"), 0, ""),
    ("sum250k", loop("+".join(["1"] * 250000)), 1,
     "deep.sum250k.qd:4:37: error: code nested more than 200000 levels deep"),
    ("minus400k", loop("- " * 400000 + "1"), 1,
     "qdc: error: the input nests too deeply: the compiler ran out of stack"),
    ("macro", HEADER + "#define P(x) (x)\n" + "int v = " + "P(" * 3000 + "1" + ")" * 3000 + ";\n",
     1, "error:"),
    # Doubling at each of 40 levels: 2^40 tokens. Stopped after 2^22
    # expansions, in a second and 200 MB (it took 90 s and 12 GB before).
    ("macrobomb", HEADER + "#define A0 x\n"
     + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 41)) + "int v = A40;\n",
     1, "deep.macrobomb.qd:44:9: error: macro expansion does not end"),
    ("line", HEADER + "int a = 1;\n#line 4294967295\nint x = ;\n", 1,
     "deep.line.qd:4:1: error: '#line' number 4294967295 is too large"),
    ("linemarker", HEADER + '# 4294967294 "other.h"\nint x = ;\n', 1,
     "deep.linemarker.qd:3:1: error: '#line' number 4294967294 is too large"),
    # LLVM's optimizations are quadratic in such chains: the function is
    # compiled without them, with a warning at the kernel (host and PTX
    # here; ptxas is quadratic in them too, see docs/compiler.md).
    ("ternary10k", loop(chain(10000)), 0, "deep.ternary10k.qd:3:" , ["--offload-arch=none"]),
    ("ternary10kptx", loop(chain(10000)), 0, TOO_LARGE, ["--emit=ptx", "--offload-arch=sm_80"]),
    ("elseif10k", kernel("  for (int i : qd::range(4)) {\n    int r = 0;\n"
                         + "".join(f"    if (i == {k}) r = {k};\n    else\n" for k in range(10000))
                         + "    r = 1;\n    f[i] = r;\n  }\n"), 0, "too large to optimize",
     ["--offload-arch=none"]),
]


def main():
    qdc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name, source, expect, text, *options in CASES:
        path = os.path.join(work, f"deep.{name}.qd")
        with open(path, "w") as f:
            f.write(source)
        try:
            p = subprocess.run([qdc, path, "-o", os.path.join(work, name + ".o")]
                               + (options[0] if options else []),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            err = p.stderr.decode("utf-8", "replace")
            ok = p.returncode == expect and text in err and "Stack dump" not in err
            why = f"exit {p.returncode}: {err[-400:]}"
        except subprocess.TimeoutExpired:
            ok, why = False, "no result after 120 s"
        print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + why))
        failed += not ok
    print(f"{failed} failed")


main()
