"""Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) and the web server as a real process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from benchwright.paths import ROOT

# Without the background-networking flags Chromium keeps dialling Google on this closed network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    path = os.environ.get("BENCHWRIGHT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Chromium is not installed: `python3.11 dev.py test` installs Debian's chromium "
                           "(apt-get install chromium), or set BENCHWRIGHT_CHROMIUM to a Chromium binary")
    return path


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def env_for(home: Path) -> dict:
    return {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}


class WebServer:
    """`python -m web` on a free port, in its own process group, with its output in a log file."""

    def __init__(self, home: Path, *args: str):
        self.home, self.args, self.port = home, args, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60) -> "WebServer":
        log = open(self.home / "web-server.log", "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "web", "--port", str(self.port), *self.args], cwd=ROOT,
                                        env=env_for(self.home), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the web server exited: {self.log_tail()}")
            try:
                urllib.request.urlopen(self.url + "/", timeout=2).read()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the web server did not answer in {timeout_s} s: {self.log_tail()}") from None
                time.sleep(0.2)

    def crash(self) -> None:
        """SIGKILL: no shutdown code runs, as in a power cut of the process."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def log_tail(self) -> str:
        path = self.home / "web-server.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""
