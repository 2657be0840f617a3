#!/usr/bin/env python3.11
"""Bootstrap and run Benchwright with nothing but Python 3.11 and the package registry.

    python3.11 dev.py demo    install, then materialize the whole asset graph on the sample with the
                              offline simulated models and print the leaderboards
    python3.11 dev.py run     install, then run the main job on what the registry names (the demo's job), scoped
                              if you like: --benchmark NAME, --model SLUG, --judge SLUG (each repeatable) and
                              --limit N (the first N items of each benchmark, in <home>/limited/N/) or --limit
                              anchors (each benchmark's anchor items and estimated full scores; options: --help)
    python3.11 dev.py test    install, then run the test suite
    python3.11 dev.py ui      install, then start the Dagster UI (dagster dev) on this workspace
    python3.11 dev.py web     install, build the sample results if there are none yet, then serve the GAP
                              game, the annotation page and the results explorer on http://127.0.0.1:8000/
                              (options: --help; --explorer-only: the analyst server on :8001, the explorer alone,
                              with GAP's game records)
    python3.11 dev.py compare models A B | judges A B
                              install, then print two candidates (or two judges) compared item by item
                              from the analyst snapshot (options: --help)
    python3.11 dev.py leaderboards
                              install, then list the analyst snapshot's leaderboard views: rows, judges, controls
    python3.11 dev.py show BENCHMARK [--judge SLUG] [--control style]
                              install, then print one benchmark's leaderboard (intervals where it has them) from
                              the analyst snapshot, in under a second (options: --help)
    python3.11 dev.py plan    install, then count the calls, tokens and dollars per model and judge that the
                              demo command would spend on what is missing or stale, without calling
                              anything, and name the providers whose API key is missing (on a temporary
                              copy of the home; takes run's scope options; --help; run's and demo's
                              --max-cost USD refuses to start above a plan's cost, and stops sending
                              calls before the run's spend would cross it)
    python3.11 dev.py export --to DIR
                              install, then write every leaderboard of the analyst snapshot as CSV and Parquet
                              and the results as Every Eval Ever records (validated against its schema) under DIR
    python3.11 dev.py sql     install, then open a read-only SQL shell on the analyst snapshot (-c "SQL" runs one
                              statement; .tables and .columns NAME show the warehouse's comments; --help)
    python3.11 dev.py compact-runs --keep-days N [--keep-runs N]
                              install, then delete Dagster runs older than N days (default 30; or beyond the
                              newest N runs) except those holding an asset partition's latest materialization,
                              and VACUUM the home's SQLite files (the main job does this by itself past
                              BENCHWRIGHT_KEEP_RUNS, default 300, runs; options: --help)

The virtualenv lives in .venv/ and is reinstalled only when requirements.txt changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".requirements.sha256"


def install() -> None:
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"Benchwright needs Python 3.11 (this is {sys.version.split()[0]}): run `python3.11 dev.py ...`")
    wanted = hashlib.sha256((ROOT / "requirements.txt").read_bytes()).hexdigest()
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    if not PYTHON.exists():
        print(f"creating virtualenv {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("installing pinned dependencies (requirements.txt); this takes a minute or two the first time", flush=True)
    # pip byte-compiles the ~14,000 modules it installs one after another; compileall does it on every core.
    # Compiled here, not left to the first import: with PYTHONDONTWRITEBYTECODE set nothing would keep the
    # bytecode, and every test process, main job and web server would compile dagster and litellm anew.
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                    "-r", str(ROOT / "requirements.txt")], check=True)
    site_packages = subprocess.run([str(PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                   check=True, capture_output=True, text=True).stdout.strip()
    # Not checked: a few packages ship templates that are not Python (pip skips them the same way).
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", "-q", "-j", "0", site_packages])
    STAMP.write_text(wanted)


def install_debian_package(package: str, needed_by: str) -> None:
    """Install a Debian package once where apt-get can (CI runs as root); otherwise say what will fail."""
    apt = shutil.which("apt-get")
    sudo = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else None)
    if apt is None or sudo is None:
        print(f"Debian's `{package}` is missing and cannot be installed here (needs apt-get as root): {needed_by} "
              "will fail", flush=True)
        return
    print(f"installing Debian's {package} for {needed_by} (once)", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*sudo, apt, "update", "-qq"], check=True, env=env)
    subprocess.run([*sudo, apt, "install", "-y", "-qq", "--no-install-recommends", package], check=True, env=env)


def ensure_chromium() -> None:
    """The browser tests drive Debian's Chromium (or the browser BENCHWRIGHT_CHROMIUM names)."""
    if not (os.environ.get("BENCHWRIGHT_CHROMIUM") or shutil.which("chromium")):
        install_debian_package("chromium", "the browser tests")


def ensure_postgres() -> None:
    """The Dagster-on-PostgreSQL test starts Debian's PostgreSQL server on loopback."""
    from tests.support.postgres import server_binaries  # dependency-free at import

    if server_binaries() is None:
        install_debian_package("postgresql", "the Dagster-on-PostgreSQL test")


QUICK_ANSWERS = ("leaderboards", "show")  # read the analyst snapshot only: scripts/leaderboards.py


