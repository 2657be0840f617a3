import dataclasses
from pathlib import Path

import dagster as dg
import numpy as np
import pandas as pd
import pytest

from benchwright import families
from benchwright.registry import RegistryEntry, load_registry

ROOT = Path(__file__).resolve().parents[2]


def test_family_is_derived_from_the_model_string_or_given_and_never_changes_the_version(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text("""
plain: {model: openai/gpt-4o-mini, role: candidate}
routed: {model: openrouter/anthropic/claude-3.5-sonnet, role: candidate}
served: {model: hosted_vllm/meta-llama/Llama-3.1-8B-Instruct, role: candidate}
tuned: {model: hosted_vllm/my-finetune, role: candidate, family: Meta}
simulated: {model: sim/strong-writer, role: candidate}
bad: {model: sim/strong-writer, role: candidate, family: [meta]}
""", encoding="utf-8")
    entries, problems = load_registry(path, "models")
    by_slug = {e.slug: e for e in entries}
    assert {slug: e.family_name for slug, e in by_slug.items()} == {
        "plain": "openai", "routed": "anthropic", "served": "meta", "tuned": "meta", "simulated": "sim:strong-writer"}
    assert [(p.entry, p.field) for p in problems] == [("bad", "family")]
    # The pinned version of an entry from before the field existed is unchanged, and giving a family (derived
    # or another) does not change it: a family is read by the analysis, never by a run.
    before = RegistryEntry(slug="plain", model="openai/gpt-4o-mini", display_name="plain", role="candidate")
    assert by_slug["plain"].version == before.version == "09e3a720986650d3"
    assert by_slug["tuned"].version == dataclasses.replace(by_slug["tuned"], family=None).version
    assert dataclasses.replace(before, family="anthropic").version == before.version


def test_the_shipped_demo_has_no_judge_of_a_candidates_family():
    models, _ = load_registry(ROOT / "registry" / "models.yaml", "models")
    judges, _ = load_registry(ROOT / "registry" / "judges.yaml", "judges")
    assert {j.family_name for j in judges}.isdisjoint({m.family_name for m in models})


def _simulated_scores(biases: dict[str, float], leniency: dict[str, float], seed: int, items: int = 120):
    """Three judges, each of its own family, scoring six candidates (two per family) on `items` items: true
    quality + item difficulty + the judge's leniency + its self-preference on its own family + noise."""
    rng = np.random.default_rng(seed)
    judge_family = {"judge-a": "fa", "judge-b": "fb", "judge-c": "fc"}
    models = {f"{f}-{k}": f for f in ("fa", "fb", "fc") for k in (1, 2)}
    quality = {m: rng.normal(0, 1) for m in models}
    rows = []
    for item in range(items):
        difficulty = rng.normal(0, 1)
        for model, model_family in models.items():
            for judge, family in judge_family.items():
                score = (5 + quality[model] + difficulty + leniency[judge] + rng.normal(0, 0.8)
                         + (biases[judge] if family == model_family else 0.0))
                rows.append({"judge": judge, "model": model, "item_id": f"i{item}", "score": score})
    return pd.DataFrame(rows), {**judge_family, **models}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_known_self_preference_is_recovered_within_its_interval(seed):
    biases = {"judge-a": 1.0, "judge-b": 0.0, "judge-c": 0.4}
    leniency = {"judge-a": -0.5, "judge-b": 0.7, "judge-c": 0.0}  # a lenient judge is not a self-preferring one
    scores, family_of = _simulated_scores(biases, leniency, seed)
    table = families.self_preference(scores, family_of, "urs").set_index("judge")
    assert set(table.index) == {"judge-a", "judge-b", "judge-c"}
    for judge, bias in biases.items():
        row = table.loc[judge]
        assert row["lower"] <= bias <= row["upper"], (judge, row.to_dict())
        assert row["upper"] - row["lower"] < 0.6  # an interval that says something
    assert table.loc["judge-a", "flagged"] and not table.loc["judge-b", "flagged"]
    # judge-c's bias (0.4) is certain but below the URS threshold (0.5): reported, not warned about
    assert table.loc["judge-c", "lower"] > 0 and not table.loc["judge-c", "flagged"]
    # the raw gap carries the leniency; the self-preference does not
    assert table.loc["judge-b", "own_gap"] > 0.4 and abs(table.loc["judge-b", "self_preference"]) < 0.25


def test_no_same_family_candidate_gives_no_row_and_a_missing_consensus_is_left_out():
    scores = pd.DataFrame([
        {"judge": "j1", "model": "m1", "item_id": "i1", "score": 3.0},
        {"judge": "j2", "model": "m1", "item_id": "i1", "score": 1.0},
        {"judge": "j1", "model": "m2", "item_id": "i1", "score": None},
    ])
    assert families.self_preference(scores, {"j1": "x", "j2": "y", "m1": "z"}, "urs").empty
    # j1's own-family model m1: consensus is j2 alone (m1's family has no other judge)
    table = families.self_preference(scores, {"j1": "x", "j2": "y", "m1": "x"}, "urs")
    assert table["judge"].tolist() == ["j1"] and table["own_gap"].tolist() == [2.0]
    assert np.isnan(table["lower"].iloc[0]) and not table["flagged"].iloc[0]  # one item: no interval, no warning


def test_effective_judges_falls_from_n_to_one_as_judges_correlate():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=400)
    independent = pd.DataFrame({f"j{k}": rng.normal(size=400) for k in range(4)})
    copies = pd.DataFrame({f"j{k}": truth for k in range(4)})
    assert families.effective_judges(independent) == pytest.approx(4, abs=0.3)
    assert families.effective_judges(copies) == pytest.approx(1)
    half = pd.DataFrame({f"j{k}": truth + rng.normal(size=400) for k in range(4)})  # rho = 0.5
    assert families.effective_judges(half) == pytest.approx(4 / (1 + 3 * 0.5), abs=0.25)
    assert families.effective_judges(pd.DataFrame({"j0": truth})) is None


