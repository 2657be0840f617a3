"""Serve the game and annotation pages on localhost: `python -m web [--port 8000]` (see README).

Operator: `python -m web --new-token HANDLE` gives a person who lost their token (or whose token leaked) a
new one, signs out every browser of theirs, prints the token once and exits.
"""

import argparse
import logging

from benchwright import annotation, people
from benchwright.gap import logs, reliability


def new_token(handle: str) -> str | None:
    """A new token for `handle` in this BENCHWRIGHT_HOME's web state (all their logins end), or None when
    there is no such person."""
    from benchwright.paths import benchwright_home
    from web.store import Store, state_path

    token = people.new_token()
    return token if Store(state_path(benchwright_home())).set_token(handle, people.token_digest(token)) else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m web", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: localhost only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--time-limit", type=float, default=logs.TIME_LIMIT_S, help="seconds per picture")
    parser.add_argument("--p-planted", type=float, default=reliability.DEFAULT_P_PLANTED,
                        help="probability that a question on a tainted picture gets a planted mistake")
    parser.add_argument("--model", default="", help="registry slug of the game's model (default: the describer)")
    parser.add_argument("--round-size", type=int, default=annotation.ROUND_SIZE, help="comparisons per annotation round")
    parser.add_argument("--new-token", metavar="HANDLE",
                        help="give HANDLE a new token, sign out all their browsers, print the token and exit")
    args = parser.parse_args(argv)
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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from waitress import serve

    from web.app import create_app

    app = create_app(time_limit_s=args.time_limit, p_planted=args.p_planted, game_model=args.model,
                     round_size=args.round_size)
    logging.getLogger("benchwright.web").info("serving on http://%s:%d/", args.host, args.port)
    serve(app, host=args.host, port=args.port, threads=8)


if __name__ == "__main__":
    main()
