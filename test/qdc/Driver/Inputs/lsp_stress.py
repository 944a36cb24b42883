#!/usr/bin/env python3
"""Hostile clients for the qdc-lsp tests, and the fake clangd and qdc they
run qdc-lsp with.

    lsp_stress.py malformed WORK -- SERVER...
    lsp_stress.py burst WORK -- SERVER...
    lsp_stress.py end HOW [--stubborn-clangd] [--real-clangd] WORK -- SERVER...

WORK is a fresh folder. The server runs with QDC naming the fake qdc and
QDC_CLANGD the fake clangd (the real one with --real-clangd).

malformed: sends malformed messages, each followed by a valid request, and
prints `answer id=<id> error=<code>` or `answer id=<id> result` for each
answer in the order they come; `no answer to <id>` if the server does not
answer the valid request within 20 seconds.

burst: opens a.qd, then changes it 20 times in three seconds (saving every
other change), the older versions' checks taking longer; then changes it
once more without saving. Prints the last version whose qdc diagnostics
were published after the burst, whether a version was ever published after
a newer one, the most fake qdc processes that ran at once, and the version
published for the unsaved change.

end: opens a.qd, whose check runs for a minute (a fake qdc with a child of
its own), and ends the server by HOW: exit (after shutdown), eof (standard
input closed), sigterm or sigint. Prints the server's exit status and the
processes started under it that are still alive afterwards.
--stubborn-clangd: the fake clangd ignores exit, the end of its input,
SIGTERM, SIGINT and SIGHUP.

fake-clangd: answers initialize (incremental sync) and every other request
(result {"method": ...}), publishes empty diagnostics for each opened or
changed document, ends at exit or the end of its input.

fake-qdc: reads the last argument (the file to check), sleeps `delay S`
seconds (as the file says; else 1) in a child `sleep`, then reports
`<file>:1:1: error: checked version N` for the file's `version N`. It
records in WORK (FAKE_DIR) its pid while it runs and, at its start, how many
fake qdc were running then.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import uuid

MARK = "QDC_LSP_TEST_MARK"


# Framing, for the fakes and the clients.
def frame(message):
    body = json.dumps(message).encode() if not isinstance(message, bytes) else message
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            if length is not None:
                break
            continue
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def alive(pid):
    """pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


# The fakes.
def fake_clangd():
    stubborn = bool(os.environ.get("FAKE_CLANGD_STUBBORN"))
    if stubborn:
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, signal.SIG_IGN)
    out = sys.stdout.buffer

    def send(message):
        out.write(frame(message))
        out.flush()

    while True:
        message = read_frame(sys.stdin.buffer)
        if message is None:
            break
        method = message.get("method")
        if method == "exit" and not stubborn:
            sys.exit(0)
        if method in ("textDocument/didOpen", "textDocument/didChange"):
            try:
                uri = message["params"]["textDocument"]["uri"]
            except (KeyError, TypeError):
                uri = None
            if uri:
                send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                      "params": {"uri": uri, "diagnostics": []}})
        if method and "id" in message:
            result = {"capabilities": {"textDocumentSync": 2}} \
                if method == "initialize" else {"method": method}
            if method == "shutdown":
                result = None
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    while stubborn:
        time.sleep(1)


def fake_qdc():
    work = os.environ["FAKE_DIR"]
    target = sys.argv[-1]
    text = open(target).read()
    version = re.search(r"version (\d+)", text)
    delay = re.search(r"delay ([0-9.]+)", text)
    me = os.path.join(work, "qdc.%d" % os.getpid())
    open(me, "w").close()
    running = 0
    for name in os.listdir(work):
        if name.startswith("qdc.") and name[4:].isdigit():
            pid = int(name[4:])
            if alive(pid) and "fake-qdc" in cmdline(pid):
                running += 1
    with open(os.path.join(work, "qdc.log"), "a") as log:
        log.write("%d %s %d\n" % (os.getpid(), version.group(1) if version else "?", running))
    subprocess.call(["sleep", delay.group(1) if delay else "1"])
    sys.stderr.write("%s:1:1: error: checked version %s\n"
                     % (target, version.group(1) if version else "?"))
    os.unlink(me)
    sys.exit(1)


