#!/usr/bin/env python3
"""Compares a program's printed outputs with the expected ones.

Lines look like `I name: v v v` (integers: exact) or `F name: v v v` (float
and double components: within the tolerance below). Standalone, so that a
GPU machine with only python3 can run it:

  compare.py expected.txt actual.txt    exit 0 if the same, 1 otherwise
"""
import math
import sys

# Floats (and doubles) match when |a - b| <= ABS_TOL + REL_TOL * max(|a|, |b|).
ABS_TOL = 1e-3
REL_TOL = 1e-4


def parse(text):
    lines = {}
    order = []
    for line in text.splitlines():
        head, sep, vals = line.partition(':')
        parts = head.split(' ', 1)
        if not sep or len(parts) != 2 or parts[0] not in ('I', 'F'):
            continue
        lines[parts[1]] = (parts[0], vals.split())
        order.append(parts[1])
    return order, lines


def same_float(a, b):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= ABS_TOL + REL_TOL * max(abs(x), abs(y))


def compare(expected, actual):
    """Returns a list of difference descriptions (empty: the same)."""
    order, exp = parse(expected)
    _, act = parse(actual)
    diffs = []
    for name in order:
        kind, ev = exp[name]
        if name not in act:
            diffs.append(f'{name}: missing from the output')
            continue
        av = act[name][1]
        if len(av) != len(ev):
            diffs.append(f'{name}: {len(av)} values, expected {len(ev)}')
            continue
        for k, (e, a) in enumerate(zip(ev, av)):
            ok = same_float(e, a) if kind == 'F' else e == a
            if not ok:
                diffs.append(f'{name}[{k}]: expected {e}, got {a}')
    return diffs



def main():
    with open(sys.argv[1]) as f:
        expected = f.read()
    with open(sys.argv[2]) as f:
        actual = f.read()
    diffs = compare(expected, actual)
    for d in diffs[:20]:
        print(d)
    sys.exit(1 if diffs else 0)


if __name__ == '__main__':
    main()
