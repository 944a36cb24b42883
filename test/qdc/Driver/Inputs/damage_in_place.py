"""Damages each file given, 64 bytes at 16 places past its first 2 KB,
keeping its size and modification time: what a cache's stamps cannot see."""
import os
import sys

for path in sys.argv[1:]:
    st = os.stat(path)
    with open(path, "r+b") as f:
        for offset in range(2048, st.st_size, max(st.st_size // 16, 1)):
            f.seek(offset)
            f.write(b"\xde\xad\xbe\xef" * 16)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
