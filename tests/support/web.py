"""A small published home for web tests, built straight into the warehouse (seconds, no pipeline run),
and a fake clock for the game's timer."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from benchwright.gap.images import generate_images
from resources import default_resources

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class FakeClock:
    def __init__(self, start: float = 1_795_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _generation(benchmark: str, model: str, item_id: str, response: str) -> dict:
    return {"benchmark": benchmark, "model": model, "item_id": item_id, "variant": "vision", "sample_index": 0,
            "response": response, "error": None, "request_key": f"k-{benchmark}-{model}-{item_id}",
            "prompt_version": "test", "pii_redactions": 0, "simulated": True}


def build_small_home(home: Path, answer_text: str = "An answer") -> None:
    """GAP images (8 + 8), two Creation items and two URS items with answers, one leaderboard row; published."""
    warehouse = default_resources(home=home)["warehouse"]
    images = generate_images(8, 8, seed=3)
    warehouse.add_new_rows("images", pd.DataFrame([{"sha256": i.image.sha256, "mime": i.image.mime, "width": i.image.width,
                                                    "height": i.image.height, "data": i.image.data} for i in images]),
                           key=["sha256"])
    warehouse.replace_rows("gap_images", pd.DataFrame([{"image_id": i.image_id, "image_set": i.image_set,
                                                         "sha256": i.image.sha256, "truth": i.truth_json()} for i in images]), {})
    creation = [{"item_id": f"c{k}", "dataset": "test", "category": "Literary Writing", "task": "story", "role": "a writer",
                 "background": "for a class", "instruction": f"Write about picture {k}.", "requirements": ["Be brief."],
                 "subjective_criteria": "1. Story\n1.1 It has an end.", "visual_factuality_criteria": "1. The circle is red.",
                 "ground_truth": None, "reference_answer": None, "image_hashes": [images[k].image.sha256]} for k in range(2)]
    warehouse.replace_rows("creation_items", pd.DataFrame(creation), {})
    warehouse.replace_rows("creation_references", pd.DataFrame(
        [{"item_id": f"c{k}", "baseline": "sim-baseline", "answer": f"{answer_text} (sim-baseline {k})", "error": None,
          "request_key": f"r{k}", "simulated": True} for k in range(2)]), {})
    urs = [{"item_id": f"u{k}", "dataset": "test", "intent": "Factual QA", "language": "en", "question": f"Question {k}?",
            "reference_answer": None, "source_intent": "Factual QA", "source_row": k + 1, "pii_redactions": 0} for k in range(2)]
    warehouse.replace_rows("urs_items", pd.DataFrame(urs), {})
    gens = [_generation("creation", m, f"c{k}", f"{answer_text} ({m} {k})") for m in ("sim-strong", "sim-weak") for k in range(2)]
    gens += [_generation("urs", m, f"u{k}", f"{answer_text} ({m} {k})") for m in ("sim-strong", "sim-weak") for k in range(2)]
    warehouse.replace_rows("generations", pd.DataFrame(gens), {})
    warehouse.replace_rows("gap_weekly_leaderboard", pd.DataFrame([{"week": "2026-W47", "player_id": "earlier", "points": 40,
                                                                    "rank": 1}]), {})
    warehouse.replace_rows("urs_human_pairwise", pd.DataFrame([{"item_id": "u0", "model_a": "sim-strong", "model_b": "sim-weak",
                                                                "winner": "A", "annotator": "earlier_annotator",
                                                                "source_file": "x.csv"}]), {})
    warehouse.publish_snapshot()


def csrf_of(client, page: str) -> str:
    return CSRF.search(client.get(page).get_data(as_text=True)).group(1)


def join(client, name: str) -> str:
    """Join as `name` through the form; returns the token the page showed once."""
    response = client.post("/join", data={"csrf": csrf_of(client, "/join"), "name": name})
    assert response.status_code == 200, response.get_data(as_text=True)[-500:]
    return re.search(r'<code id="token">([^<]+)</code>', response.get_data(as_text=True)).group(1)
