"""Human-labelled pairwise sets with one judge's outputs in both orders.

Two layouts are read. In both, the pair's first response takes the baseline's place (position A in
order 1) and the second response the candidate's, so the rows fit ``creation_pairwise_judgments``;
``model`` is the dataset's name (the responses come from many models) and human labels go to
``interop_human_labels`` with label 'first' / 'second' / 'tie' and value −1 / +1 / 0 (the second
response's side, METHODS §1.5).

**Auto-J triple** (GAIR-NLP/auto-j, ``codes/leaderboard``):
- the labelled pairs, JSONL: ``scenario``, ``label`` (0 = response 1 better, 1 = response 2,
  2 = tie), ``prompt``, ``response 1``, ``response 2``;
- the judge's outputs in the original order, JSONL ``{"output": 0|1|2}`` in the same meaning;
- the judge's outputs with the two responses swapped, same format, *not* mapped back: there 0 means
  the response shown first (response 2) is better.
The three files must have the same number of lines. ``item_id`` is the pair's line number. An
optional scenario → group mapping (Auto-J's ``scenario_groups.json``) sets ``item_group``; without
it the group is the scenario. An output of null is an unparsed judgment; any other value outside
0/1/2 is a format error.

**LLMBar** ``result.json`` (princeton-nlp/LLMBar, ``Dataset/<set>/evaluators/<evaluator>/``): a
JSON array of records with ``input``, ``output_1``, ``output_2``, ``label`` (1 or 2) and
``results``, whose *last* element holds ``"swap = False"`` and ``"swap = True"``, each with a
``winner`` already mapped back to the original outputs ("1", "2", or null when LLMBar's parser found
nothing) and usually the judge's ``completion``. ``item_id`` is the record's position (1-based).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from benchwright.agreement import FIRST, LABEL_VALUE, SECOND, TIE
from benchwright.importers import (
    HUMAN_LABEL_COLUMNS,
    ImportedSet,
    ImportFormatError,
    iter_json_array,
    iter_jsonl,
    judgment_row,
    judgments_frame,
    require,
    source_name,
    text_length,
)

AUTO_J = "auto_j"
LLMBAR = "llmbar"

# Auto-J labels and outputs: which response is better, in the order the judge saw them.
_AUTO_J_LABEL = {0: FIRST, 1: SECOND, 2: TIE}
# A judge output as a displayed verdict: 0 = the response shown in A is better, 1 = the one in B.
_DISPLAYED_VERDICT = {0: "A>B", 1: "B>A", 2: "A=B"}


def _human_row(source: str, item_id: str, group: str, annotator: str, label: str) -> dict:
    return {"source": source, "item_id": item_id, "item_group": group, "annotator": annotator,
            "label": label, "value": LABEL_VALUE[label]}


def _auto_j_output(record: object, path: Path, line: int) -> int | None:
    if not isinstance(record, dict) or "output" not in record:
        raise ImportFormatError(path, line, "expected an object with an 'output' field")
    value = record["output"]
    if value is None:
        return None
    if isinstance(value, bool) or value not in (0, 1, 2):
        raise ImportFormatError(path, line, f"output must be 0, 1, 2 or null, found {value!r:.40}")
    return int(value)


def load_scenario_groups(path: str | Path) -> dict[str, str]:
    """Scenario → group from a JSON object ``{group: [scenario, ...]}`` (Auto-J's scenario_groups.json)."""
    path = Path(path)
    try:
        groups = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ImportFormatError(path, getattr(error, "lineno", None), f"cannot be read as JSON: {error}") from error
    if not isinstance(groups, dict) or not all(isinstance(v, list) for v in groups.values()):
        raise ImportFormatError(path, 1, "expected an object mapping each group to a list of scenarios")
    return {scenario: group for group, scenarios in groups.items() for scenario in scenarios}


def import_auto_j(pairs_path: str | Path, original_path: str | Path, swapped_path: str | Path,
                  judge: str, dataset: str | None = None, scenario_groups: dict[str, str] | None = None) -> ImportedSet:
    """The Auto-J triple as one source ``auto_j:<dataset>`` (default dataset: the pairs file's stem)."""
    pairs_path, original_path, swapped_path = Path(pairs_path), Path(original_path), Path(swapped_path)
    dataset = dataset or pairs_path.stem
    source = source_name(AUTO_J, dataset)
    pairs = list(iter_jsonl(pairs_path))
    outputs = {1: list(iter_jsonl(original_path)), 2: list(iter_jsonl(swapped_path))}
    for order, path in ((1, original_path), (2, swapped_path)):
        if len(outputs[order]) != len(pairs):
            shorter = min(len(outputs[order]), len(pairs))
            line = (outputs[order][shorter][0] if len(outputs[order]) > shorter else pairs[shorter][0])
            raise ImportFormatError(path if len(outputs[order]) > shorter else pairs_path, line,
                                    f"{path.name} has {len(outputs[order])} outputs but {pairs_path.name} has "
                                    f"{len(pairs)} pairs; the files must match line for line")

    judgments, humans = [], []
    for index, (line, pair) in enumerate(pairs):
        item_id = str(index + 1)
        label = require(pair, pairs_path, line, "label", (int,), "0, 1 or 2")
        if label not in _AUTO_J_LABEL:
            raise ImportFormatError(pairs_path, line, f"label must be 0, 1 or 2, found {label!r}")
        scenario = require(pair, pairs_path, line, "scenario", (str,), "the scenario name")
        first, second = pair.get("response 1"), pair.get("response 2")
        if scenario_groups is not None:
            if scenario not in scenario_groups:
                raise ImportFormatError(pairs_path, line, f"scenario {scenario!r} is in no group of the mapping")
            group = scenario_groups[scenario]
        else:
            group = scenario
        humans.append(_human_row(source, item_id, group, "human", _AUTO_J_LABEL[label]))
        for order, path in ((1, original_path), (2, swapped_path)):
            out_line, record = outputs[order][index]
            value = _auto_j_output(record, path, out_line)
            judgments.append(judgment_row(
                source=source, model=dataset, judge=judge, item_id=item_id, judge_order=order,
                verdict=_DISPLAYED_VERDICT[value] if value is not None else None, raw_text=json.dumps(record),
                candidate_len=text_length(second), baseline_len=text_length(first)))
    return ImportedSet(importer=AUTO_J, dataset=dataset, judgments=judgments_frame(judgments),
                       human_labels=pd.DataFrame(humans, columns=HUMAN_LABEL_COLUMNS),
                       files=[str(pairs_path), str(original_path), str(swapped_path)],
                       notes=["swapped outputs read in displayed positions (not re-mapped by the source)"])


def llmbar_names(result_path: str | Path) -> tuple[str, str]:
    """(dataset, judge) from LLMBar's layout ``.../Dataset/<set...>/evaluators/<model>/<method>/result.json``."""
    parts = Path(result_path).parts
    if "evaluators" not in parts or "Dataset" not in parts:
        raise ImportFormatError(result_path, None, "not in LLMBar's layout Dataset/<set>/evaluators/<judge>/result.json")
    data_at, eval_at = parts.index("Dataset"), len(parts) - 1 - parts[::-1].index("evaluators")
    dataset, judge = "/".join(parts[data_at + 1:eval_at]), "/".join(parts[eval_at + 1:-1])
    if not dataset or not judge:
        raise ImportFormatError(result_path, None, "not in LLMBar's layout Dataset/<set>/evaluators/<judge>/result.json")
    return dataset, judge


def _llmbar_winner(side: object, path: Path, line: int, key: str) -> tuple[str | None, str | None]:
    """(winner '1' | '2' | None, the judge's text) of one order."""
    if not isinstance(side, dict) or "winner" not in side:
        raise ImportFormatError(path, line, f"{key!r} must be an object with a 'winner'")
    winner = side["winner"]
    if winner not in ("1", "2", None):
        raise ImportFormatError(path, line, f"{key!r}: winner must be \"1\", \"2\" or null, found {winner!r:.40}")
    completion = side.get("completion")
    if isinstance(completion, list) and completion and isinstance(completion[0], str):
        text = completion[0]
    else:
        text = json.dumps(side, ensure_ascii=False)
    return winner, text


def parse_llmbar_result(path: str | Path, dataset: str, judge: str) -> tuple[list[dict], list[dict]]:
    """(judgment rows, human label rows) of one result.json."""
    path = Path(path)
    source = source_name(LLMBAR, dataset)
    judgments, humans = [], []
    for index, (line, record) in enumerate(iter_json_array(path)):
        item_id = str(index + 1)
        label = require(record, path, line, "label", (int,), "1 or 2")
        if label not in (1, 2):
            raise ImportFormatError(path, line, f"label must be 1 or 2, found {label!r}")
        results = require(record, path, line, "results", (list,), "a list of evaluator results")
        final = results[-1] if results else None
        if not isinstance(final, dict) or "swap = False" not in final or "swap = True" not in final:
            raise ImportFormatError(path, line, "the last element of 'results' must hold 'swap = False' and 'swap = True'")
        humans.append({**_human_row(source, item_id, dataset, "gold", FIRST if label == 1 else SECOND), "_line": line})
        first, second = record.get("output_1"), record.get("output_2")
        for order, key in ((1, "swap = False"), (2, "swap = True")):
            winner, text = _llmbar_winner(final[key], path, line, key)
            # Winners name the original output; order 1 shows output_1 in A, order 2 shows it in B.
            first_shown_in = "A" if order == 1 else "B"
            if winner is None:
                verdict = None
            elif (winner == "1") == (first_shown_in == "A"):
                verdict = "A>B"
            else:
                verdict = "B>A"
            judgments.append(judgment_row(source=source, model=dataset, judge=judge, item_id=item_id,
                                          judge_order=order, verdict=verdict, raw_text=text,
                                          candidate_len=text_length(second), baseline_len=text_length(first)))
    return judgments, humans


def import_llmbar(paths: list[str | Path]) -> list[ImportedSet]:
    """Every result.json parsed (dataset and judge from LLMBar's folder layout); one ImportedSet per dataset.

    Runs of the same dataset must carry the same gold label for each item; a difference is a format
    error naming the file and line.
    """
    if not paths:
        raise ValueError("no LLMBar result.json files given")
    by_dataset: dict[str, dict] = {}
    for path in sorted(Path(p) for p in paths):
        dataset, judge = llmbar_names(path)
        judgments, humans = parse_llmbar_result(path, dataset, judge)
        group = by_dataset.setdefault(dataset, {"judgments": [], "humans": None, "files": [], "labels_from": path})
        if group["humans"] is None:
            group["humans"] = [{k: v for k, v in h.items() if k != "_line"} for h in humans]
        else:
            known = {h["item_id"]: h["label"] for h in group["humans"]}
            differing = [h for h in humans if known.get(h["item_id"]) != h["label"]]
            if differing or len(known) != len(humans):
                line = differing[0]["_line"] if differing else None
                raise ImportFormatError(path, line, f"items or gold labels differ from {group['labels_from']} "
                                                    f"({len(known)} items) for the same dataset {dataset!r}")
        group["judgments"] += judgments
        group["files"].append(str(path))
    return [ImportedSet(importer=LLMBAR, dataset=dataset, judgments=judgments_frame(group["judgments"]),
                        human_labels=pd.DataFrame(group["humans"], columns=HUMAN_LABEL_COLUMNS), files=group["files"],
                        notes=["winners are mapped back to the original outputs by LLMBar; the gold label is "
                               "the dataset's"])
            for dataset, group in sorted(by_dataset.items())]
