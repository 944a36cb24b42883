"""Starts a command, sends it SIGTERM after a moment, and waits for it.

Exits 0 whatever the command did: the test checks what it left behind.
"""
import signal
import subprocess
import sys
import time

proc = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
time.sleep(0.5)
if proc.poll() is None:
    proc.send_signal(signal.SIGTERM)
proc.wait()
