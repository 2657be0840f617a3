"""The analyst view of annotators' side habits, checked against the choices it is computed from."""

import random

import duckdb
import pandas as pd

from benchwright import annotation
from resources.warehouse import Warehouse


def test_share_left_preferred_counts_decided_choices_by_the_side_they_were_shown_on(tmp_path):
    rng = random.Random(7)
    pairs = [annotation.Pair("creation", f"c{k}", "base", "cand") for k in range(40)]
    records = []
    for person, habit in (("leftie", 0.9), ("fair", 0.5)):
        for task in annotation.plan_round(pairs, rng, size=40):
            choice = rng.choice(["same", "cannot_tell"]) if rng.random() < 0.2 else \
                ("left_better" if rng.random() < habit else "right_much_better")
            records.append(annotation.choice_record(task, choice, annotator=person, round_id=person,
                                                    recorded_at="2026-11-22T10:00:00+00:00", seconds_taken=3.0))
    frame = pd.DataFrame(records).assign(value=None, source_file="f.csv")
    warehouse = Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "a.duckdb"))
    warehouse.replace_rows("creation_human_pairwise", frame, match={})
    warehouse.publish_snapshot()
    con = duckdb.connect(str(tmp_path / "a.duckdb"), read_only=True)
    view = con.execute("SELECT * FROM human_annotator_sides").df().set_index("annotator")
    con.close()
    for person, group in frame.groupby("annotator"):
        decided = group[group["winner"].isin(["A", "B"])]
        left_won = ((decided["winner"] == "A") == (decided["left_model"] == decided["model_a"])).mean()
        assert view.at[person, "decided"] == len(decided)
        assert abs(view.at[person, "share_left_preferred"] - left_won) < 1e-12
        assert abs(view.at[person, "share_cannot_tell"] - (group["winner"] == "undetermined").mean()) < 1e-12
    assert view.at["leftie", "share_left_preferred"] > 0.75 > view.at["fair", "share_left_preferred"]
