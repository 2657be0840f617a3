"""Dataset assets: benchmark items loaded, validated and stored (images normalized and hashed)."""


from pathlib import Path

import dagster as dg
import pandas as pd

from assets.common import table_metadata
from benchwright.datasets.creation import load_creation_jsonl, load_creation_tsv, normalize_item_images
from benchwright.pii import redact
from resources import ROOT
from resources.warehouse import Warehouse

CREATION_TEXT_FIELDS = ("role", "background", "instruction", "subjective_criteria", "visual_factuality_criteria",
                        "ground_truth", "reference_answer")


class CreationDatasetConfig(dg.Config):
    path: str = "sample_data/creation/items.jsonl"
    """JSONL (our layout) or TSV (the benchmark's published layout); relative to the repo root."""


@dg.asset(
    group_name="datasets",
    code_version="1",
    # On a fresh instance the daemon loads the sample by itself; later loads are a click or the main job.
    automation_condition=dg.AutomationCondition.on_missing(),
    kinds={"duckdb"},
    description="Creation items (METHODS §1.1) from the configured file. Images are verified with Pillow, "
                "normalized and content-hashed into `images`; an item with a corrupt image is recorded in "
                "`dataset_problems` and skipped, not the run. Personal data in item text is redacted.",
)
def creation_items(context: dg.AssetExecutionContext, config: CreationDatasetConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    path = Path(config.path)
    path = path if path.is_absolute() else ROOT / path
    loaded = load_creation_tsv(path) if path.suffix.lower() == ".tsv" else load_creation_jsonl(path)
    problems = [{"location": p.location, "reason": p.reason} for p in loaded.problems]
    item_rows, image_rows, redactions = [], {}, 0
    for item in loaded.items:
        images, problem = normalize_item_images(item)
        if problem:
            problems.append({"location": f"{path.name}: item {item.item_id}", "reason": problem})
            continue
        row = item.to_row()
        for field in CREATION_TEXT_FIELDS:
            row[field], found = redact(row.get(field))
            redactions += len(found)
        row["requirements"] = [redact(r)[0] for r in row["requirements"]]
        row["image_hashes"] = [img.sha256 for img in images]
        row["dataset"] = path.name
        item_rows.append(row)
        for img in images:
            image_rows[img.sha256] = {"sha256": img.sha256, "mime": img.mime, "width": img.width,
                                      "height": img.height, "data": img.data}
    for problem in problems:
        context.log.warning(f"skipped {problem['location']}: {problem['reason']}")

    items_df = pd.DataFrame(item_rows)
    if items_df.empty:
        raise dg.Failure(f"No usable Creation items in {path} ({len(problems)} problems; first: {problems[:1]})")
    items_df = items_df.drop(columns=["images"], errors="ignore")
    new_images = warehouse.add_new_rows("images", pd.DataFrame(list(image_rows.values())), key=["sha256"])
    warehouse.replace_rows("creation_items", items_df, match={})
    problems_df = pd.DataFrame(problems, columns=["location", "reason"]).assign(benchmark="creation", dataset=path.name)
    warehouse.replace_rows("dataset_problems", problems_df, match={"benchmark": "creation"})
    context.log.info(f"{len(items_df)} items, {len(image_rows)} images ({new_images} new), {len(problems)} problems")
    return dg.MaterializeResult(metadata=table_metadata(
        items_df, ["item_id", "category", "task", "instruction"],
        images=len(image_rows), new_images=new_images, problems=len(problems), pii_redactions=redactions,
        categories=dg.MetadataValue.json(items_df["category"].value_counts().to_dict()),
        source=str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
    ))
