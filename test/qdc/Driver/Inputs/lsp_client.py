#!/usr/bin/env python3
"""A minimal LSP client for the qdc-lsp tests: starts the server command
given after `--`, opens FILE, prints the diagnostics published for it as
`diag <line>:<col> <source> <message>` (0-based; each related note below it
as `  related <file>:<line>:<col> <message>`), then, for each LINE:COL
given, asks for the definition of the symbol there in FILE and prints
`def <path>:<line>` for each location.
`--change-to OTHER` (before the positions): once FILE is open, its text in
the editor becomes OTHER's (a change not saved) before the diagnostics are
awaited."""
import json
import os
import select
import subprocess
import sys
import time


def main():
    sep = sys.argv.index("--")
    path, positions = os.path.abspath(sys.argv[1]), sys.argv[2:sep]
    change_to = None
    if positions[:1] == ["--change-to"]:
        change_to, positions = positions[1], positions[2:]
    server = subprocess.Popen(sys.argv[sep + 1:], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, cwd=os.path.dirname(path))

    def send(message):
        body = json.dumps(message).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    pending = [b""]

    def receive(timeout=None):
        """The next message; None after timeout seconds without one. (Read
        from the pipe itself: select() does not see what a buffered reader
        holds.)"""
        deadline = None if timeout is None else time.time() + timeout
        while True:
            end = pending[0].find(b"\r\n\r\n")
            if end >= 0:
                length = 0
                for line in pending[0][:end].split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if len(pending[0]) >= end + 4 + length:
                    body = pending[0][end + 4:end + 4 + length]
                    pending[0] = pending[0][end + 4 + length:]
                    return json.loads(body)
            if deadline is not None:
                ready, _, _ = select.select([server.stdout], [], [],
                                            max(0, deadline - time.time()))
                if not ready:
                    return None
            chunk = os.read(server.stdout.fileno(), 1 << 16)
            if not chunk:
                sys.exit("the server stopped")
            pending[0] += chunk

    uri = "file://" + path
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"processId": None, "rootUri": "file://" + os.path.dirname(path),
                     "capabilities": {}}})
    while receive().get("id") != 1:
        pass
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                                      "text": open(path).read()}}})
    if change_to:
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": 2},
                         "contentChanges": [{"text": open(change_to).read()}]}})
    # Diagnostics: the last set published within a few seconds of quiet
    # (clangd publishes, then qdc-lsp again with qdc's added).
    published, deadline = None, time.time() + 60
    next_id = 2
    for position in positions:
        line, col = map(int, position.split(":"))
        send({"jsonrpc": "2.0", "id": next_id, "method": "textDocument/definition",
              "params": {"textDocument": {"uri": uri},
                         "position": {"line": line, "character": col}}})
        while True:
            message = receive()
            if message.get("method") == "textDocument/publishDiagnostics":
                if message["params"]["uri"] == uri:
                    published = message["params"]["diagnostics"]
                continue
            if message.get("id") == next_id:
                result = message.get("result") or []
                for loc in result if isinstance(result, list) else [result]:
                    target = loc.get("uri") or loc.get("targetUri")
                    rng = loc.get("range") or loc.get("targetRange")
                    print("def %s:%d" % (target[len("file://"):], rng["start"]["line"]))
                break
        next_id += 1
    if not positions:
        quiet = time.time() + 15
        while time.time() < deadline:
            message = receive(quiet - time.time())
            if message is None:
                # Done at qdc's diagnostics, or after a quiet spell once
                # something was published.
                if published is not None and (
                        time.time() >= quiet or
                        any(d.get("source") == "qdc" for d in published)):
                    break
                continue
            if message.get("method") == "textDocument/publishDiagnostics" and \
                    message["params"]["uri"] == uri:
                published = message["params"]["diagnostics"]
                quiet = time.time() + 15
        for d in published or []:
            start = d["range"]["start"]
            print("diag %d:%d %s %s" % (start["line"], start["character"],
                                        d.get("source", ""), d["message"]))
            for related in d.get("relatedInformation") or []:
                at = related["location"]["range"]["start"]
                print("  related %s:%d:%d %s" % (
                    os.path.basename(related["location"]["uri"]), at["line"],
                    at["character"], related["message"]))
    server.kill()


main()
