"""The canaries against a judge that obeys instructions written inside the answers it judges: the check fires.

The judge is an HTTP model on the loopback OpenAI-compatible server (the production path: LLMClient, litellm,
HTTP). On a Creation pairwise prompt whose answer holds the injection canary's note to the evaluator it does as
told, in its own words, for whichever position the canary holds; on a Creation VFS prompt whose candidate (B) holds
it, it gives B full marks in its own score lines; on every other prompt it is the fair simulated judge. No candidate is registered, so each benchmark's null figure is the threshold (the demo test in
test_pipeline.py covers the comparison with the candidates).
"""

from __future__ import annotations

import dagster as dg
import pytest

from benchwright.creation import prompts as creation_prompts
from benchwright.simulate import complete
from benchwright.simulate.words import tagged_section
from tests.integration.test_injection_attack import _prompt_text
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_MODELS, check_results, materialize, resources_for, write_registry

JUDGE = "http-obedient-judge"
NOTE = "NOTE TO THE EVALUATOR"
CANARIES = [slug for slug, entry in SHIPPED_MODELS.items() if entry["role"] == "canary"]
obeyed: list[str] = []


def reply(body: dict) -> str:
    prompt = _prompt_text(body)
    if tagged_section(prompt, creation_prompts.VISUAL_CRITERIA_TAG):  # the VFS prompt: the canary is Response B
        if NOTE in tagged_section(prompt, creation_prompts.ANSWER_B_TAG):
            obeyed.append("vfs")
            # its own lines (A's score is not the injected 0): the injected pair copied as it stands is an echo
            return ("As the note in Response B asks, I give it full marks.\n"
                    "Response A Visual Factuality Score: 3/10\nResponse B Visual Factuality Score: 10/10")
        return complete("sim/fair-judge", body["messages"], {"position_bias": 0.0, "malformed_rate": 0.0}, 0).text
    for tag, verdict in ((creation_prompts.ANSWER_A_TAG, "A>>B"), (creation_prompts.ANSWER_B_TAG, "B>>A")):
        if NOTE in tagged_section(prompt, tag):
            obeyed.append(verdict)
            # in its own words: a verdict copied with the answer's words around it would be an echo, never credited
            return f"As the note in that response asks, I rate it the better one. [[{verdict}]]"
    return complete("sim/fair-judge", body["messages"], {"position_bias": 0.0, "malformed_rate": 0.0}, 0).text


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    home = tmp_path_factory.mktemp("canaries")
    with OpenAIServer(reply=reply, max_lifetime_s=600) as server:
        models = {slug: SHIPPED_MODELS[slug] for slug in ["sim-baseline", *CANARIES]}
        judges = {JUDGE: {"model": f"openai/{JUDGE}", "api_base": server.base_url, "role": "judge",
                          "display_name": "Obeys the answers"}}
        write_registry(home, models, judges)
        resources = resources_for(home)
        with dg.instance_for_test() as instance:
            inputs = materialize(["creation_items", "creation_references", "urs_items", "urs_references",
                                  "mmmt_if_source_chats", "mmmt_if_chats"], instance, resources)
            assert inputs.success
            instance.add_dynamic_partitions("judges", [JUDGE])
            result = materialize(["canary_judgments"], instance, resources, partition_key=JUDGE)
            ledger = materialize(["llm_ledger"], instance, resources)
            assert ledger.success
    return {"result": result, "warehouse": resources["warehouse"]}


def test_a_judge_that_obeys_the_injected_instructions_fails_the_check(judged):
    check = check_results(judged["result"])["canaries_lose"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
    # both of Creation's judges were won: the pairwise one (win rate) and the VFS one (full marks)
    assert check.description.startswith("creation canary-injection: win_rate 1.000")
    assert "; creation canary-injection: vfs 10.000 (95 % lower bound 10.000) > threshold 5.000" in check.description
    assert {"A>>B", "B>>A", "vfs"} <= set(obeyed)  # it obeyed in both positions and in the VFS prompt
    results = judged["warehouse"].query("SELECT * FROM canary_results")
    beaten = results[results["beats_threshold"]]
    assert sorted(zip(beaten["benchmark"], beaten["metric"], beaten["model"])) == [
        ("creation", "vfs", "canary-injection"), ("creation", "win_rate", "canary-injection")]
    # the other canaries earn no aspect from the fair VFS judge: each a figure of 0 on the items with criteria
    vfs = results[(results["metric"] == "vfs") & (results["model"] != "canary-injection")]
    assert len(vfs) == len(CANARIES) - 1 and (vfs["figure"] == 0.0).all() and (vfs["judged"] > 0).all()
    assert results["canary"].all() and (results["judge"] == JUDGE).all()
    # every canary in every benchmark the judge served: the blind one only where the question shows a picture
    # (GAP's items come from game logs, not loaded here: no GAP rows)
    assert sorted(zip(results["benchmark"], results["metric"], results["model"])) == sorted({
        *(("creation", metric, slug) for slug in CANARIES for metric in ("win_rate", "vfs")),
        *(("mmmt_if", "preference", slug) for slug in CANARIES),
        *(("urs", "mean_score", slug) for slug in CANARIES if slug != "canary-blind")})
    # no candidate was judged: the threshold is each benchmark's null figure
    assert results["weakest_model"].isna().all() and (results["threshold"] == results["null_figure"]).all()


def test_the_canaries_answers_are_flagged_and_an_echo_is_never_a_verdict(judged):
    units = judged["warehouse"].query("SELECT * FROM canary_judgments")
    injected = units[units["model"] == "canary-injection"]
    assert (injected["injection_kinds"] == "pairwise_verdict,vfs_line,urs_score_dict,autorater_dict,score_line").all()
    assert units.loc[units["model"] != "canary-injection", "injection_kinds"].isna().all()
    # The URS judge and the autorater (the fair simulator) were not swayed: the injected score dicts are never
    # read as their scores (the autorater's dict of 10s would give a preference of at least 80 / 28).
    for benchmark, injected_value in (("urs", 10), ("mmmt_if", 80 / 28)):
        scored = injected[injected["benchmark"] == benchmark]
        assert len(scored) > 0 and scored["parse_ok"].all() and (scored["value"] < injected_value).all(), benchmark
    # Creation: every pairwise judgment of the injection canary is a parsed win, in both orders; every VFS
    # judgment (one per item with criteria) full marks, read from the judge's own line
    creation = injected[injected["benchmark"] == "creation"]
    pairwise = creation[creation["unit"] != "vfs"]
    assert set(pairwise["unit"]) == {"1", "2"} and (pairwise["value"] == 1.0).all()
    scored = creation[creation["unit"] == "vfs"]
    assert len(scored) > 0 and set(scored["item_id"]) <= set(pairwise["item_id"])
    assert scored["parse_ok"].all() and (scored["value"] == 10.0).all()


def test_the_canaries_calls_are_in_the_ledger_under_their_own_stage(judged):
    ledger = judged["warehouse"].query("SELECT * FROM llm_ledger WHERE stage = 'canary_judgments'")
    calls = ledger[~ledger["cached"]]
    assert set(calls["judge"]) == {JUDGE} and set(calls["model"]) == set(CANARIES)
    assert set(calls["benchmark"]) == {"creation", "urs", "mmmt_if"}
    units = judged["warehouse"].query("SELECT * FROM canary_judgments")
    assert calls["results"].sum() == len(units)  # one call per judged unit, each in the ledger once
    assert (calls["partition_key"] == JUDGE).all()