# The clients.
class Server:
    def __init__(self, command, work, real_clangd=False, stubborn=False):
        self.work = work
        self.mark = uuid.uuid4().hex
        env = dict(os.environ, FAKE_DIR=work)
        env[MARK] = self.mark
        me = os.path.abspath(__file__)
        for role, name in (("fake-qdc", "qdc"), ("fake-clangd", "clangd")):
            wrapper = os.path.join(work, "fake-" + name)
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\nexec "%s" "%s" %s "$@"\n' % (sys.executable, me, role))
            os.chmod(wrapper, 0o755)
        env["QDC"] = os.path.join(work, "fake-qdc")
        if not real_clangd:
            env["QDC_CLANGD"] = os.path.join(work, "fake-clangd")
        if stubborn:
            env["FAKE_CLANGD_STUBBORN"] = "1"
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     cwd=work, env=env)
        self.next_id = 1
        self.pending = b""

    def send(self, message):
        self.proc.stdin.write(frame(message) if not isinstance(message, bytes) else message)
        self.proc.stdin.flush()

    def receive(self, timeout):
        """The next message, or None after timeout seconds without one.
        (Read from the pipe itself: select() does not see what a buffered
        reader holds.)"""
        deadline = time.time() + timeout
        while True:
            end = self.pending.find(b"\r\n\r\n")
            if end >= 0:
                length = None
                for line in self.pending[:end].split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if len(self.pending) >= end + 4 + length:
                    body = self.pending[end + 4:end + 4 + length]
                    self.pending = self.pending[end + 4 + length:]
                    return json.loads(body)
            ready, _, _ = select.select([self.proc.stdout], [], [],
                                        max(deadline - time.time(), 0))
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                sys.exit("the server stopped")
            self.pending += chunk

    def request(self, method, params=None):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": params or {}})
        return self.next_id

    def initialize(self):
        answer = self.request("initialize", {"processId": None, "capabilities": {},
                                             "rootUri": "file://" + self.work})
        while True:
            message = self.receive(60)
            if message is None:
                sys.exit("no answer to initialize")
            if message.get("id") == answer:
                break
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def leftovers(self):
        """Processes with this server's mark in their environment, alive."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    env = f.read()
            except OSError:
                continue
            if ("%s=%s" % (MARK, self.mark)).encode() in env.split(b"\0") and alive(int(name)):
                found.append("%s (%s)" % (name, cmdline(int(name))))
        return found


def malformed(server):
    body = b'{"jsonrpc": "2.0", "id": 100, "method": "qdc-test/echo"}'
    steps = [
        ("bad-length", b"Content-Length: abc\r\n\r\n{}"),
        ("negative-length", b"Content-Length: -5\r\n\r\n"),
        ("huge-length", b"Content-Length: 99999999999999999999\r\n\r\n{}"),
        ("no-length", b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"),
        ("no-headers", body),
        ("header-garbage", b"hello world\r\n"),
        ("not-json", frame(b'{"jsonrpc": "2.0", "id": 101, "method":')),
        ("short-length", b"Content-Length: 10\r\n\r\n" + body),
        ("bad-utf8", frame(b'{"jsonrpc": "2.0", "method": "\xff"}')),
        ("nan", frame(b'{"jsonrpc": "2.0", "id": NaN, "method": "x"}')),
        ("deep", frame(b"[" * 100000 + b"]" * 100000)),
        ("array", frame(b"[1, 2]")),
        ("number", frame(b"42")),
        ("empty-object", frame(b"{}")),
        ("bad-method", frame(b'{"jsonrpc": "2.0", "id": 102, "method": 5}')),
        ("bad-id", frame(b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "x"}')),
        ("bad-params", frame(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": 5}')
         + frame(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": '
                 b'{"textDocument": {"uri": "file:///nowhere/y.qd", "text": "a\\n"}}}')
         + frame(b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": '
                 b'{"textDocument": {"uri": "file:///nowhere/y.qd"}, "contentChanges": '
                 b'[{"range": 5, "text": 1}]}}')
         + frame(b'{"jsonrpc": "2.0", "method": "textDocument/didSave", "params": '
                 b'{"textDocument": {"uri": "file:///nowhere/x.qd"}, "text": []}}')),
        ("response", frame(b'{"jsonrpc": "2.0", "id": 104, "result": null}')),
    ]
    for name, data in steps:
        print("step " + name, flush=True)
        server.send(data)
        valid = server.request("qdc-test/echo")
        deadline = time.time() + 20
        while True:
            message = server.receive(deadline - time.time())
            if message is None:
                print("no answer to %d" % valid, flush=True)
                return
            if "method" in message:
                continue
            what = "error=%s" % message["error"]["code"] if "error" in message else "result"
            print("answer id=%s %s" % (json.dumps(message.get("id")), what), flush=True)
            if message.get("id") == valid:
                break
    server.request("shutdown")
    server.send({"jsonrpc": "2.0", "method": "exit"})
    try:
        print("server ended: status %d" % server.proc.wait(timeout=20))
    except subprocess.TimeoutExpired:
        print("server still running")
        server.proc.kill()


def burst(server):
    path = os.path.join(server.work, "a.qd")
    uri = "file://" + path

    def text(version, delay):
        return "// version %d\n// delay %.1f\n" % (version, delay)

    with open(path, "w") as f:
        f.write(text(0, 3))
    server.initialize()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "cpp",
                                             "version": 0, "text": text(0, 3)}}})
    published = []  # qdc's versions in the order published

    def drain(seconds, until=None):
        deadline = time.time() + seconds
        while time.time() < deadline:
            message = server.receive(deadline - time.time())
            if message is None:
                return
            if message.get("method") == "textDocument/publishDiagnostics" and \
                    message["params"]["uri"] == uri:
                for d in message["params"]["diagnostics"]:
                    m = re.match(r"checked version (\d+)", d["message"])
                    if d.get("source") == "qdc" and m:
                        published.append(int(m.group(1)))
                        if until is not None and int(m.group(1)) == until:
                            return

    # Older versions take longer to check: without killing older checks, an
    # old result comes last.
    for version in range(1, 21):
        new = text(version, 0.5 + (20 - version) * 0.3)
        # An incremental change: the two lines replaced.
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": [{
                                    "range": {"start": {"line": 0, "character": 0},
                                              "end": {"line": 2, "character": 0}},
                                    "text": new}]}})
        if version % 2 == 0:
            with open(path, "w") as f:
                f.write(new)
            server.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                         "params": {"textDocument": {"uri": uri}}})
        drain(0.15)
    drain(60, until=20)
    drain(4)  # what older checks would still publish
    print("last version: %s" % (published[-1] if published else "none"))
    late = [(a, b) for a, b in zip(published, published[1:]) if b < a]
    print("order: " + ("newest last" if not late else
                       "version %d published after version %d" % (late[0][1], late[0][0])))
    most = 0
    with open(os.path.join(server.work, "qdc.log")) as log:
        for line in log:
            most = max(most, int(line.split()[2]))
    print("most qdc at once: %d" % most)
    # A change not saved is checked too, from its text.
    server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                 "params": {"textDocument": {"uri": uri, "version": 21},
                            "contentChanges": [{"text": text(21, 0.2)}]}})
    published.clear()
    drain(30, until=21)
    print("unsaved change: %s" % (published[-1] if published else "none"))
    server.request("shutdown")
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.proc.wait(timeout=20)


def end(server, how):
    path = os.path.join(server.work, "a.qd")
    with open(path, "w") as f:
        f.write("// version 1\n// delay 60\n")
    server.initialize()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": "file://" + path, "languageId": "cpp",
                                             "version": 1, "text": open(path).read()}}})
    deadline = time.time() + 30
    while not any(n.startswith("qdc.") and n[4:].isdigit() for n in os.listdir(server.work)):
        if time.time() > deadline:
            sys.exit("qdc did not start")
        time.sleep(0.1)
    print("qdc running")
    if how == "exit":
        answer = server.request("shutdown")
        while (server.receive(30) or {}).get("id") != answer:
            pass
        server.send({"jsonrpc": "2.0", "method": "exit"})
    elif how == "eof":
        server.proc.stdin.close()
    elif how == "sigterm":
        server.proc.send_signal(signal.SIGTERM)
    elif how == "sigint":
        server.proc.send_signal(signal.SIGINT)
    try:
        print("server ended: status %d" % server.proc.wait(timeout=20))
    except subprocess.TimeoutExpired:
        print("server still running")
        server.proc.kill()
        server.proc.wait()
    # What the server's end killed may take a moment to go.
    deadline = time.time() + 2
    while server.leftovers() and time.time() < deadline:
        time.sleep(0.1)
    left = server.leftovers()
    print("children left: %d" % len(left))
    for process in left:
        print("  " + process)
        try:
            os.kill(int(process.split()[0]), signal.SIGKILL)
        except OSError:
            pass


def main():
    role = sys.argv[1]
    if role == "fake-clangd":
        return fake_clangd()
    if role == "fake-qdc":
        return fake_qdc()
    sep = sys.argv.index("--")
    args, command = sys.argv[2:sep], sys.argv[sep + 1:]
    options = [a for a in args if a.startswith("--")]
    args = [a for a in args if not a.startswith("--")]
    work = os.path.abspath(args[-1])
    os.makedirs(work, exist_ok=True)
    server = Server(command, work, real_clangd="--real-clangd" in options,
                    stubborn="--stubborn-clangd" in options)
    if role == "malformed":
        malformed(server)
    elif role == "burst":
        burst(server)
    elif role == "end":
        end(server, args[0])
    if server.proc.poll() is None:
        server.proc.kill()


main()