def quick_answer(command: str, extra: list[str]) -> list[str]:
    """`leaderboards` / `show`: the command line of scripts/leaderboards.py."""
    return [str(PYTHON), str(ROOT / "scripts" / "leaderboards.py"), command, *extra]


def main_job(command: str, extra: list[str]) -> list[str]:
    """`demo` / `run`: the main job's command line; its runs are tagged benchwright/launched_by=<command>."""
    return [str(PYTHON), str(ROOT / "scripts" / "materialize_all.py"), "--launched-by", command, *extra]


def run_through_ctrl_c(args: list[str], env: dict, stopped_status: int = 0) -> int:
    """`args` in a child process, waited for until it ends: `ui` and `web` serve until Ctrl-C, the main job (`demo`,
    `run`) runs to its end or until Ctrl-C. The terminal sends Ctrl-C to this process and the child alike: the child
    stops by itself, and this process waits for it without a traceback of its own (a second Ctrl-C terminates it, a
    third kills it) and returns `stopped_status` (0 for a server, where stopping is how it ends; 130 for a job that
    did not finish). `kill` (SIGTERM) reaches this process alone: it is passed on to the child, which stops as on
    Ctrl-C, rather than ending this process and leaving the child running unseen."""
    child = subprocess.Popen(args, cwd=ROOT, env=env)
    interrupts = 0
    terminated = False

    def pass_on(signum: int, _frame) -> None:
        nonlocal terminated
        terminated = True
        child.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, pass_on)
    try:
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:
                interrupts += 1
                if interrupts == 2:
                    child.terminate()
                elif interrupts > 2:
                    child.kill()
    finally:
        signal.signal(signal.SIGTERM, previous)
    if (interrupts or terminated) and code in (-signal.SIGINT, -signal.SIGTERM, 130):  # ended by the signal: as asked
        return stopped_status
    return 130 if interrupts and code < 0 else code  # terminated or killed by a further Ctrl-C


def snapshot_command(command: str, extra: list[str]) -> list[str]:
    """`export` and `sql` read the analyst snapshot of BENCHWRIGHT_HOME (scripts/export.py, scripts/sql_shell.py)."""
    script = {"export": "export.py", "sql": "sql_shell.py"}[command]
    return [str(PYTHON), str(ROOT / "scripts" / script), *extra]


def main() -> int:
    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    extra = sys.argv[2:]
    if command not in ("demo", "run", "test", "ui", "web", "compare", "compact-runs", "plan", *QUICK_ANSWERS,
                       "export", "sql"):
        print(__doc__)
        return 0 if command == "help" else 2
    install()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    home = Path(env.setdefault("BENCHWRIGHT_HOME", str(ROOT / ".benchwright")))
    sys.path.insert(0, str(ROOT))
    from resources import prepare_dagster_home  # dependency-free at import: fine before install

    env["DAGSTER_HOME"] = str(prepare_dagster_home(home))
    if command in ("demo", "run"):  # one main job; `demo` is its preset with no options
        return run_through_ctrl_c(main_job(command, extra), env, stopped_status=130)
    elif command == "test":
        ensure_chromium()
        ensure_postgres()
        # Two test processes by default (the machine CI runs on has two cores); BENCHWRIGHT_TEST_WORKERS=1 or
        # your own -n / -p no:xdist to change it.
        workers = [] if any(a.startswith(("-n", "--numprocesses")) or a == "no:xdist" for a in extra) else \
            ["-n", os.environ.get("BENCHWRIGHT_TEST_WORKERS", "2")]
        args = [str(PYTHON), "-m", "pytest", *workers, *(extra or ["-q"])]
    elif command == "compare":
        args = [str(PYTHON), str(ROOT / "scripts" / "compare.py"), *extra]
    elif command in QUICK_ANSWERS:
        args = quick_answer(command, extra)
    elif command == "plan":  # waited for as the main job: stopped, it removes its copy of the home first
        return run_through_ctrl_c([str(PYTHON), str(ROOT / "scripts" / "plan.py"), *extra], env, stopped_status=130)
    elif command in ("export", "sql"):
        args = snapshot_command(command, extra)
    elif command == "compact-runs":
        args = [str(PYTHON), str(ROOT / "scripts" / "compact_runs.py"), *extra]
    elif command == "web":
        if not (home / "analyst.duckdb").exists() and not {"-h", "--help"} & set(extra):
            print("no results yet: materializing the sample first (as `dev.py demo` does)", flush=True)
            if status := run_through_ctrl_c(main_job("demo", []), env, stopped_status=130):
                return status
        return run_through_ctrl_c([str(PYTHON), "-m", "web", *extra], env)
    else:
        return run_through_ctrl_c([str(VENV / "bin" / "dagster"), "dev", "-w", str(ROOT / "workspace.yaml"), *extra], env)
    # The other commands become this process (exec): Ctrl-C, `kill` and the exit status are theirs, as when run
    # directly. Waited for, they were killed 0.25 s after a Ctrl-C (subprocess.call's rule), before their own
    # clean-up: the SQL shell ended instead of dropping the line, the tests' teardown was cut short.
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(ROOT)
    os.execve(args[0], args, env)


if __name__ == "__main__":
    raise SystemExit(main())
