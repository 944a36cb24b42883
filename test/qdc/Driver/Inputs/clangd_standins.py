"""Writes stand-ins for clangd into BIN: clangd-<N> (N: the LLVM version
`QDC --version` names) and clangd, each writing its own path into RAN when
run, then ending.

usage: clangd_standins.py <qdc> <bin> <ran>"""
import os
import re
import subprocess
import sys

qdc, folder, ran = sys.argv[1:4]
version = subprocess.run([qdc, "--version"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
major = re.search(r"^LLVM version (\d+)", version, re.M).group(1)
os.makedirs(folder, exist_ok=True)
for name in ("clangd-" + major, "clangd"):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\necho "$0" > "%s"\n' % ran)
    os.chmod(path, 0o755)
