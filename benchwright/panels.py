"""Judge panels (`registry/panels.yaml`): several judges' stored judgments combined into one judge's.

A panel is written next to the models and judges:

    sim-panel:                      # the slug: permanent, [a-z0-9._-]+, not a judge's slug
      display_name: Panel of the simulated judges
      members: [sim-fair-judge, sim-biased-judge]   # two or more registered judges
      aggregate: majority           # majority (the default), mean or median

A panel makes no LLM call: its judgments are built from its members' stored judgments, item by item, and
stored in the same tables as any judge's with the panel's slug in the `judge` column, so leaderboards,
views and checks read them unchanged.

The aggregate `majority`:

- **Verdicts** (the five-point pairwise scale). The *votes* are the members' parsed verdicts on the same
  item and order. The panel's verdict is the verdict that more than half of the votes name (a strict
  majority of the parsed votes). When no verdict has a strict majority — a tie — the panel says `A=B`:
  a split panel has not found one answer better. A member whose output did not parse is counted
  (`member_parse_failures`) but casts no vote, so the majority is over the votes that exist: with three
  members of which one failed, two agreeing votes decide, two differing ones are a tie. A member whose
  call failed (an `error`, no output) is counted apart (`member_errors`), as a failed call is elsewhere.
  With no vote at all the panel's judgment is a parse failure (`parse_problem = 'no_member_verdict'`),
  or, when every member's call failed, a failed call (an `error`, no outcome).
- **Scores** (Creation VFS 0–10, URS 1–10 final and criterion scores): the mean of the members' parsed
  scores, so a panel's URS score may be 7.5 where a judge's is a whole number; no parsed score is a parse
  failure, as above.

The aggregates `mean` and `median` read the five verdicts as an ordinal scale (A>>B = −2 ... B>>A = 2) and take
the mean, or the median, of the parsed votes' positions, rounded to the nearest verdict (a half toward A=B: a
split panel has not found one answer better); scores are averaged (`mean`) or their median taken (`median`).
A median is the robust choice (Verga et al. 2024 pool a jury's scores; one extreme member moves a mean, not
a median). Failed calls and parse failures count as under `majority`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pandas as pd

from benchwright import agreement, families
from benchwright.pairwise import CANONICAL_VERDICTS, outcome
from benchwright.registry import FieldError, RegistryProblem, checked_fields, display_name_of, load_entries

AGGREGATES = ("majority", "mean", "median")
TIE_VERDICT = "A=B"
NO_MEMBER_VERDICT = "no_member_verdict"
_KNOWN_FIELDS = {"display_name", "members", "aggregate"}


@dataclass(frozen=True)
class PanelEntry:
    slug: str
    display_name: str
    members: tuple[str, ...]
    aggregate: str = "majority"

    @property
    def version(self) -> str:
        """A short hash of every field: what the panel's judgments depend on besides its members' rows."""
        fields = dataclasses.asdict(self)
        # Hashed under the field's first name: renaming `rule` to `aggregate` made no panel stale.
        fields["rule"] = fields.pop("aggregate")
        text = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _parse_panel(slug: str, raw, judge_slugs: set[str] | None) -> PanelEntry:
    if isinstance(raw, dict) and "rule" in raw:
        raise FieldError("the field 'rule' is now called 'aggregate': write `aggregate: "
                         f"{raw['rule']}` instead", "rule")
    raw = checked_fields(raw, _KNOWN_FIELDS)
    members = raw.get("members")
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise FieldError("'members' must be a list of judge slugs", "members")
    if len(members) < 2:
        raise FieldError("a panel needs at least two members", "members")
    repeated = next((i for i, member in enumerate(members) if member in members[:i]), None)
    if repeated is not None:
        raise FieldError(f"a member is listed twice: {members}", f"members[{repeated}]")
    if judge_slugs is not None:
        if slug in judge_slugs:
            raise ValueError("a panel's slug must not be a judge's slug: both would write the same rows")
        unknown_members = [m for m in members if m not in judge_slugs]
        if unknown_members:
            raise FieldError(f"members {unknown_members} are not (valid) entries of the judges registry",
                             f"members[{members.index(unknown_members[0])}]")
    aggregate = raw.get("aggregate", "majority")
    if aggregate not in AGGREGATES:
        raise FieldError(f"aggregate {aggregate!r} is not one of {list(AGGREGATES)}", "aggregate")
    return PanelEntry(slug=slug, display_name=display_name_of(raw, slug), members=tuple(members),
                      aggregate=aggregate)


def load_panels(path: str | Path, judge_slugs: Iterable[str] | None = None) -> tuple[list[PanelEntry], list[RegistryProblem]]:
    """Panels of `path` (none when the file does not exist); bad entries become problems, the others load;
    a file that is not a YAML mapping raises (ValueError), as `registry.load_registry` does.

    With `judge_slugs` (the judges registry's valid slugs) a member that is not one of them, or a panel
    slug that is one, is refused.
    """
    path = Path(path)
    if not path.exists():
        return [], []
    judges = set(judge_slugs) if judge_slugs is not None else None
    return load_entries(path, lambda slug, raw: _parse_panel(slug, raw, judges))


# --- the aggregate --------------------------------------------------------------------------------------------

def majority_verdict(votes: Sequence[str]) -> str | None:
    """The verdict more than half of `votes` name; `A=B` when none does; None when there is no vote.

    `votes` are parsed verdicts only (a member's parse failure is not a vote).
    """
    if not votes:
        return None
    for verdict in votes:
        if verdict not in CANONICAL_VERDICTS:
            raise ValueError(f"not a canonical verdict: {verdict!r}")
    verdict, count = Counter(votes).most_common(1)[0]
    return verdict if 2 * count > len(votes) else TIE_VERDICT


def ordinal_verdict(aggregate: str, votes: Sequence[str]) -> str | None:
    """The verdict at the `aggregate` ('mean' or 'median') of the votes' positions on A>>B = −2 ... B>>A = 2,
    rounded to the nearest position, a half toward A=B; None when there is no vote."""
    if not votes:
        return None
    for verdict in votes:
        if verdict not in CANONICAL_VERDICTS:
            raise ValueError(f"not a canonical verdict: {verdict!r}")
    positions = sorted(CANONICAL_VERDICTS.index(v) - 2 for v in votes)
    value = _AVERAGES[aggregate](positions)
    rounded = math.copysign(math.ceil(abs(value) - 0.5), value)  # 1.5 -> 1, -0.5 -> 0, 1.6 -> 2
    return CANONICAL_VERDICTS[int(rounded) + 2]


def aggregate_verdict(aggregate: str, votes: Sequence[str]) -> str | None:
    """The panel's verdict from its members' parsed votes under `aggregate`."""
    return majority_verdict(votes) if aggregate == "majority" else ordinal_verdict(aggregate, votes)


def mean_score(scores: Iterable[float | None]) -> float | None:
    """Mean of the parsed scores (missing ones left out); None when none is parsed."""
    parsed = [float(s) for s in scores if s is not None and not pd.isna(s)]
    return sum(parsed) / len(parsed) if parsed else None


def median_score(scores: Iterable[float | None]) -> float | None:
    """Median of the parsed scores (missing ones left out); None when none is parsed."""
    parsed = [float(s) for s in scores if s is not None and not pd.isna(s)]
    return statistics.median(parsed) if parsed else None


_AVERAGES = {"mean": statistics.fmean, "median": statistics.median}


def _member_summary(members: pd.DataFrame, value_column: str) -> str:
    """What each member said, in the panel row's raw_text: the panel's 'raw output'."""
    parts = []
    for row in members.sort_values("judge").itertuples(index=False):
        if row.error is not None and not pd.isna(row.error):
            said = "call failed"
        elif not row.parse_ok:
            said = "unparsed"
        else:
            said = str(getattr(row, value_column))
        parts.append(f"{row.judge}: {said}")
    return "; ".join(parts)


def _counts(members: pd.DataFrame) -> tuple[int, int]:
    errors = int(members["error"].notna().sum())
    parse_failures = int((members["error"].isna() & ~members["parse_ok"].astype(bool)).sum())
    return errors, parse_failures


def pairwise_rows(panel: PanelEntry, members: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The panel's pairwise judgments from its members' rows of `creation_pairwise_judgments` (one model).

    One row per (item, order) that any member judged, with the columns of that table.
    """
    members = members[members["judge"].isin(panel.members)]
    rows = []
    for (item_id, order), group in members.groupby(["item_id", "judge_order"], sort=True):
        votes = group.loc[group["parse_ok"].astype(bool) & group["error"].isna(), "verdict"].tolist()
        verdict = aggregate_verdict(panel.aggregate, votes)
        errors, _ = _counts(group)
        first = group.iloc[0]
        all_failed = errors == len(group)
        rows.append({
            "model": first["model"], "judge": panel.slug, "item_id": item_id, "judge_order": int(order),
            "candidate_position": first["candidate_position"],
            "raw_text": f"{panel.aggregate} of {len(votes)} votes: " + _member_summary(group, "verdict"),
            "verdict": verdict, "parse_ok": verdict is not None,
            "parse_problem": None if verdict is not None or all_failed else NO_MEMBER_VERDICT,
            "outcome": None if all_failed else outcome(verdict, first["candidate_position"]),
            "error": "every member's call failed" if all_failed else None,
            "candidate_len": first["candidate_len"], "baseline_len": first["baseline_len"], "request_key": None,
            "simulated": bool(group["simulated"].any()), "source": "benchwright",
        })
    return pd.DataFrame(rows, columns=list(columns))


def mean_score_dicts(texts: Iterable[str | None], average=None) -> str | None:
    """Key by key mean (or `average`) of JSON score dicts (URS criterion scores), over the dicts that have the
    key; None when no dict is given. Keys sorted, as the judges' rows store them."""
    average = average or mean_score
    dicts = [json.loads(t) for t in texts if isinstance(t, str)]
    if not dicts:
        return None
    keys = sorted({key for d in dicts for key in d})
    return json.dumps({key: average(d.get(key) for d in dicts) for key in keys}, ensure_ascii=False, sort_keys=True)


def score_rows(panel: PanelEntry, members: pd.DataFrame, keys: Sequence[str], scores: Sequence[str],
               parsed_score: str, columns: Sequence[str], score_dicts: Sequence[str] = ()) -> pd.DataFrame:
    """The panel's score judgments (the median for `aggregate: median`, else the mean) from its members' rows, one
    row per `keys`.

    `scores` are the columns averaged, `score_dicts` the JSON columns of scores averaged key by key (URS
    criteria); the row parsed when `parsed_score` has a mean (for VFS the candidate's score, for URS the
    final score, as for a single judge). Other columns of `columns` come from the first member's row.
    """
    members = members[members["judge"].isin(panel.members)]
    rows = []
    for _, group in members.groupby(list(keys), sort=True):
        usable = group[group["parse_ok"].astype(bool) & group["error"].isna()]
        errors, _ = _counts(group)
        all_failed = errors == len(group)
        row = {column: group.iloc[0][column] for column in columns if column in group.columns}
        by = "median" if panel.aggregate == "median" else "mean"  # majority's scores are their mean
        average = median_score if by == "median" else mean_score
        means = {score: average(usable[score]) for score in scores}
        means.update({column: mean_score_dicts(usable[column], average) for column in score_dicts})
        parsed = means[parsed_score] is not None
        row.update(means)
        row.update({
            "judge": panel.slug,
            "raw_text": f"{by} of {len(usable)} parsed members: " + _member_summary(group, parsed_score),
            "parse_ok": parsed, "parse_problem": None if parsed or all_failed else NO_MEMBER_VERDICT,
            "error": "every member's call failed" if all_failed else None, "request_key": None,
            "simulated": bool(group["simulated"].any()),
        })
        rows.append(row)
    return pd.DataFrame(rows, columns=list(columns))


# --- agreement among a panel's members ------------------------------------------------------------------

AGREEMENT_COLUMNS = ["panel", "judge_a", "judge_b", "units", "exact_agreement", "cohen_kappa", "fleiss_kappa",
                     "member_parse_failures", "member_errors", "effective_judges"]
ALL_MEMBERS = "*"  # judge_a / judge_b of the row over the whole panel


def member_agreement(panel: PanelEntry, members: pd.DataFrame, unit: Sequence[str]) -> pd.DataFrame:
    """Inter-judge agreement among the panel's members on the five-point verdicts.

    A unit is one judged thing (`unit`, e.g. model, item and order). One row per member pair: `units`
    where both parsed, exact agreement (same verdict) and Cohen's kappa on them; and one row for the
    whole panel (judge_a = judge_b = '*'): units where every member parsed, the share of them where all
    verdicts are equal, Fleiss' kappa, the members' parse failures and failed calls over all units, and the
    effective number of independent members (benchwright.families.effective_judges, on the verdicts'
    positions A>>B = −2 ... B>>A = 2).
    """
    members = members[members["judge"].isin(panel.members)]
    errors, parse_failures = _counts(members)
    usable = members[members["parse_ok"].astype(bool) & members["error"].isna()]
    # One row per unit, one column per member: its verdict, NaN where it has none.
    wide = (usable.drop_duplicates(list(unit) + ["judge"]).set_index(list(unit) + ["judge"])["verdict"]
            .unstack("judge").reindex(columns=list(panel.members)) if len(usable)
            else pd.DataFrame(columns=list(panel.members)))
    rows = []
    for a, b in combinations(sorted(panel.members), 2):
        both = wide[[a, b]].dropna()
        rows.append({"panel": panel.slug, "judge_a": a, "judge_b": b, "units": len(both),
                     "exact_agreement": float((both[a] == both[b]).mean()) if len(both) else None,
                     "cohen_kappa": agreement.cohen_kappa(both[a].tolist(), both[b].tolist()),
                     "fleiss_kappa": None, "member_parse_failures": None, "member_errors": None,
                     "effective_judges": None})
    complete = wide.dropna()
    rows.append({
        "panel": panel.slug, "judge_a": ALL_MEMBERS, "judge_b": ALL_MEMBERS, "units": len(complete),
        "exact_agreement": float((complete.nunique(axis=1) == 1).mean()) if len(complete) else None,
        "cohen_kappa": None,
        "fleiss_kappa": agreement.fleiss_kappa(category_counts(complete, CANONICAL_VERDICTS)),
        "member_parse_failures": parse_failures, "member_errors": errors,
        "effective_judges": families.effective_judges(
            wide.apply(lambda column: column.map(lambda v: CANONICAL_VERDICTS.index(v) - 2 if isinstance(v, str)
                                                 else float("nan")))),
    })
    table = pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
    for column in ("exact_agreement", "cohen_kappa", "fleiss_kappa", "effective_judges"):
        table[column] = table[column].astype("float64")
    return table


def category_counts(labels: pd.DataFrame, categories: Sequence[str]) -> list[list[int]]:
    """Per row of `labels` (one column per rater), how many raters chose each category."""
    return [[sum(value == category for value in row) for category in categories]
            for row in labels.itertuples(index=False)]
