#!/usr/bin/env python3
"""A minimal LSP client for the qdc-lsp tests: starts the server command
given after `--`, opens FILE, prints the diagnostics published for it as
`diag <line>:<col> <source> <message>` (0-based), then, for each LINE:COL
given, asks for the definition of the symbol there in FILE and prints
`def <path>:<line>` for each location."""
import json
import os
import subprocess
import sys
import time


def main():
    sep = sys.argv.index("--")
    path, positions = os.path.abspath(sys.argv[1]), sys.argv[2:sep]
    server = subprocess.Popen(sys.argv[sep + 1:], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, cwd=os.path.dirname(path))

    def send(message):
        body = json.dumps(message).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    def receive():
        length = 0
        while True:
            line = server.stdout.readline()
            if not line:
                sys.exit("the server stopped")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(server.stdout.read(length))

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
        server_fd = server.stdout
        import select
        while time.time() < deadline:
            ready, _, _ = select.select([server_fd], [], [], max(0, quiet - time.time()))
            if not ready:
                # Done at qdc's diagnostics, or after a quiet spell once
                # something was published.
                if published is not None and (
                        time.time() >= quiet or
                        any(d.get("source") == "qdc" for d in published)):
                    break
                continue
            message = receive()
            if message.get("method") == "textDocument/publishDiagnostics" and \
                    message["params"]["uri"] == uri:
                published = message["params"]["diagnostics"]
                quiet = time.time() + 15
        for d in published or []:
            start = d["range"]["start"]
            print("diag %d:%d %s %s" % (start["line"], start["character"],
                                        d.get("source", ""), d["message"]))
    server.kill()


main()
