"""assets.common.rows_version: an asset's data version follows the rows it wrote, whatever their order, and
only the part of a shared table it owns."""

import pandas as pd

from assets.common import rows_version
from resources.warehouse import Warehouse

ENGAGEMENT = pd.DataFrame({"measure": ["images_per_session", "images_per_session", "tainted_accuracy"],
                           "bucket": [1.0, 2.0, 0.5], "count": [3, 1, 2]})


def problems(dataset: str, *reasons: str) -> pd.DataFrame:
    return pd.DataFrame({"benchmark": "gap", "dataset": dataset, "location": [f"f:{i}" for i in range(len(reasons))],
                         "reason": list(reasons)})


def test_same_rows_in_any_order_give_the_same_version_and_any_change_another(tmp_path):
    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    warehouse.write_tables([("gap_engagement", ENGAGEMENT, {})])
    first = rows_version(warehouse, ["gap_engagement"])
    warehouse.write_tables([("gap_engagement", pd.DataFrame(ENGAGEMENT.to_dict("records")[::-1]), {})])
    assert rows_version(warehouse, ["gap_engagement"]) == first
    changed = ENGAGEMENT.assign(count=[3, 1, 3])
    warehouse.write_tables([("gap_engagement", changed, {})])
    assert rows_version(warehouse, ["gap_engagement"]) != first
    warehouse.write_tables([("gap_engagement", ENGAGEMENT.head(2).copy(), {})])  # a row less
    assert rows_version(warehouse, ["gap_engagement"]) not in (first, rows_version(warehouse, []))


def test_an_owned_part_of_a_shared_table_ignores_the_other_owners_rows(tmp_path):
    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    owned = [("dataset_problems", {"benchmark": "gap", "dataset": "vqa"})]
    warehouse.write_tables([("dataset_problems", problems("vqa", "no label"), {"benchmark": "gap", "dataset": "vqa"})])
    first = rows_version(warehouse, owned)
    warehouse.write_tables([("dataset_problems", problems("game_logs", "duplicate", "torn line"),
                             {"benchmark": "gap", "dataset": "game_logs"})])
    assert rows_version(warehouse, owned) == first
    assert rows_version(warehouse, ["dataset_problems"]) != rows_version(warehouse, owned)
    warehouse.write_tables([("dataset_problems", problems("vqa", "no label", "bad category"),
                             {"benchmark": "gap", "dataset": "vqa"})])
    assert rows_version(warehouse, owned) != first
