"""A small Chrome DevTools Protocol client in the Python standard library: starts headless
Chromium, speaks to one page over a WebSocket (RFC 6455, just what CDP needs), and keeps every
event, so a test can fail on console errors and exceptions it did not wait for.

Chromium is started with a fresh profile in a temporary directory, every proxy pointed at a
closed port and the DevTools port chosen by Chromium (read back from DevToolsActivePort).
"""

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import time

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium():
    """The browser to run: $RPROF_CHROMIUM, else the first of CHROMIUM_NAMES on PATH; None."""
    explicit = os.environ.get("RPROF_CHROMIUM")
    if explicit:
        return explicit
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(Exception):
    pass


class WebSocket:
    """A client WebSocket over a plain TCP socket: text frames out (masked, as clients must),
    frames in (fragmented or not); answers pings."""

    def __init__(self, host, port, path, timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CdpError("the DevTools WebSocket closed during its handshake")
            response += chunk
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise CdpError("DevTools refused the WebSocket: " + head.decode(errors="replace"))

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])  # FIN, text
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise CdpError("the DevTools WebSocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def receive(self):
        """The next whole message's text."""
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", self._read(8))
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise CdpError("the DevTools WebSocket was closed by the browser")
            if opcode == 0x9:  # ping: pong back, masked as a client must
                m = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + m +
                                  bytes(b ^ m[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode in (0x1, 0x2, 0x0):
                message += payload
                if b0 & 0x80:
                    return message.decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """Headless Chromium with one page, driven over CDP. `events` holds every event received."""

    def __init__(self, chromium, profile_dir, width=1280, height=1600):
        self.events = []
        self.next_id = 0
        argv = [chromium, "--headless=new", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps",
                # No network: every proxied request goes to a closed port.
                "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--remote-debugging-port=0", f"--user-data-dir={profile_dir}",
                f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.log_path = os.path.join(profile_dir, "chromium.log")
        os.makedirs(profile_dir, exist_ok=True)
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log_tail()
                self.quit()
                raise CdpError("Chromium did not start: " + tail)
            time.sleep(0.1)
        time.sleep(0.1)
        with open(port_file) as f:
            self.port = int(f.readline().strip())
        page = None
        while page is None and time.monotonic() < deadline:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            conn.request("GET", "/json/list")
            targets = json.loads(conn.getresponse().read())
            conn.close()
            page = next((t for t in targets if t.get("type") == "page"), None)
            if page is None:
                time.sleep(0.1)
        if page is None:
            tail = self.log_tail()
            self.quit()
            raise CdpError("Chromium has no page target: " + tail)
        path = page["webSocketDebuggerUrl"].split(str(self.port), 1)[1]
        self.ws = WebSocket("127.0.0.1", self.port, path)

    def log_tail(self):
        try:
            self.log.flush()
            with open(self.log_path, "rb") as f:
                return f.read()[-2000:].decode(errors="replace")
        except OSError:
            return ""

    def call(self, method, timeout=60, **params):
        """Sends a command and returns its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            if message.get("id") == my_id:
                if "error" in message:
                    raise CdpError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
        raise CdpError(f"{method}: no answer in {timeout} s")

    def wait_event(self, method, timeout=60):
        for e in self.events:
            if e["method"] == method:
                return e
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return message
        raise CdpError(f"no {method} in {timeout} s")

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page; a thrown exception fails."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self):
        """Console errors, uncaught exceptions and error log entries (CSP violations, failed
        loads), as text."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console." + p["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + d.get("text", "") + " " +
                           str(d.get("exception", {}).get("description", "")))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        return out

    def requests(self):
        """Every URL the page asked the network for (Network.requestWillBeSent)."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def quit(self):
        if getattr(self, "ws", None):
            self.ws.close()
        if self.proc.poll() is None:
            # The process group Chromium's own children joined (start_new_session above).
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=10)
        if not self.log.closed:
            self.log.close()
