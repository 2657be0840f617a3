"""Human-labelled pairwise sets with one judge's outputs in both orders.

Two layouts are read. In both, the pair's first response takes the baseline's place (position A in
order 1) and the second response the candidate's, so the rows fit ``creation_pairwise_judgments``;
``model`` is the dataset's name (the responses come from many models) and human labels go to
``interop_human_labels`` with label 'first' / 'second' / 'tie' and value −1 / +1 / 0 (the second
response's side, benchwright/creation/README.md#human-alignment).

**Auto-J triple** (GAIR-NLP/auto-j, ``codes/leaderboard``):
- the labelled pairs, JSONL: ``scenario``, ``label`` (0 = response 1 better, 1 = response 2,
  2 = tie), ``prompt``, ``response 1``, ``response 2``;
- the judge's outputs in the original order, JSONL ``{"output": 0|1|2}`` in the same meaning;
- the judge's outputs with the two responses swapped, same format, *not* mapped back: there 0 means
  the response shown first (response 2) is better.
Line i of each output file answers the pair on line i: the outputs hold nothing else, so the line is the
key the three files are matched by (not the count of records read). A blank line before a file's last record
is that record missing in its place, and a file that ends early lacks the records after its end: each is a
located problem taking out its own judgment (or, in the pairs file, its item), never the import; an output
past the pairs file's end is one too. A line deleted before the end would shift the lines after it, which no
key can show: the notes say when the files end at different lines. ``item_id`` is the pair's line. An optional scenario → group mapping
(Auto-J's ``scenario_groups.json``) sets ``item_group``; without it the group is the scenario. An
output of null is an unparsed judgment. A bad line (invalid JSON, bytes that are not UTF-8, a label
or output outside 0/1/2, a missing field, a scenario in no group) is refused as a located problem:
a bad pair takes its item out (its two outputs are not used), a bad output takes out that order's
judgment only.

**LLMBar** ``result.json`` (princeton-nlp/LLMBar, ``Dataset/<set>/evaluators/<evaluator>/``): a
JSON array of records with ``input``, ``output_1``, ``output_2``, ``label`` (1 or 2) and
``results``, whose *last* element holds ``"swap = False"`` and ``"swap = True"``, each with a
``winner`` already mapped back to the original outputs ("1", "2", or null when LLMBar's parser found
nothing) and usually the judge's ``completion``. ``item_id`` is the record's position (1-based). A
bad record (invalid JSON, bytes that are not UTF-8, a label other than 1/2, results without both
orders) is refused as a located problem and the others are imported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from benchwright.agreement import FIRST, LABEL_VALUE, SECOND, TIE
from benchwright.importers import (
    HUMAN_LABEL_COLUMNS,
    SKIPPED,
    ImportedSet,
    ImportFormatError,
    LoadProblem,
    iter_json_array,
    jsonl_records,
    judgment_row,
    judgments_frame,
    no_usable_record,
    record_problem,
    refused,
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
        raise ImportFormatError(path, line, "expected an object with an 'output' field", "output")
    value = record["output"]
    if value is None:
        return None
    if isinstance(value, bool) or value not in (0, 1, 2):
        raise ImportFormatError(path, line, f"output must be 0, 1, 2 or null, found {value!r:.40}", "output")
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
    # Line i of each output file answers the pair on line i of the pairs file: the line is the format's only key
    # (the outputs hold nothing else), so records are matched by it, and a record missing in its place (a blank
    # line, a file that ends early) takes out its own judgment, not the import.
    pairs = jsonl_records(pairs_path, blank_is_missing=True)
    paths = {1: original_path, 2: swapped_path}
    outputs = {order: {line: (record, problem) for line, record, problem in jsonl_records(path, blank_is_missing=True)}
               for order, path in paths.items()}
    last_pair = pairs[-1][0] if pairs else 0
    judgments, humans, problems, notes = [], [], [], []
    for order, path in paths.items():
        last_output = max(outputs[order], default=0)
        if last_output != last_pair:
            notes.append(f"{path.name} ends at line {last_output}, {pairs_path.name} at line {last_pair}: the records "
                         "without a partner are refused (matched by line; a line deleted before the end would shift "
                         "the rest, which no key can show)")
        problems += [record_problem(path, line, f"an output without a pair: {pairs_path.name} ends at line "
                                                f"{last_pair}") for line in sorted(outputs[order]) if line > last_pair]

    for line, pair, pair_problem in pairs:
        item_id = str(line)
        try:
            if pair_problem is not None:
                problems.append(pair_problem)
                continue
            label = require(pair, pairs_path, line, "label", (int,), "0, 1 or 2")
            if label not in _AUTO_J_LABEL:
                raise ImportFormatError(pairs_path, line, f"'label' must be 0, 1 or 2, found {label!r}", "label")
            scenario = require(pair, pairs_path, line, "scenario", (str,), "the scenario name")
            if scenario_groups is not None and scenario not in scenario_groups:
                raise ImportFormatError(pairs_path, line, f"'scenario' {scenario!r} is in no group of the mapping",
                                        "scenario")
        except ImportFormatError as error:
            problems.append(refused(error))
            continue
        group = scenario_groups[scenario] if scenario_groups is not None else scenario
        first, second = pair.get("response 1"), pair.get("response 2")
        humans.append(_human_row(source, item_id, group, "human", _AUTO_J_LABEL[label]))
        for order, path in paths.items():
            if line not in outputs[order]:  # the output file ends before this pair (a blank line is its own problem)
                problems.append(record_problem(path, line, f"no output for the pair on line {line} of "
                                                           f"{pairs_path.name}: the file ends at line "
                                                           f"{max(outputs[order], default=0)}", "output"))
                continue
            record, out_problem = outputs[order][line]
            try:
                if out_problem is not None:
                    problems.append(out_problem)
                    continue
                value = _auto_j_output(record, path, line)
            except ImportFormatError as error:
                problems.append(refused(error))
                continue
            judgments.append(judgment_row(
                source=source, model=dataset, judge=judge, item_id=item_id, judge_order=order,
                verdict=_DISPLAYED_VERDICT[value] if value is not None else None, raw_text=json.dumps(record),
                candidate_len=text_length(second), baseline_len=text_length(first)))
    if not humans:
        raise no_usable_record(pairs_path, problems)
    return ImportedSet(importer=AUTO_J, dataset=dataset, judgments=judgments_frame(judgments),
                       human_labels=pd.DataFrame(humans, columns=HUMAN_LABEL_COLUMNS),
                       files=[str(pairs_path), str(original_path), str(swapped_path)],
                       notes=["swapped outputs read in displayed positions (not re-mapped by the source)", *notes,
                              f"{len(problems)} records refused"], problems=problems)


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


def _llmbar_winner(side: object, path: Path, line: int, key: str, where: str) -> tuple[str | None, str | None]:
    """(winner '1' | '2' | None, the judge's text) of one order; ``where``: the path of ``key`` in the record."""
    if not isinstance(side, dict) or "winner" not in side:
        raise ImportFormatError(path, line, f"{key!r} must be an object with a 'winner'", f"{where}.winner")
    winner = side["winner"]
    if winner not in ("1", "2", None):
        raise ImportFormatError(path, line, f"{key!r}: winner must be \"1\", \"2\" or null, found {winner!r:.40}",
                                f"{where}.winner")
    completion = side.get("completion")
    if isinstance(completion, list) and completion and isinstance(completion[0], str):
        text = completion[0]
    else:
        text = json.dumps(side, ensure_ascii=False)
    return winner, text


def parse_llmbar_result(path: str | Path, dataset: str, judge: str,
                        problems: list[LoadProblem]) -> tuple[list[dict], list[dict]]:
    """(judgment rows, human label rows) of one result.json; bad records go to ``problems``."""
    path = Path(path)
    source = source_name(LLMBAR, dataset)
    judgments, humans = [], []
    # The item id is the record's place, so a record that is not even JSON still takes its place.
    for index, (line, record) in enumerate(iter_json_array(path, problems, keep_places=True)):
        item_id = str(index + 1)
        if record is SKIPPED:
            continue
        try:
            record_judgments, label = _llmbar_record(record, path, line, source, dataset, judge, item_id)
        except ImportFormatError as error:
            problems.append(refused(error))
            continue
        humans.append({**_human_row(source, item_id, dataset, "gold", label), "_line": line})
        judgments += record_judgments
    if not humans:
        raise no_usable_record(path, problems)
    return judgments, humans


def _llmbar_record(record: object, path: Path, line: int, source: str, dataset: str, judge: str,
                   item_id: str) -> tuple[list[dict], str]:
    label = require(record, path, line, "label", (int,), "1 or 2")
    if label not in (1, 2):
        raise ImportFormatError(path, line, f"'label' must be 1 or 2, found {label!r}", "label")
    results = require(record, path, line, "results", (list,), "a list of evaluator results")
    final = results[-1] if results else None
    if not isinstance(final, dict) or "swap = False" not in final or "swap = True" not in final:
        raise ImportFormatError(path, line, "the last element of 'results' must hold 'swap = False' and 'swap = True'",
                                f"results[{max(len(results) - 1, 0)}]")
    first, second = record.get("output_1"), record.get("output_2")
    judgments = []
    for order, key in ((1, "swap = False"), (2, "swap = True")):
        winner, text = _llmbar_winner(final[key], path, line, key, f"results[{len(results) - 1}].{key}")
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
    return judgments, FIRST if label == 1 else SECOND


def import_llmbar(paths: list[str | Path]) -> list[ImportedSet]:
    """Every result.json parsed (dataset and judge from LLMBar's folder layout); one ImportedSet per dataset.

    Runs of the same dataset must carry the same gold label for each item: an item whose label differs
    from the one read first is refused in that run (a located problem). An item refused in one run is still
    labelled from the others.
    """
    if not paths:
        raise ValueError("no LLMBar result.json files given")
    by_dataset: dict[str, dict] = {}
    for path in sorted(Path(p) for p in paths):
        dataset, judge = llmbar_names(path)
        problems: list[LoadProblem] = []
        judgments, humans = parse_llmbar_result(path, dataset, judge, problems)
        group = by_dataset.setdefault(dataset, {"judgments": [], "labels": {}, "files": [], "problems": [],
                                                "labels_from": {}})
        differing = set()
        for human in humans:
            known = group["labels"].get(human["item_id"])
            if known is not None and known["label"] != human["label"]:
                differing.add(human["item_id"])
                problems.append(record_problem(path, human["_line"], f"'label': gold label {human['label']!r} of item "
                                                                     f"{human['item_id']} differs from "
                                                                     f"{known['label']!r} in "
                                                                     f"{group['labels_from'][human['item_id']]}",
                                               "label"))
            elif known is None:
                group["labels"][human["item_id"]] = {k: v for k, v in human.items() if k != "_line"}
                group["labels_from"][human["item_id"]] = str(path)
        group["judgments"] += [j for j in judgments if j["item_id"] not in differing]
        group["files"].append(str(path))
        group["problems"] += problems
    return [ImportedSet(importer=LLMBAR, dataset=dataset, judgments=judgments_frame(group["judgments"]),
                        human_labels=pd.DataFrame(sorted(group["labels"].values(), key=lambda h: int(h["item_id"])),
                                                  columns=HUMAN_LABEL_COLUMNS),
                        files=group["files"], problems=group["problems"],
                        notes=["winners are mapped back to the original outputs by LLMBar; the gold label is "
                               "the dataset's", f"{len(group['problems'])} records refused"])
            for dataset, group in sorted(by_dataset.items())]
