"""The real waitress server (`python -m web`) on loopback stays open to newcomers: idle connections, which
every browser keeps and anyone can open by the hundred, neither lock out a new visitor nor stay for ever; and
people joining at once under one name (or names that differ only in case) get one account and a 409 each."""

import contextlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from benchwright.paths import ROOT
from tests.support.browser import WebServer, env_for
from tests.support.web import CSRF

IDLE_CONNECTIONS = 150        # more than waitress's default connection_limit (100), which locked newcomers out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The home page needs no published results, so an empty home will do.
    server = WebServer(tmp_path_factory.mktemp("server_home"), "--idle-timeout", "3").start()
    yield server
    server.stop()


@contextlib.contextmanager
def idle_connections(port: int, count: int):
    sockets = []
    try:
        for _ in range(count):
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def get_home_page(sock: socket.socket) -> bytes:
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    received = b""
    while b"</html>" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_a_new_visitor_gets_the_page_while_150_idle_connections_are_open(server):
    with idle_connections(server.port, IDLE_CONNECTIONS) as idle:
        time.sleep(0.5)                                  # let the server accept them all
        started = time.monotonic()
        with urllib.request.urlopen(server.url + "/", timeout=5) as response:
            body = response.read()
        took = time.monotonic() - started
        assert response.status == 200 and b"</html>" in body
        assert took < 1.0, f"a new visitor waited {took:.2f} s"
        # The idle ones were not dropped to make room: each is still a connection the server answers on.
        for sock in (idle[0], idle[len(idle) // 2], idle[-1]):
            assert get_home_page(sock).startswith(b"HTTP/1.1 200")


def test_an_idle_connection_is_closed_after_the_idle_timeout(server):
    with idle_connections(server.port, 1) as (sock,):
        sock.settimeout(15)
        started = time.monotonic()
        assert sock.recv(1) == b""                       # the server closed it
        assert 2.5 < time.monotonic() - started < 10     # --idle-timeout 3, looked for every 3 s


def test_a_low_open_file_limit_lowers_the_connection_limit_with_a_warning(tmp_path):
    code = ("import logging, resource; logging.basicConfig(); resource.setrlimit(resource.RLIMIT_NOFILE, (400, 400)); "
            "from web.__main__ import server_settings; print(server_settings(1000)['connection_limit'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env_for(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["144"]                # 400 files − 256 spare
    assert "fits 144 connections, not 1000" in done.stderr


def join_at_once(url: str, names: list[str]) -> list[int]:
    """Each name joins from its own browser (a fresh session with its form token), all posting at once."""
    browsers = []
    for _ in names:
        browser = requests.Session()
        browsers.append((browser, CSRF.search(browser.get(url + "/join", timeout=10).text).group(1)))
    barrier = threading.Barrier(len(names))

    def post(browser_and_csrf, name):
        browser, csrf = browser_and_csrf
        barrier.wait(timeout=10)
        return browser.post(url + "/join", data={"csrf": csrf, "name": name}, timeout=30).status_code

    with ThreadPoolExecutor(len(names)) as pool:
        return list(pool.map(post, browsers, names))


def test_names_that_differ_only_in_case_joining_at_once_one_is_refused(server):
    for trial in range(60):
        codes = join_at_once(server.url, [f"Race{trial}", f"race{trial}"])
        assert sorted(codes) == [200, 409], f"trial {trial}: {codes}"


def test_thirty_joins_of_one_name_at_once_give_one_person_and_29_refusals(server):
    codes = join_at_once(server.url, ["crowded"] * 30)
    assert sorted(codes) == [200] + [409] * 29
    assert "UNIQUE constraint" not in server.log_tail()


def test_ctrl_c_stops_dev_py_web_without_a_traceback(tmp_path):
    """Ctrl-C reaches dev.py and the server alike (the terminal signals the foreground process group): the
    server logs that it stopped, and neither process prints a traceback; the exit status is 0."""
    import os
    import signal

    from tests.support.browser import env_for, free_port

    port = free_port()
    # dev.py's own waiting, on the server it starts, without its install step (the test's virtualenv is ready).
    code = (f"import sys, dev; sys.exit(dev.run_through_ctrl_c([sys.executable, '-m', 'web', '--port', '{port}'], "
            "dict(__import__('os').environ)))")
    log = tmp_path / "out.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env_for(tmp_path), stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Still serving: every thread's stack (web/__main__.py registers SIGUSR1), then the failure shows it.
            subprocess.run(["pkill", "-USR1", "-f", f"-m web --port {port}"], check=False)
            time.sleep(2)
            raise AssertionError(f"not stopped 30 s after Ctrl-C:\n{log.read_text()}") from None
        assert code == 0, log.read_text()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    output = log.read_text()
    assert "INFO benchwright.web: stopped" in output and "Traceback" not in output and "KeyboardInterrupt" not in output