class _Warehouse:
    """What the check reads: the stored table."""

    def __init__(self, table):
        self.table = table

    def query(self, sql, params=None):
        assert "judge_self_preference" in sql
        return self.table


def test_the_check_warns_on_a_self_preferring_judge_and_passes_without_one():
    from checks.families import judge_self_preference_below_threshold as check

    biased, family_of = _simulated_scores({"judge-a": 1.0, "judge-b": 0.0, "judge-c": 0.0},
                                          {"judge-a": 0.0, "judge-b": 0.0, "judge-c": 0.0}, seed=4)
    result = check(warehouse=_Warehouse(families.self_preference(biased, family_of, "urs")))
    assert not result.passed and result.severity == dg.AssetCheckSeverity.WARN
    assert result.description.endswith("judge-a on urs")
    fair, family_of = _simulated_scores({"judge-a": 0.0, "judge-b": 0.0, "judge-c": 0.0},
                                        {"judge-a": 0.3, "judge-b": -0.3, "judge-c": 0.0}, seed=4)
    result = check(warehouse=_Warehouse(families.self_preference(fair, family_of, "urs")))
    assert result.passed
    assert check(warehouse=_Warehouse(pd.DataFrame(columns=families.SELF_PREFERENCE_COLUMNS))).passed


def test_family_from_the_model_string_or_params():
    assert families.derive_family("openai/gpt-4o-mini") == "openai"
    assert families.derive_family("vertex_ai/gemini-1.5-pro") == "google"
    assert families.derive_family("anthropic/claude-3-5-sonnet") == "anthropic"
    assert families.derive_family("sim/fair-judge") == "sim:fair-judge"
    assert families.derive_family("sim/fair-judge", {"family": "Acme"}) == "acme"
