#!/usr/bin/env python3
"""browser.py OUT URL... - open each page in one headless Chromium and check it.

One browser process for every page: it is driven over the DevTools
protocol on a pipe (--remote-debugging-pipe: JSON messages separated by
NUL bytes on file descriptors 3 and 4), so no package is needed.  For page
i it writes OUT/shot.i.png (the window's screenshot) and OUT/dom.i.html
(the document as the browser parsed it), and fails when the page did not
load, logged anything to the console, threw, or rendered blank.  Prints
one line per page."""
import base64
import json
import os
import select
import struct
import subprocess
import sys
import time
import zlib

PAGE_SECONDS = 120


class Browser:
    def __init__(self, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def child():
            # pipe ends may already sit on 3 or 4 (and be close-on-exec):
            # dup first, then place them
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
        self.err = open(profile + ".err", "w")
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe",
             "--window-size=1000,1400", "about:blank"],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self.err, env=env)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.to_w, data):]
        return self.next_id

    def _read(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
            sys.exit("chromium did not answer in time")
        chunk = os.read(self.from_r, 1 << 16)
        if not chunk:
            sys.exit(f"chromium exited ({self.proc.poll()})")
        self.buf += chunk

    def _messages(self):
        while b"\0" in self.buf:
            msg, self.buf = self.buf.split(b"\0", 1)
            yield json.loads(msg)

    def call(self, method, params=None, session=True):
        want = self.send(method, params, session)
        deadline = time.monotonic() + PAGE_SECONDS
        while True:
            for m in self._messages():
                if m.get("id") == want:
                    if "error" in m:
                        sys.exit(f"{method}: {m['error']}")
                    return m.get("result", {})
                self.events.append(m)
            self._read(deadline)

    def wait_event(self, method):
        deadline = time.monotonic() + PAGE_SECONDS
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method:
                    del self.events[:i + 1]
                    return m
            for m in self._messages():
                self.events.append(m)
            if any(m.get("method") == method for m in self.events):
                continue
            self._read(deadline)

    def open_tab(self):
        tid = self.call("Target.createTarget", {"url": "about:blank"}, False)["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": tid, "flatten": True}, False)["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(m)

    def close(self):
        try:
            self.send("Browser.close", session=False)
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def blank(png):
    """Is the screenshot (a PNG) nearly one colour?"""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return True
    pos, idat = 8, b""
    while pos < len(png):
        ln, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            idat += png[pos + 8:pos + 8 + ln]
        pos += 12 + ln
    raw = zlib.decompress(idat)
    # distinct byte values of the rows: a blank page gives one or two
    return len(set(raw[1:4000000:7])) < 16


NOISY = ("Runtime.consoleAPICalled", "Log.entryAdded", "Runtime.exceptionThrown")


def main():
    out, urls = sys.argv[1], sys.argv[2:]
    b = Browser(os.path.join(out, "chrome-profile"))
    try:
        b.open_tab()
        for i, url in enumerate(urls):
            b.events.clear()
            r = b.call("Page.navigate", {"url": url})
            if r.get("errorText"):
                sys.exit(f"{url}: {r['errorText']}")
            b.wait_event("Page.loadEventFired")
            png = base64.b64decode(b.call("Page.captureScreenshot", {"format": "png"})["data"])
            dom = b.call("Runtime.evaluate", {
                "expression": "document.documentElement.outerHTML",
                "returnByValue": True})["result"].get("value", "")
            bad = [m for m in b.events if m.get("method") in NOISY]
            if bad:
                sys.exit(f"{url}: console messages: {json.dumps(bad[:3])[:600]}")
            if blank(png):
                sys.exit(f"{url}: the screenshot is blank")
            with open(os.path.join(out, f"shot.{i}.png"), "wb") as f:
                f.write(png)
            with open(os.path.join(out, f"dom.{i}.html"), "w") as f:
                f.write(dom)
            print(f"{url}: rendered, {len(png)} bytes of screenshot, no console message")
    finally:
        b.close()


if __name__ == "__main__":
    main()
