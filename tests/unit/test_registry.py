import dataclasses
from pathlib import Path

import pytest

from benchwright.llm import ModelLimits
from benchwright.llm.providers import DEFAULT_MAX_IN_FLIGHT, ProviderEntriesRefused, ProviderLimits, provider_of
from benchwright.registry import (RegistryEntry, checked_providers, load_providers, load_registry, refused_providers,
                                 validate_slug)
from benchwright.steps import limits_for

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text, name="models.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_registry_is_valid_and_has_the_demo_cast():
    models, problems = load_registry(ROOT / "registry" / "models.yaml", "models")
    judges, judge_problems = load_registry(ROOT / "registry" / "judges.yaml", "judges")
    assert problems == [] and judge_problems == []
    candidates = [m for m in models if m.role == "candidate"]
    assert len(candidates) >= 3 and all(m.simulated for m in candidates)
    assert any(not m.vision for m in candidates), "the text-only variant needs a text-only candidate"
    assert len(judges) >= 2
    assert any(j.params.get("position_bias", 0) >= 0.5 for j in judges), "one judge must be position-biased"
    assert sum(m.role == "baseline" for m in models) == 1


@pytest.mark.parametrize("slug", ["Bad-Upper", "has space", "a|b", "x;rm -rf", "a,b", "p[1]", "dots...dots", "", "quo'te"])
def test_bad_slugs_are_rejected(slug):
    assert validate_slug(slug) is not None


@pytest.mark.parametrize("slug", ["gpt-4o-mini-2024-07-18", "sim-strong", "qwen2.5_7b", "a.b-c_d"])
def test_good_slugs_pass(slug):
    assert validate_slug(slug) is None


def test_a_malformed_entry_names_file_and_entry_and_spares_the_others(tmp_path):
    path = write(tmp_path, """
good-one:
  model: sim/good
  role: candidate
  params: {skill: 0.5}
"Bad Slug":
  model: sim/x
no-model:
  display_name: Missing model string
wrong-role:
  model: sim/y
  role: emperor
secret:
  model: openai/gpt-4o
  role: candidate
  params: {api_key: sk-should-not-be-here}
not-a-mapping: just a string
another-good:
  model: openai/gpt-4o-mini
  role: candidate
  api_base: http://127.0.0.1:9/v1
  vision: false
""")
    entries, problems = load_registry(path, "models")
    assert [e.slug for e in entries] == ["good-one", "another-good"]
    by_entry = {p.entry: p for p in problems}
    assert set(by_entry) == {"Bad Slug", "no-model", "wrong-role", "secret", "not-a-mapping"}
    assert all(p.file == str(path) for p in problems)
    assert "[a-z0-9._-]+" in by_entry["Bad Slug"].reason
    assert "model" in by_entry["no-model"].reason
    assert "emperor" in by_entry["wrong-role"].reason
    assert "environment" in by_entry["secret"].reason
    assert str(path) in str(by_entry["no-model"]) and "no-model" in str(by_entry["no-model"])
    assert entries[1].vision is False and entries[1].api_base == "http://127.0.0.1:9/v1"


def test_a_simulated_model_s_settings_in_range_load_and_other_models_params_are_theirs(tmp_path):
    path = write(tmp_path, "a:\n  model: sim/a\n  role: candidate\n"
                           "  params: {skill: 1, verbosity: 3.5, temperature: 2}\n"
                           "j:\n  model: sim/j\n  role: candidate\n  params: {position_bias: 0, leniency: -5, "
                           "self_preference: 10, family: x}\n"
                           "r:\n  model: openai/x\n  role: candidate\n  params: {skill: high}\n")
    entries, problems = load_registry(path, "models")
    assert problems == [] and [e.slug for e in entries] == ["a", "j", "r"]


