"""A real PostgreSQL server for tests: Debian's binaries, a temporary data directory, a loopback port.

The test command installs Debian's `postgresql` when it is missing (dev.py `ensure_postgres`). PostgreSQL
refuses to run as root, so as root the server runs as the `postgres` user the package creates.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path


def server_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl (Debian keeps them out of PATH), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def postgres_server(database: str = "dagster"):
    """Start a server in a temporary folder of its own (directly in TMPDIR, /tmp or /dev/shm: pytest's folders are
    closed to other users); yields its connection settings (host, port, user, password, db_name); stops and removes it."""
    binaries = server_binaries()
    if binaries is None:
        raise RuntimeError("PostgreSQL's server is not installed: run the tests through `python3.11 dev.py test`, "
                           "which installs Debian's postgresql")
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = Path(tempfile.mkdtemp(prefix="benchwright-pg-"))
    data = folder / "pgdata"
    data.mkdir(parents=True)
    if as_user:
        shutil.chown(folder, "postgres")
        shutil.chown(data, "postgres")
    port = _free_port()
    subprocess.run([*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                    "-E", "UTF8"], check=True, capture_output=True)
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(data / "log"),
                    "-w", "start"], check=True, capture_output=True)
    try:
        subprocess.run([*as_user, str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                        database], check=True, capture_output=True)
        yield {"host": "127.0.0.1", "port": port, "user": "postgres", "password": "", "db_name": database}
    finally:
        subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
