"""Small drops as the web app leaves them (web/app.py): one game round, one annotation round. Used by
tests/integration/test_incremental.py and bench/small_drops.py."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from benchwright.gap.game import PlannedImage, mark_record
from benchwright.human_pairwise import COLUMNS
from benchwright.paths import ROOT


def write_game_round(warehouse, folder: Path, player: str = "newcomer") -> Path:
    """One image of a new player's session: the three marks of the first tainted image the sample's players saw,
    in the game's file (`gap-<session>-<NN>.jsonl`, one per image) with `game.mark_record`'s lines."""
    marks = warehouse.query("SELECT * FROM gap_marks WHERE tainted ORDER BY session_id, image_order, question_index "
                            "LIMIT 3")
    image = PlannedImage(order=1, image_id=marks["image_id"].iloc[0], tainted=True, sha256="")
    lines = [json.dumps(mark_record(session_id=f"{player}-s0", player_id=player, session_start="2026-11-25T09:00:00",
                                    image=image, limit=float(m["time_limit_s"]), question_index=int(m["question_index"]),
                                    question=m["question"], model_answer=m["model_answer"],
                                    instructed_wrong=bool(m["instructed_wrong"]), mark=m["player_mark"],
                                    seconds_taken=float(m["seconds_taken"])))
             for m in marks.to_dict("records")]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"gap-{player}-s0-01.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def write_annotation_round(folder: Path, annotator: str = "newcomer") -> Path:
    """Three URS choices of a new annotator on the sample's first three URS pairs, in the annotation page's file
    (`annotation-<round>.csv`, header `human_pairwise.COLUMNS`)."""
    with (ROOT / "sample_data" / "urs" / "human_pairwise.csv").open(newline="") as f:
        sample = list(csv.DictReader(f))[:3]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"annotation-round-{annotator}.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        for position, row in enumerate(sample, start=1):
            writer.writerow({"benchmark": "urs", "item_id": row["item_id"], "model_a": row["model_a"],
                             "model_b": row["model_b"], "winner": row["winner"], "annotator": annotator,
                             "item_position": position, "round_id": f"round-{annotator}",
                             "recorded_at": "2026-11-25T09:00:00Z", "seconds_taken": 20})
    return path
