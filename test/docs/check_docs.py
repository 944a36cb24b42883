"""Keeps the documentation honest.

1. Every option `qdc --help` lists is documented in docs/cli.md and docs/qdc.1.
2. Every code sample in docs/*.md compiles: ```qd blocks (named by a first
   line `// name.qd`) with `qdc -fsyntax-only` and `qdc --emit=header`;
   ```cpp blocks (named `// name.cpp`) with c++ -fsyntax-only against the
   runtime headers and the headers of the page's .qd samples.

usage: check_docs.py <qdc> <include-dir> <docs-dir> <work-dir>
"""
import os
import re
import subprocess
import sys


def help_options(qdc):
    text = subprocess.run([qdc, "--help"], capture_output=True, text=True, check=True).stdout
    options = set()
    for line in text.splitlines():
        m = re.match(r"\s+(-[^\s<]+)", line)
        if m:
            for name in m.group(1).split(","):
                options.add(name.strip())
    return sorted(options)


def samples(path):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"```(\w+)\n(.*?)```", text, re.S):
        yield m.group(1), m.group(2)


def main():
    qdc, include, docs, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    failures, checked = 0, 0

    cli = open(os.path.join(docs, "cli.md"), encoding="utf-8").read()
    man = open(os.path.join(docs, "qdc.1"), encoding="utf-8").read().replace("\\", "")
    for opt in help_options(qdc):
        checked += 1
        whole = re.compile(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])")
        for name, text in (("cli.md", cli), ("qdc.1", man)):
            if not whole.search(text):
                print(f"FAIL option {opt} is not documented in {name}")
                failures += 1

    for page in sorted(os.listdir(docs)):
        if not page.endswith(".md"):
            continue
        page_dir = os.path.join(work, page[:-3])
        os.makedirs(page_dir, exist_ok=True)
        blocks = list(samples(os.path.join(docs, page)))
        for kind, code in blocks:  # .qd samples first: the .cpp ones use their headers
            if kind != "qd":
                continue
            name = re.match(r"// (\S+\.qd)", code)
            if not name:
                print(f"FAIL {page}: a qd sample does not start with // <name>.qd")
                failures += 1
                continue
            path = os.path.join(page_dir, name.group(1))
            open(path, "w").write(code)
            checked += 1
            for args in (["-fsyntax-only"], ["--emit=header", "-o", path[:-3] + ".qd.h"]):
                r = subprocess.run([qdc, *args, path], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL {page}: {name.group(1)}:\n{r.stderr}")
                    failures += 1
                    break
        for kind, code in blocks:
            if kind != "cpp":
                continue
            name = re.match(r"// (\S+\.cpp)", code)
            if not name:
                print(f"FAIL {page}: a cpp sample does not start with // <name>.cpp")
                failures += 1
                continue
            path = os.path.join(page_dir, name.group(1))
            open(path, "w").write(code)
            checked += 1
            r = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
                                "-I", include, "-I", page_dir, path],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {page}: {name.group(1)}:\n{r.stderr}")
                failures += 1
    print(f"{checked} checked, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
