"""Serve the game and annotation pages on localhost: `python -m web [--port 8000]` (see README)."""

import argparse
import logging

from benchwright import annotation, gap


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m web", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: localhost only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--time-limit", type=float, default=gap.TIME_LIMIT_S, help="seconds per picture")
    parser.add_argument("--p-planted", type=float, default=gap.DEFAULT_P_PLANTED,
                        help="probability that a question on a tainted picture gets a planted mistake")
    parser.add_argument("--model", default="", help="registry slug of the game's model (default: the describer)")
    parser.add_argument("--round-size", type=int, default=annotation.ROUND_SIZE, help="comparisons per annotation round")
    args = parser.parse_args()
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
