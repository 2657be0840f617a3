"""Take the screenshots in docs/screenshots/ of the game, annotation and leaderboard pages and of the results
explorer (a leaderboard with its intervals, a Creation item).

    .venv/bin/python scripts/screenshots.py [--home .benchwright]

Needs a home where the pipeline has run (`python3.11 dev.py demo`). The pages are served from a temporary
copy of its analyst snapshot, so the screenshot player's actions never reach the real drop folders.
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchwright.paths import ROOT, benchwright_home  # noqa: E402
from tests.support.browser import WebServer, launch  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=benchwright_home())
    args = parser.parse_args()
    snapshot = args.home / "analyst.duckdb"
    if not snapshot.exists():
        sys.exit(f"no analyst snapshot at {snapshot}: run `python3.11 dev.py demo` first")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        shutil.copy(snapshot, home / "analyst.duckdb")
        server = WebServer(home).start()
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                page = browser.new_page(base_url=server.url, viewport={"width": 1100, "height": 720})
                page.goto("/join")
                page.fill("#name", "demo_player")
                page.click("button[type=submit]")
                page.goto("/game")
                page.click("#start")
                page.fill("#question", "How many circles are in the image?")
                page.click("#ask")
                page.wait_for_selector("#model-answer")
                page.screenshot(path=OUT / "game.png")
                page.goto("/annotate")
                page.click("#start")
                page.wait_for_selector("#left-answer")
                page.screenshot(path=OUT / "annotation.png", full_page=True)
                page.goto("/leaderboard")
                page.screenshot(path=OUT / "leaderboard.png")
                page.goto("/explore/ratings?judge=sim-fair-judge&control=style")
                page.screenshot(path=OUT / "explorer_ratings.png")
                page.goto("/explore/creation/items/lw-001")
                page.locator("section.model .verdicts").first.scroll_into_view_if_needed()
                page.screenshot(path=OUT / "explorer_item.png")
                browser.close()
        finally:
            server.stop()
    print(f"wrote {', '.join(p.name for p in sorted(OUT.glob('*.png')))} to {OUT}")


if __name__ == "__main__":
    main()
