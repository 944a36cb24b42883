"""Runs a command with a FIFO as its input file.

usage: fifo_input.py <source> <fifo> <command...>
Makes <fifo>, writes <source> into it from another thread, and runs the
command (which names <fifo>), with a time limit; exits with its exit code.
"""
import os
import subprocess
import sys
import threading

source, fifo, command = sys.argv[1], sys.argv[2], sys.argv[3:]
os.mkfifo(fifo)


def feed():
    with open(source, "rb") as src, open(fifo, "wb") as dst:
        dst.write(src.read())


threading.Thread(target=feed, daemon=True).start()
sys.exit(subprocess.run(command, timeout=60).returncode)