def test_simulated_entries_are_labelled(tmp_path):
    entries, _ = load_registry(write(tmp_path, "a:\n  model: sim/a\n  display_name: A\n  role: candidate\n"
                                               "b:\n  model: openai/b\n  role: candidate\n"), "models")
    assert entries[0].label == "A [simulated]" and entries[0].simulated
    assert entries[1].label == "b" and not entries[1].simulated


def test_unreadable_registry_raises_with_the_path(tmp_path):
    path = write(tmp_path, "a: [unclosed")
    with pytest.raises(ValueError, match=str(path)):
        load_registry(path, "models")
    with pytest.raises(FileNotFoundError):
        load_registry(tmp_path / "missing.yaml", "models")


def test_a_slug_defined_twice_loads_neither_entry_and_names_both_lines(tmp_path):
    path = write(tmp_path, """sim-strong:
  model: sim/strong-writer
  role: candidate
kept:
  model: sim/kept
  role: candidate
sim-strong:
  model: sim/another-writer
  role: candidate
""")
    entries, problems = load_registry(path, "models")
    assert [e.slug for e in entries] == ["kept"]
    [problem] = problems
    assert problem.entry == "sim-strong" and "lines 1, 7" in problem.reason and "neither" in problem.reason


@pytest.mark.parametrize("entry, words, field, line", [
    ("  model: sim/a\n  role: candidate\n  params: {since: 2024-01-01}\n", ["params", "JSON", "date"], 'params.since', 4),
    ("  model: sim/a\n  role: candidate\n  params: {t: .nan}\n", ["params", "JSON"], 'params.t', 4),
    ("  model: sim/a\n  role: candidate\n  vision: 'false'\n", ["vision", "true or false", "'false'"], 'vision', 4),
    ("  model: sim/a\n  role: candidate\n  vision: 0\n", ["vision"], 'vision', 4),
    ("  model: sim/a\n  role: candidate\n  batch: 'yes'\n", ["batch", "true or false", "'yes'"], 'batch', 4),
    ("  model: sim/a\n  role: candidate\n  batch: 1\n", ["batch", "true or false"], 'batch', 4),
    ("  model: sim/a\n", ["role", "required"], 'role', 1),
    ("  model: sim/a\n  model: sim/b\n  role: candidate\n", ["model", "twice", "lines 2 and 3"], 'model', 3),
    # json.dumps would quietly turn these keys into "1" / "true"; litellm would get another request
    ("  model: sim/a\n  role: candidate\n  params: {1: 0.5}\n", ["params", "key", "string"], 'params.1', 4),
    ("  model: sim/a\n  role: candidate\n  params: {extra_body: {true: 1}}\n", ["params", "key", "string"], 'params.extra_body.true', 4),
    ("  model: sim/a\n  role: candidate\n  params: {? [x, y] : 1}\n", ["unhashable"], None, 4),
    ("  model: sim/a\n  role: candidate\n  display_name: no\n", ["display_name", "False"], 'display_name', 4),
    # YAML's true is Python's 1: a limit nobody meant
    ("  model: sim/a\n  role: candidate\n  max_concurrency: true\n", ["max_concurrency", "positive integer", "True"], 'max_concurrency', 4),
    ("  model: sim/a\n  role: candidate\n  rpm: false\n", ["rpm", "positive integer", "False"], 'rpm', 4),
    ("  model: sim/a\n  role: candidate\n  max_concurrency: 2.5\n", ["max_concurrency", "2.5"], 'max_concurrency', 4),
    # credentials: refused in headers and other params alike, by name or by the look of the value
    ("  model: openai/x\n  role: candidate\n  params: {extra_headers: {Authorization: Bearer abc}}\n",
     ["params.extra_headers.Authorization", "credential", "environment"], 'params.extra_headers.Authorization', 4),
    ("  model: openai/x\n  role: candidate\n  params: {extra_headers: {X-API-Key: abc}}\n",
     ["params.extra_headers.X-API-Key", "environment"], 'params.extra_headers.X-API-Key', 4),
    ("  model: openai/x\n  role: candidate\n  params: {extra_headers: {api-key: abc}}\n",
     ["params.extra_headers.api-key", "environment"], 'params.extra_headers.api-key', 4),
    ("  model: openai/x\n  role: candidate\n  params: {extra_headers: {Cookie: session=abc}}\n",
     ["params.extra_headers.Cookie", "environment"], 'params.extra_headers.Cookie', 4),
    ("  model: openai/x\n  role: candidate\n  params: {extra_headers: {X-Gateway: 'Bearer eyJhbGciOi.x'}}\n",
     ["params.extra_headers.X-Gateway", "looks like a credential", "environment"], 'params.extra_headers.X-Gateway', 4),
    ("  model: openai/x\n  role: candidate\n  params: {extra_body: {auth: [sk-proj-abcdefghijklmnopqrstu]}}\n",
     ["params.extra_body.auth[0]", "looks like a credential"], 'params.extra_body.auth[0]', 4),
    ("  model: openai/x\n  role: candidate\n  params: {aws_secret_access_key: abc}\n",
     ["params.aws_secret_access_key", "environment"], 'params.aws_secret_access_key', 4),
    # api_base: where the prompts go must be an http(s) server
    ("  model: openai/x\n  role: candidate\n  api_base: file:///etc/passwd\n", ["api_base", "http", "file:///"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  api_base: localhost:8000/v1\n", ["api_base", "http"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  api_base: ''\n", ["api_base", "http"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  api_base: 8000\n", ["api_base", "8000"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  api_base: 'http://me:pw@gpu-2/v1'\n", ["api_base", "password"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  api_base: 'https://gw/v1?api_key=abc'\n", ["api_base", "api_key"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  params: {base_url: 'file:///tmp/x'}\n", ["params.base_url", "http"], 'params.base_url', 4),
    # not a URL, and a key in it: refused without repeating the key (the refusal goes to the UI's event log)
    ("  model: openai/x\n  role: candidate\n  api_base: 'gpu-2:8000/v1?api_key=sk-proj-abcdefghijklmnopqrstu'\n",
     ["api_base", "http", "not shown"], 'api_base', 4),
    ("  model: openai/x\n  role: candidate\n  provider: no-such-provider\n",
     ["'provider' 'no-such-provider'", "providers.yaml", "litellm"], 'provider', 4),
    # a budget is dollars: not text, not a boolean, not negative
    ("  model: openai/x\n  role: candidate\n  budget_usd: '5'\n", ["budget_usd", "dollars", "'5'"], 'budget_usd', 4),
    ("  model: openai/x\n  role: candidate\n  budget_usd: true\n", ["budget_usd", "True"], 'budget_usd', 4),
    ("  model: openai/x\n  role: candidate\n  budget_usd: -1\n", ["budget_usd", "-1"], 'budget_usd', 4),
    # a simulated model's behaviour settings: used as written or refused, never a silent default or bound
    ("  model: sim/a\n  role: candidate\n  params: {skill: high}\n", ["params.skill", "number", "'high'"],
     'params.skill', 4),
    ("  model: sim/a\n  role: candidate\n  params: {skill: 1.5}\n", ["params.skill", "between 0 and 1", "1.5"],
     'params.skill', 4),
    ("  model: sim/a\n  role: candidate\n  params: {verbosity: -1}\n", ["params.verbosity", "at least 0"],
     'params.verbosity', 4),
    ("  model: sim/j\n  role: candidate\n  params: {position_bias: true}\n", ["params.position_bias", "number", "True"],
     'params.position_bias', 4),
    ("  model: sim/j\n  role: candidate\n  params: {malformed_rate: '0.1'}\n", ["params.malformed_rate", "'0.1'"],
     'params.malformed_rate', 4),
    ("  model: sim/j\n  role: candidate\n  params: {leniency: 6}\n", ["params.leniency", "between -5 and 5"],
     'params.leniency', 4),
    ("  model: sim/j\n  role: candidate\n  params: {self_preference: -11}\n", ["params.self_preference", "-10 and 10"],
     'params.self_preference', 4),
])
def test_entries_that_would_fail_later_or_mean_something_else_are_refused_at_load(tmp_path, entry, words, field, line):
    path = write(tmp_path, "bad:\n" + entry + "good:\n  model: sim/g\n  role: candidate\n")
    entries, problems = load_registry(path, "models")
    assert [e.slug for e in entries] == ["good"]
    [problem] = problems
    assert problem.entry == "bad" and str(path) in str(problem)
    for word in words:
        assert word in problem.reason, (word, problem.reason)
    assert "sk-proj" not in str(problem) and "Bearer abc" not in str(problem)
    # The key at fault and its line (the entry's when the key is missing or is not a name), also in the text
    assert (problem.field, problem.line) == (field, line), (problem.field, problem.line)
    assert f"(line {line}" in str(problem) and (field is None or f"field {field})" in str(problem))


@pytest.mark.parametrize("slug", ["all", "dataset", "baseline"])
def test_slugs_the_tables_use_for_something_else_are_reserved(tmp_path, slug):
    # 'all' is the margin row of URS tables, 'dataset' the author of a dataset's reference answer,
    # 'baseline' the pooled anchor of the ratings: a model under that name would mix with them.
    path = write(tmp_path, f"{slug}:\n  model: sim/a\n  role: candidate\ngood:\n  model: sim/g\n  role: candidate\n")
    entries, [problem] = load_registry(path, "models")
    assert [e.slug for e in entries] == ["good"]
    assert problem.entry == slug and "reserved" in problem.reason and (problem.line, problem.field) == (1, None)


def test_a_key_that_is_not_a_name_is_refused_and_spares_the_others(tmp_path):
    path = write(tmp_path, "[a, b]:\n  model: sim/a\n  role: candidate\ngood:\n  model: sim/g\n  role: candidate\n")
    entries, [problem] = load_registry(path, "models")
    assert [e.slug for e in entries] == ["good"] and "[a-z0-9._-]+" in problem.reason


def test_yaml_merge_keys_share_fields_and_own_keys_still_count_once(tmp_path):
    path = write(tmp_path, """shared: &shared
  model: sim/a
  role: candidate
  params: {temperature: 0.2}
variant:
  <<: *shared
  params: {temperature: 0.9}
  display_name: Hot variant
twice:
  <<: *shared
  role: candidate
  role: baseline
""")
    entries, [problem] = load_registry(path, "models")
    by_slug = {e.slug: e for e in entries}
    assert set(by_slug) == {"shared", "variant"}
    assert by_slug["variant"].params == {"temperature": 0.9} and by_slug["variant"].model == "sim/a"
    assert by_slug["variant"].display_name == "Hot variant"
    assert problem.entry == "twice" and "'role' given twice (lines 11 and 12)" in problem.reason
    assert (problem.field, problem.line) == ("role", 12)


def test_a_refusal_names_the_key_at_fault_and_its_own_line_not_the_entry(tmp_path):
    path = write(tmp_path, """shared: &shared
  model: sim/a
  role: candidate
  params:
    temperature: 0.2
    released: 2024-05-01
dated:
  <<: *shared
  display_name: Dated
stops:
  model: sim/b
  role: candidate
  params:
    stop:
      - END
      - 2024-06-01
headers:
  model: openai/x
  role: candidate
  params:
    extra_headers:
      X-Trace: on
      X-Trace: off
typo:
  model: sim/c
  role: candidate
  visoin: false
""")
    entries, problems = load_registry(path, "models")
    assert entries == []
    found = {p.entry: (p.field, p.line) for p in problems}
    assert found == {
        "shared": ("params.released", 6),
        "dated": ("params.released", 6),      # merged from the anchor: the line where the date is written
        "stops": ("params.stop[1]", 16),      # a list item: its own line
        "headers": ("params.extra_headers.X-Trace", 23),  # a key given twice: the second time, its whole path
        "typo": ("visoin", 27),               # an unknown field
    }
    dated = next(p for p in problems if p.entry == "dated")
    assert "params.released is a YAML date (2024-05-01)" in dated.reason
    assert str(dated) == f"{path}: entry 'dated': {dated.reason} (line 6, field params.released)"


def test_panel_and_provider_refusals_name_their_key(tmp_path):
    from benchwright.panels import load_panels

    panels = write(tmp_path, "pair:\n  members:\n    - j1\n    - j9\nsolo:\n  members: [j1]\n  aggregate: vote\n",
                   name="panels.yaml")
    _, problems = load_panels(panels, judge_slugs=["j1", "j2"])
    assert {p.entry: (p.field, p.line) for p in problems} == {"pair": ("members[1]", 4), "solo": ("members", 6)}
    providers = write(tmp_path, "lab:\n  max_in_flight: 4\n  rpm: 0\n", name="providers.yaml")
    _, [problem] = load_providers(providers)
    assert (problem.entry, problem.field, problem.line) == ("lab", "rpm", 3)


def test_a_file_that_is_not_a_mapping_names_the_file(tmp_path):
    path = write(tmp_path, "- sim-strong\n- sim-weak\n")
    with pytest.raises(ValueError, match=f"{path}: expected a mapping"):
        load_registry(path, "models")


def test_batch_is_carried_to_the_runner_and_does_not_make_the_entry_stale(tmp_path):
    path = write(tmp_path, """
live:
  model: openai/gpt-4o-mini
  role: candidate
batched:
  model: openai/gpt-4o
  role: candidate
  batch: true
batched-limited:
  model: openai/gpt-4.1
  role: candidate
  batch: true
  max_concurrency: 2
""")
    entries, problems = load_registry(path, "models")
    assert problems == []
    live, batched, limited = entries
    assert not live.batch and batched.batch and limited.batch
    assert limits_for(entries) == {"openai/gpt-4o": ModelLimits(batch=True),
                                   "openai/gpt-4.1": ModelLimits(max_concurrency=2, batch=True)}
    # Batch or live, the answers and their cache keys are the same: switching must not re-run the entry.
    assert batched.version == dataclasses.replace(batched, batch=False).version
    assert batched.version != dataclasses.replace(batched, rpm=5).version
def test_shipped_providers_file_loads_without_problems():
    providers, problems = load_providers(ROOT / "registry" / "providers.yaml")
    assert problems == [] and isinstance(providers, dict)


def test_provider_limits_are_checked_and_a_bad_entry_spares_the_others(tmp_path):
    path = write(tmp_path, """
openai: {max_in_flight: 32, rpm: 5000, tpm: 2000000}
lab-server: {rpm: 60}
bad-count: {max_in_flight: 0}
bad-field: {rps: 3}
bad-bool: {rpm: true}
sim: {max_in_flight: 2}
""", name="providers.yaml")
    providers, problems = load_providers(path)
    assert providers == {"openai": ProviderLimits(max_in_flight=32, rpm=5000, tpm=2000000),
                         "lab-server": ProviderLimits(max_in_flight=DEFAULT_MAX_IN_FLIGHT, rpm=60, tpm=None)}
    assert sorted(p.entry for p in problems) == ["bad-bool", "bad-count", "bad-field", "sim"]
    assert load_providers(tmp_path / "absent.yaml") == ({}, [])


def test_an_entry_names_its_provider_and_entries_without_one_keep_their_version(tmp_path):
    write(tmp_path, "gpu-2:\n", name="providers.yaml")  # defined, with the default limits
    path = write(tmp_path, """
plain: {model: openai/gpt-4o-mini, role: candidate}
named: {model: openai/qwen, role: candidate, api_base: "http://gpu-2:8000/v1", provider: gpu-2}
bad: {model: openai/qwen, role: candidate, provider: "GPU 2"}
litellms: {model: openai/qwen, role: candidate, api_base: "http://gpu-3:8000/v1", provider: openai}
unknown: {model: openai/qwen, role: candidate, provider: gpu-3}
""")
    entries, problems = load_registry(path, "models")
    by_slug = {e.slug: e for e in entries}
    assert by_slug["named"].provider == "gpu-2" and by_slug["plain"].provider is None
    assert by_slug["litellms"].provider == "openai"  # litellm's own providers need no providers.yaml entry
    assert [p.entry for p in problems] == ["bad", "unknown"]
    assert (problems[1].line, problems[1].field) == (6, "provider")
    assert "Add `gpu-3:` to providers.yaml" in problems[1].reason
    # the providers file is the one given (the resource's BENCHWRIGHT_PROVIDERS), else the one beside the registry
    (tmp_path / "elsewhere").mkdir()
    elsewhere = write(tmp_path / "elsewhere", "gpu-3: {rpm: 60}\n", name="providers.yaml")
    entries, problems = load_registry(path, "models", elsewhere)
    assert [p.entry for p in problems] == ["named", "bad"]
    # the version of an entry is the one it had before the field existed, and naming a provider (whose limits
    # the calls count against) does not change what the answers are
    before = RegistryEntry(slug="plain", model="openai/gpt-4o-mini", display_name="plain", role="candidate")
    assert by_slug["plain"].version == before.version == "09e3a720986650d3"
    assert by_slug["named"].version == dataclasses.replace(by_slug["named"], provider=None).version
    assert provider_of("openai/gpt-4o-mini") == "openai"
    assert provider_of("gpt-4o-mini") == "openai" and provider_of("anthropic/claude-x") == "anthropic"
    assert provider_of("openai/qwen", "http://gpu-2:8000/v1", "gpu-2") == "gpu-2"
    assert provider_of("sim/strong-writer") == "sim"


def test_a_refused_provider_entry_lists_every_fault_with_its_field_and_line(tmp_path):
    path = write(tmp_path, """
openai: {rpm: 500}
lab-server:
  max_in_flight: -1
  rpm: '60'
  tpm: 1.5
""", name="providers.yaml")
    providers, problems = load_providers(path)
    assert providers == {"openai": ProviderLimits(rpm=500)}  # the refused entry gets no limits, not the defaults
    assert [str(p) for p in problems] == [
        f"{path}: entry 'lab-server': 'max_in_flight' must be a positive integer, not -1 (line 4, field max_in_flight)",
        f"{path}: entry 'lab-server': 'rpm' must be a positive integer, not '60' (line 5, field rpm)",
        f"{path}: entry 'lab-server': 'tpm' must be a positive integer, not 1.5 (line 6, field tpm)"]
    assert refused_providers(problems) == {"lab-server": [str(p) for p in problems]}
    with pytest.raises(ProviderEntriesRefused) as refused:
        checked_providers(path)
    assert refused.value.faults == {"lab-server": [str(p) for p in problems]}
    assert all(str(p) in str(refused.value) for p in problems)
    assert checked_providers(ROOT / "registry" / "providers.yaml") == {}


def test_a_budget_reaches_the_model_limits_and_does_not_make_the_entry_stale(tmp_path):
    path = write(tmp_path, "capped:\n  model: openai/gpt-4o\n  role: candidate\n  budget_usd: 2.5\n"
                           "free:\n  model: openai/gpt-4.1\n  role: candidate\n  budget_usd: 0\n")
    entries, problems = load_registry(path, "models")
    assert problems == []
    capped, free = entries
    assert capped.budget_usd == 2.5 and free.budget_usd == 0.0
    assert limits_for(entries) == {
        "openai/gpt-4o": ModelLimits(budget_usd=2.5, budget_name="capped"),
        "openai/gpt-4.1": ModelLimits(budget_usd=0.0, budget_name="free")}
    # A larger budget adds answers to the same requests: the entry's results are not stale for it.
    assert capped.version == dataclasses.replace(capped, budget_usd=10.0).version
