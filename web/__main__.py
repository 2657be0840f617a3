"""Serve the game and annotation pages on localhost: `python -m web [--port 8000]` (see README).

Analysts: `python -m web --explorer-only [--port 8001]` serves the results explorer alone, with the game's records
(planted answers, players' marks) that the game's server must not show its players; no game, no sign-in, no
annotation, nothing written.

Operator: `python -m web --new-token HANDLE` gives a person who lost their token (or whose token leaked) a
new one, signs out every browser of theirs, prints the token once and exits.

Limits for a shared server (`server_settings`): every open connection, busy or idle, takes one of
`--connection-limit` slots (default 1000); when all are taken waitress stops accepting, and a newcomer waits
in the kernel's queue until one frees. Browsers keep an idle keep-alive connection open for minutes, so with
waitress's defaults (100 slots, idle ones closed after 120 s, looked for every 30 s) about 100 browsers, or
anyone opening 100 sockets, locked everybody else out for up to 150 s. Here an idle connection is closed
after `--idle-timeout` seconds (default 30; a browser simply opens a new one), looked for every 5 s, and the
event loop uses poll(), since select() cannot watch a descriptor above 1023. The process's open-file limit is
raised to fit (up to the hard limit; when that is too low the connection limit is lowered, with a warning).
A connection still sending a request, however slowly, is not idle: for the open internet put a reverse proxy
in front.
"""

import argparse
import faulthandler
import logging
import resource
import select
import signal

from benchwright import annotation, people
from benchwright.gap import logs, reliability


def new_token(handle: str) -> str | None:
    """A new token for `handle` in this BENCHWRIGHT_HOME's web state (all their logins end), or None when
    there is no such person."""
    from benchwright.paths import benchwright_home
    from web.store import Store, state_path

    token = people.new_token()
    return token if Store(state_path(benchwright_home())).set_token(handle, people.token_digest(token)) else None


GAME_PORT, EXPLORER_PORT = 8000, 8001  # two defaults, so the game and the analyst server can run side by side
CONNECTION_LIMIT = 1000
IDLE_TIMEOUT_S = 30
CLEANUP_INTERVAL_S = 5
THREADS = 8
# Descriptors the process needs besides its connections: the listening sockets, the state and cache files,
# DuckDB's snapshot reads, litellm's HTTP clients, a connection's buffer spilled to a temporary file.
SPARE_FILES = 256

log = logging.getLogger("benchwright.web")


def server_settings(connection_limit: int = CONNECTION_LIMIT, idle_timeout_s: int = IDLE_TIMEOUT_S) -> dict:
    """waitress's options for a server shared by many browsers (module docstring); raises this process's
    open-file limit so `connection_limit` connections fit, or lowers the limit to what fits."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = connection_limit + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < needed:
        wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    if soft != resource.RLIM_INFINITY and soft < needed:
        fitting = max(soft - SPARE_FILES, 10)
        log.warning("open-file limit %d (hard limit %s) fits %d connections, not %d; serving at most %d",
                    soft, hard, fitting, connection_limit, fitting)
        connection_limit = fitting
    return {"threads": THREADS, "connection_limit": connection_limit, "channel_timeout": idle_timeout_s,
            "cleanup_interval": min(CLEANUP_INTERVAL_S, idle_timeout_s),
            "asyncore_use_poll": hasattr(select, "poll")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m web", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: localhost only)")
    parser.add_argument("--port", type=int, default=None,
                        help=f"default {GAME_PORT}, or {EXPLORER_PORT} with --explorer-only")
    parser.add_argument("--explorer-only", action="store_true",
                        help="the analyst server: only the results explorer, with the game's records (planted answers, "
                             "players' marks); no game, no sign-in, no annotation, nothing written")
    parser.add_argument("--time-limit", type=float, default=logs.TIME_LIMIT_S, help="seconds per picture")
    parser.add_argument("--p-planted", type=float, default=reliability.DEFAULT_P_PLANTED,
                        help="probability that a question on a tainted picture gets a planted mistake")
    parser.add_argument("--model", default="", help="registry slug of the game's model (default: the describer)")
    parser.add_argument("--round-size", type=int, default=annotation.ROUND_SIZE, help="comparisons per annotation round")
    parser.add_argument("--connection-limit", type=int, default=CONNECTION_LIMIT,
                        help=f"open connections served at once, idle ones included (default {CONNECTION_LIMIT})")
    parser.add_argument("--idle-timeout", type=int, default=IDLE_TIMEOUT_S,
                        help=f"seconds before an idle connection is closed (default {IDLE_TIMEOUT_S})")
    parser.add_argument("--new-token", metavar="HANDLE",
                        help="give HANDLE a new token, sign out all their browsers, print the token and exit")
    args = parser.parse_args(argv)
    if args.explorer_only and args.new_token is not None:
        parser.error("--new-token is for the game's server, which keeps people's tokens; not with --explorer-only")
    port = args.port if args.port is not None else (EXPLORER_PORT if args.explorer_only else GAME_PORT)
    if args.new_token is not None:
        token = new_token(args.new_token)
        if token is None:
            parser.error(f"there is no person named {args.new_token!r}")
        print(f"New token for {args.new_token} (give it to them; it is shown only now): {token}")
        return
    if not args.time_limit > 0:
        parser.error("--time-limit must be a positive number of seconds")
    if not 0 <= args.p_planted <= 1:
        parser.error("--p-planted must be a probability in [0, 1]")
    if args.round_size < 1:
        parser.error("--round-size must be at least 1")
    if args.connection_limit < 1:
        parser.error("--connection-limit must be at least 1")
    if args.idle_timeout < 1:
        parser.error("--idle-timeout must be at least 1 second")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from waitress import serve

    from web.app import create_app

    if args.explorer_only:
        app = create_app(explorer_only=True)
    else:
        app = create_app(time_limit_s=args.time_limit, p_planted=args.p_planted, game_model=args.model,
                         round_size=args.round_size)
    settings = server_settings(args.connection_limit, args.idle_timeout)
    log.info("serving %s on http://%s:%d/ (at most %d connections, idle ones closed after %d s)",
             "the results explorer alone (analyst server: the game's records shown)" if args.explorer_only
             else "the game, annotation and results explorer", args.host, port, settings["connection_limit"],
             settings["channel_timeout"])
    serve(app, host=args.host, port=port, **settings)  # waitress ends quietly on Ctrl-C
    log.info("stopped")


def stop_quietly_on_ctrl_c(run) -> int:
    """`run()`, ended by Ctrl-C without a traceback (while it starts, say: waitress handles it once serving):
    stopping the server is how a person ends it, not a fault."""
    try:
        run()
    except KeyboardInterrupt:
        log.info("stopped (Ctrl-C)")
    return 0


if __name__ == "__main__":
    # `kill -USR1 <pid>` prints every thread's stack to stderr: how to see why a server will not stop.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    # Ctrl-C stops the server even when it was started from a process that ignores SIGINT (a job a script put in
    # the background: Python then leaves SIGINT ignored, and the server could only be killed).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raise SystemExit(stop_quietly_on_ctrl_c(main))
