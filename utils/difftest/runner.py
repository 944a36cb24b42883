"""Compiles and runs one generated program both ways and compares outputs.

The reference: prog.qd compiled as plain C++ by g++ against serial_qd.h.
The program under test: prog.qd compiled by qdc (CPU code only) in each
variant, main.cpp linked with libqdrt, run with QD_ARCH=cpu and each thread
count. Outcomes: pass, mismatch (outputs differ), refused (qdc rejected the
valid program), crash (the qdc-built program failed or hung), gen-error (the
reference itself did not build or run: a generator bug).
"""
import os
import shutil
import subprocess
import time

from compare import compare, with_spread

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

VARIANTS = {'fused': [], 'nofuse': ['-fno-fuse-tasks'], 'O0': ['-O0']}

class Tools:
    """Where qdc, its headers and libqdrt are."""

    def __init__(self, qdc=None, include=None, lib=None, cxx='g++'):
        build = os.path.join(REPO, 'build')
        self.qdc = qdc or os.path.join(build, 'bin', 'qdc')
        self.include = include or os.path.join(build, 'include')
        self.lib = lib or os.path.join(build, 'lib')
        self.cxx = cxx


def sh(cmd, cwd, timeout, env=None):
    """Runs cmd; returns (returncode, output). A binary that cannot be
    started (replaced while being rebuilt) is retried."""
    for attempt in range(5):
        try:
            p = subprocess.run(cmd, cwd=cwd, timeout=timeout, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out = p.stdout.decode('utf-8', 'replace')
            if p.returncode in (126, 127) and attempt < 4:
                time.sleep(3)
                continue
            return p.returncode, out
        except subprocess.TimeoutExpired:
            return 124, f'timed out after {timeout} s: {" ".join(cmd)}'
        except OSError as e:
            if attempt == 4:
                return 127, str(e)
            time.sleep(3)
    return 127, 'could not run ' + cmd[0]


def write_program(work, prog):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, 'prog.qd'), 'w') as f:
        f.write(prog.qd_text())
    with open(os.path.join(work, 'main.cpp'), 'w') as f:
        f.write(prog.main_text())


def build_reference(work, tools):
    """Returns (ok, expected output or error text). The reference runs
    three times, rounding to nearest, up and down; the expected output is
    the first with each float output's spread (compare.with_spread)."""
    rc, out = sh([tools.cxx, '-std=c++20', '-O1', '-w', '-frounding-math',
                  '-DQD_SERIAL_REFERENCE', '-I', HERE, 'main.cpp', '-o', 'ref'], work, 300)
    if rc != 0:
        return False, 'reference compile failed:\n' + out
    outs = []
    for mode in ('nearest', 'up', 'down'):
        env = dict(os.environ, QD_DIFFTEST_ROUND=mode)
        rc, text = sh(['./ref'], work, 60, env)
        if rc != 0:
            return False, f'reference run failed ({rc}, rounding {mode}):\n' + text
        outs.append(text)
    expected, problems = with_spread(*outs)
    if problems:
        return False, 'reference outputs depend on the rounding mode:\n' + '\n'.join(problems)
    return True, expected


def build_variant(work, variant, tools, main_obj=None):
    """Compiles prog.qd with qdc in variant and links it; returns
    (status, text): status ok, refused or link-error."""
    vdir = os.path.join(work, variant)
    os.makedirs(vdir, exist_ok=True)
    shutil.copy(os.path.join(work, 'prog.qd'), os.path.join(vdir, 'prog.qd'))
    cmd = [tools.qdc, 'prog.qd', '-o', 'prog.o', '--offload-arch=none'] + VARIANTS[variant]
    rc, out = sh(cmd, vdir, 300)
    if rc != 0:
        return 'refused', f'$ {" ".join(cmd)}\n{out}'
    rc, out2 = sh([tools.cxx, '-std=c++17', '-w', '-I', vdir, '-I', tools.include,
                   '../main.cpp', 'prog.o', '-L', tools.lib, '-lqdrt',
                   f'-Wl,-rpath,{tools.lib}', '-o', 'app'], vdir, 300)
    if rc != 0:
        return 'link-error', out2
    return 'ok', out


def run_variant(work, variant, threads, timeout=60):
    env = dict(os.environ, QD_ARCH='cpu', QD_CPU_THREADS=str(threads))
    return sh(['./app'], os.path.join(work, variant), timeout, env)


# ---- one program -----------------------------------------------------------
class Outcome:
    def __init__(self, status, detail='', variant=None, threads=None):
        self.status, self.detail, self.variant, self.threads = status, detail, variant, threads
        self.runs = []   # (variant, threads) pairs that ran and compared

    def __repr__(self):
        return f'Outcome({self.status}, {self.variant}, {self.threads})'


# Signs that qdc and libqdrt were caught halfway through a rebuild.
REBUILD_SIGNS = ('runtime ABI version', 'undefined reference to `qd::',
                 'undefined reference to `qdrt_')


def check(work, tools, variants, threads, expected=None, retries=6):
    """As check_once, waiting out a rebuild of qdc and libqdrt."""
    for attempt in range(retries + 1):
        o = check_once(work, tools, variants, threads, expected)
        if o.status == 'pass' or not any(s in o.detail for s in REBUILD_SIGNS):
            return o
        time.sleep(30)
    o.status = 'env-error'
    return o


def check_once(work, tools, variants, threads, expected=None):
    """Checks the program in work/ (prog.qd, main.cpp). Stops at the first
    failure; the outcome names the variant and thread count."""
    if expected is None:
        ok, expected = build_reference(work, tools)
        if not ok:
            return Outcome('gen-error', expected)
        with open(os.path.join(work, 'expected.txt'), 'w') as f:
            f.write(expected)
    runs = []
    for v in variants:
        status, text = build_variant(work, v, tools)
        if status == 'refused':
            # The binary may have been replaced mid-compile: try once more.
            time.sleep(2)
            status, text = build_variant(work, v, tools)
        if status != 'ok':
            o = Outcome('refused' if status == 'refused' else 'link-error', text, v)
            o.runs = runs
            return o
        for t in threads:
            rc, out = run_variant(work, v, t)
            with open(os.path.join(work, f'actual-{v}-{t}.txt'), 'w') as f:
                f.write(out)
            runs.append((v, t))
            if rc != 0:
                o = Outcome('crash', f'exit {rc}:\n{out[-3000:]}', v, t)
                o.runs = runs
                return o
            diffs = compare(expected, out)
            if diffs:
                o = Outcome('mismatch', '\n'.join(diffs[:40]), v, t)
                o.runs = runs
                return o
    o = Outcome('pass')
    o.runs = runs
    return o


def copy_runtime(tools, out):
    """libqdrt, and the oneTBB it finds beside it (lib/tbb), into out/lib, for
    a batch carried to a machine that may lack libtbb12."""
    lib = os.path.join(out, 'lib')
    os.makedirs(lib, exist_ok=True)
    shutil.copy(os.path.join(tools.lib, 'libqdrt.so'), lib)
    tbb = os.path.join(tools.lib, 'tbb')
    if os.path.isdir(tbb):
        shutil.copytree(tbb, os.path.join(lib, 'tbb'), dirs_exist_ok=True)
