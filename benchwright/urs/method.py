"""URS — user-centric, intent-aware scoring (METHODS §3): criteria, judge prompts, parser, metrics.

A judge scores one answer 1–10 against a reference answer that is, by definition, worth 8, on the
five criteria chosen by the user's intent, and ends with a dict of integer scores:
``{'Factuality': 8, ..., 'Final Score': 7}`` in English, ``{'事实正确性': 8, ..., '综合得分': 7}``
in Chinese. Prompts exist in both languages; a question is judged in its own language.

Intents and criteria use the names of METHODS §3 (``"Factual QA"``, ``"Usage through API"`` ...);
languages are ``"en"`` and ``"zh"``. The prompts are our own wording of the method's four parts.
Bump the matching ``*_PROMPT_VERSION`` whenever a prompt's text changes.

Choices the method leaves open, made here:

- A score must be written as an integer (``7`` or ``'7'``); ``7.5``, ``7.0``, ``8/10`` or text are
  parse failures, as are scores outside 1–10, a key we do not know, one key given two different
  values, and a dict without the final score. A failure is counted, never turned into a score.
- When the text holds several dicts (a judge may echo the template first), the last dict that
  names at least one known key is the judge's answer — unless that dict also occurs in the reference
  or the answer the judge was shown: then it is an echo (``benchwright.judging``) and is skipped; a
  judgment with only echoed dicts is the parse failure ``'echoed_answer'``.
- Cross-validation (§3.4): the reference answer of reference model B is always B's *second*
  sample (sample_index 1) and the candidate's answer its first (sample_index 0). So the grid's
  diagonal (candidate = B) is exactly the rating-bias setting: B's answer judged against B's own
  other answer.
- Bradley–Terry (``benchwright.ratings``): a tie counts as half a win for each side; "cannot
  tell" is excluded (§3.4).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping

import pandas as pd

from benchwright import judging
from benchwright.agreement import pearson
from benchwright.judging import Shown
from benchwright.quality import between

CANDIDATE_PROMPT_VERSION = "urs-candidate-v1"
JUDGE_PROMPT_VERSION = "urs-judge-v1"

LANGUAGES = ("en", "zh")
REFERENCE_SCORE = 8  # what the reference answer itself is worth (§3.3)
SCORE_MIN, SCORE_MAX = 1, 10

# --- intents and criteria (METHODS §3.2) ----------------------------------------------------------

INTENTS = (
    "Factual QA",
    "Solve Professional Problem",
    "Text Assistant",
    "Ask for Advice",
    "Seek Creativity",
    "Leisure",
    "Usage through API",
)

INTENT_NAMES_ZH = {
    "Factual QA": "事实问答",
    "Solve Professional Problem": "解决专业问题",
    "Text Assistant": "文本助手",
    "Ask for Advice": "寻求建议",
    "Seek Creativity": "寻求创意",
    "Leisure": "休闲娱乐",
    "Usage through API": "通过 API 使用",
}

CRITERIA_BY_INTENT: dict[str, tuple[str, ...]] = {
    "Factual QA": ("Factuality", "User Satisfaction", "Clarity", "Completeness", "Logical Coherence"),
    "Solve Professional Problem": ("Factuality", "User Satisfaction", "Clarity", "Logical Coherence", "Completeness"),
    "Text Assistant": ("Clarity", "User Satisfaction", "Logical Coherence", "Factuality", "Creativity"),
    "Usage through API": ("Factuality", "User Satisfaction", "Clarity", "Logical Coherence", "Completeness"),
    "Ask for Advice": ("User Satisfaction", "Factuality", "Fairness and Responsibility", "Creativity", "Richness"),
    "Seek Creativity": ("User Satisfaction", "Logical Coherence", "Creativity", "Richness", "Factuality"),
    "Leisure": ("User Satisfaction", "Engagement", "Appropriateness", "Creativity", "Factuality"),
}

# criterion -> (Chinese name, English definition, Chinese definition); definitions in our words.
CRITERIA: dict[str, tuple[str, str, str]] = {
    "Factuality": (
        "事实正确性",
        "every statement is accurate and rests on reliable facts and data",
        "所述内容准确无误，依据可靠的事实和数据",
    ),
    "User Satisfaction": (
        "满足用户需求",
        "the answer does what the user asked for, fully and in a suitable way",
        "回答切中用户的问题和需要，全面而恰当",
    ),
    "Logical Coherence": (
        "逻辑连贯性",
        "the answer hangs together from start to end and never contradicts itself",
        "前后一致，条理清楚，没有自相矛盾之处",
    ),
    "Richness": (
        "丰富度",
        "it offers depth, context, varied points of view, explanations and examples",
        "信息充实，有深度和背景，角度多样，并有解释和例子",
    ),
    "Creativity": (
        "创造性",
        "it brings original ideas, fresh angles or novel solutions",
        "有新意或独到之处，能提出新颖的见解或办法",
    ),
    "Fairness and Responsibility": (
        "公平与可负责程度",
        "its advice is practical and responsible and weighs risks and consequences",
        "建议切实可行、负责任，并考虑到可能的风险和后果",
    ),
    "Completeness": (
        "完备性",
        "it gives enough information and detail and leaves out nothing important",
        "信息和细节充足，没有遗漏重要方面",
    ),
    "Clarity": (
        "清晰度",
        "the language and structure are clear and concise",
        "语言和结构清楚、简洁",
    ),
    "Engagement": (
        "趣味性",
        "it is interesting and enjoyable and gives emotional or entertainment value",
        "有趣、吸引人，能带来情感上或娱乐上的价值",
    ),
    "Appropriateness": (
        "适宜性",
        "it suits every audience and contains nothing offensive or inappropriate",
        "适合所有用户，没有不当或冒犯性的内容",
    ),
}

FINAL_KEY = {"en": "Final Score", "zh": "综合得分"}
FINAL = "final"  # the key of the final score in parse_scores' result


def criterion_name(criterion: str, language: str) -> str:
    """The criterion's name as written in a prompt (and in the judge's dict) of this language."""
    return CRITERIA[criterion][0] if language == "zh" else criterion


def _check_intent_language(intent: str, language: str) -> None:
    if intent not in CRITERIA_BY_INTENT:
        raise ValueError(f"unknown intent {intent!r}; expected one of {', '.join(INTENTS)}")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected 'en' or 'zh'")


# --- candidate prompt -----------------------------------------------------------------------------

CANDIDATE_SYSTEM = (
    "You are a helpful assistant. Answer the user's question directly, "
    "in the language the question is written in."
)


def candidate_messages(question: str) -> list[dict]:
    """What a candidate (or the reference model) is asked: the user's question as it stands."""
    return [{"role": "system", "content": CANDIDATE_SYSTEM}, {"role": "user", "content": question}]


# --- judge prompt (METHODS §3.3) ------------------------------------------------------------------

QUESTION_TAG = "user_question"
REFERENCE_TAG = "reference_answer"
ANSWER_TAG = "answer_to_evaluate"
PROMPT_TAGS = (QUESTION_TAG, REFERENCE_TAG, ANSWER_TAG)
SCORE_PLACEHOLDER = "<1-10>"  # stands for a score in the output template of both languages

_JUDGE_EN = """You are an expert evaluator of AI assistants. A real user asked a question with a particular intent. Judge how well the answer to evaluate serves that user.

Part 1 - What matters for this intent
The user's intent is: {intent}. Judge the answer on these five criteria:
{criteria}

Part 2 - How to proceed
1. Read the question and the reference answer. Compare the answer to evaluate with the reference answer and name its shortcomings.
2. Score each of the five criteria from 1 to 10.
3. Combine them into one overall score from 1 to 10. Factual correctness and whether the user's needs are met count most in the overall score; do not just take the average.

Part 3 - Scoring standards
- 1-2: the answer is irrelevant, wrong on its central facts, or harmful.
- 3-4: no serious error, but the quality is low and the user's needs are largely unmet.
- 5-6: the answer basically meets the user's needs but is weak on some criteria.
- 7-8: the answer is about as good as the reference answer and good on every criterion.
- 9-10: only for an answer clearly better than the reference answer and close to perfect.
The reference answer itself is worth 8. A longer answer is not better for being longer.

First explain your assessment. Then end with a Python dict of integer scores in exactly this form, with nothing after it:
{template}"""

_JUDGE_ZH = """你是评估 AI 助手回答质量的专家。一位真实用户带着特定的意图提出了问题。请判断待评估的回答对这位用户有多大帮助。

第一部分：该意图下的评价标准
用户的意图是：{intent}。请从以下五个方面评价回答：
{criteria}

第二部分：评估步骤
1. 阅读问题和参考答案。将待评估的回答与参考答案进行比较，指出它的不足之处。
2. 对五个方面分别打分，分值为 1 到 10。
3. 综合各项给出 1 到 10 的综合得分。在综合得分中，事实是否正确和用户需求是否得到满足最为重要；不要简单地取平均值。

第三部分：评分标准
- 1-2 分：回答离题、核心事实错误，或有害。
- 3-4 分：没有严重错误，但质量较差，基本没有满足用户需求。
- 5-6 分：基本满足用户需求，但在某些方面表现较弱。
- 7-8 分：与参考答案水平相当，各方面都表现良好。
- 9-10 分：只有明显优于参考答案且接近完美时才可给出。
参考答案本身的分数为 8 分。回答更长并不意味着更好。

请先说明你的评价理由，最后以如下格式的 Python 字典给出整数分数，字典之后不要再写任何内容：
{template}"""

_USER_EN = "Here is the material to judge.\n\n{parts}\n\nNow evaluate the answer and end with the dict of scores."
_USER_ZH = "以下是需要评估的内容。\n\n{parts}\n\n请开始评估，并以分数字典结尾。"


def output_template(intent: str, language: str) -> str:
    """The dict the judge must end with, with placeholders for the scores."""
    _check_intent_language(intent, language)
    keys = [criterion_name(c, language) for c in CRITERIA_BY_INTENT[intent]] + [FINAL_KEY[language]]
    return "{" + ", ".join(f"'{key}': {SCORE_PLACEHOLDER}" for key in keys) + "}"


def judge_messages(question: str, intent: str, language: str, reference_answer: str, answer: str) -> list[dict]:
    """The intent-aware judge prompt (§3.3) in the question's language.

    Parts 1–3 (criteria with definitions, reasoning steps, scoring standards) form the system
    message; part 4 (question, reference answer, answer to evaluate) the user message.
    """
    _check_intent_language(intent, language)
    if language == "zh":
        criteria = "\n".join(f"- {CRITERIA[c][0]}：{CRITERIA[c][2]}" for c in CRITERIA_BY_INTENT[intent])
        system = _JUDGE_ZH.format(intent=INTENT_NAMES_ZH[intent], criteria=criteria,
                                  template=output_template(intent, language))
        user_frame = _USER_ZH
    else:
        criteria = "\n".join(f"- {c}: {CRITERIA[c][1]}" for c in CRITERIA_BY_INTENT[intent])
        system = _JUDGE_EN.format(intent=intent, criteria=criteria, template=output_template(intent, language))
        user_frame = _USER_EN
    parts = "\n\n".join(judging.tagged(tag, (text or "").strip(), PROMPT_TAGS) for tag, text in (
        (QUESTION_TAG, question), (REFERENCE_TAG, reference_answer), (ANSWER_TAG, answer)))
    return [{"role": "system", "content": system}, {"role": "user", "content": user_frame.format(parts=parts)}]


# --- parsing the judge's dict -----------------------------------------------------------------------

def _key_form(text: str) -> str:
    """Compare keys without case, spaces, quotes or punctuation ('User_Satisfaction' = 'user satisfaction')."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


_KEYS: dict[str, str] = {}
for _criterion, (_zh_name, _, _) in CRITERIA.items():
    _KEYS[_key_form(_criterion)] = _criterion
    _KEYS[_key_form(_zh_name)] = _criterion
for _alias in ("Final Score", "Final", "Overall Score", "综合得分", "综合评分", "最终得分"):
    _KEYS[_key_form(_alias)] = FINAL

# Quotes NFKC leaves alone; everything else full-width (：，｛｝＇＂ digits) NFKC turns to ASCII.
QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "「": '"', "」": '"', "『": '"', "』": '"'})
DICT = re.compile(r"\{[^{}]*\}")
_ENTRY_SEPARATORS = re.compile(r"[,;\n、]")
_INTEGER = re.compile(r"""^(['"]?)\s*(-?\d+)\s*\1$""")


def _known_key(raw_key: str) -> str | None:
    key = raw_key.strip().strip("'\"`*").strip()
    found = _KEYS.get(_key_form(key))
    if found is None:
        # "事实正确性(Factuality)" or "Factuality (事实正确性)": either half may name it.
        for half in re.split(r"[()（）]", key):
            if half.strip() and _KEYS.get(_key_form(half)):
                return _KEYS[_key_form(half)]
    return found


def _read_dict(body: str) -> tuple[dict[str, int] | None, bool]:
    """(scores or None when unreadable, whether any known key appears)."""
    scores: dict[str, int] = {}
    named_a_key = False
    readable = True
    for entry in _ENTRY_SEPARATORS.split(body):
        if not entry.strip():
            continue
        key, colon, value = entry.partition(":")
        name = _known_key(key) if colon else None
        named_a_key = named_a_key or name is not None
        match = _INTEGER.match(value.strip()) if colon else None
        if name is None or match is None:
            readable = False
            continue
        number = int(match.group(2))
        if not SCORE_MIN <= number <= SCORE_MAX or scores.get(name, number) != number:
            readable = False
            continue
        scores[name] = number
    return (scores if readable else None), named_a_key


def read_scores(text: str | None, shown: Shown | Iterable[str | None] | None = None
                ) -> tuple[dict[str, int] | None, str | None]:
    """The judge's scores and the parse problem (one of them is None).

    Scores: {criterion (English name): int, ..., 'final': int}. Reads English and Chinese dicts
    (``'Final Score'`` / ``'综合得分'``, Chinese criterion names), full-width punctuation, single or
    double quotes and text around the dict. The judge's last dict that names a known key is its
    answer; a dict that also occurs in a text the judge was shown (``shown``: the reference and the
    answer) is an echo, not the judge's (``benchwright.judging``). See the module docstring for what
    counts as a failure.
    """
    if not text:
        return None, "empty_output"
    shown_texts = judging.shown(shown)
    normalized = unicodedata.normalize("NFKC", text).translate(QUOTES)
    # Dicts that name a known key are score dicts; the judge's answer is its last own one.
    score_dicts = [m for m in DICT.finditer(normalized) if _read_dict(m.group(0)[1:-1])[1]]
    chosen, problem = judging.last_own(normalized, score_dicts, shown_texts)
    if chosen is None:
        return None, problem or "no_dict"
    scores, _ = _read_dict(chosen.group(0)[1:-1])
    if scores is None:
        return None, "unreadable_dict"
    if FINAL not in scores:
        return None, "no_final_score"
    return scores, None


def parse_scores(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> dict[str, int] | None:
    """The judge's scores, or None on failure: ``read_scores`` without the problem."""
    return read_scores(text, shown)[0]


# --- metrics (METHODS §3.4) ---------------------------------------------------------------------------

ALL = "all"

LEADERBOARD_COLUMNS = ["judge", "model", "intent", "language", "final_score", "n", "parse_failures"]
CRITERION_COLUMNS = ["judge", "model", "intent", "language", "criterion", "mean_score", "n"]
GRID_COLUMNS = ["judge", "reference_model", "model", "mean_score", "n", "parse_failures", "rank"]
BIAS_COLUMNS = ["judge", "model", "mean_rating", "bias", "n"]
USER_ALIGNMENT_COLUMNS = ["judge", "model", "n_intents", "pearson_r", "p_value"]
BT_COLUMNS = ["model", "coefficient", "rating", "comparisons", "wins", "ties", "losses", "at_bound"]
HUMAN_ALIGNMENT_COLUMNS = ["judge", "n_models", "pearson_r", "p_value", "spearman_rho", "ranks_agree"]


def _parsed(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[rows["parse_ok"].astype(bool) & rows["final_score"].notna()]


def _scopes(rows: pd.DataFrame) -> Iterable[tuple[str, str, pd.DataFrame]]:
    """(intent, language, rows) for every intent × language, each intent and language alone, and all."""
    for intent in [ALL, *sorted(rows["intent"].dropna().unique())]:
        for language in [ALL, *sorted(rows["language"].dropna().unique())]:
            scoped = rows
            if intent != ALL:
                scoped = scoped[scoped["intent"] == intent]
            if language != ALL:
                scoped = scoped[scoped["language"] == language]
            if len(scoped):
                yield intent, language, scoped


def leaderboard(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean final score per judge × model × intent × language, with 'all' rows for every margin.

    ``judgments`` has judge, model, intent, language, final_score, parse_ok (failed calls already
    left out). n counts parsed judgments; parse failures are counted beside it and are never a
    score. final_score is NaN when nothing in the scope parsed.
    """
    rows = []
    for (judge, model), group in judgments.groupby(["judge", "model"]):
        for intent, language, scoped in _scopes(group):
            parsed = _parsed(scoped)
            rows.append({"judge": judge, "model": model, "intent": intent, "language": language,
                         "final_score": float(parsed["final_score"].mean()) if len(parsed) else math.nan,
                         "n": len(parsed), "parse_failures": len(scoped) - len(parsed)})
    table = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)
    table["final_score"] = table["final_score"].astype("float64")
    return table


def criterion_scores_of(value) -> dict[str, int]:
    """Criterion scores stored as JSON text (or a dict), without the final score."""
    if isinstance(value, str) and value:
        value = json.loads(value)
    if not isinstance(value, Mapping):
        return {}
    return {k: int(v) for k, v in value.items() if k != FINAL and v is not None}


def criterion_means(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean of each criterion's score per judge × model × intent × language (and 'all' margins).

    Over 'all' intents a criterion's mean covers the items whose intent uses it.
    ``judgments`` needs a criterion_scores column (JSON text as stored, or dicts).
    """
    long = []
    for row in _parsed(judgments).itertuples(index=False):
        for criterion, score in criterion_scores_of(row.criterion_scores).items():
            long.append({"judge": row.judge, "model": row.model, "intent": row.intent,
                         "language": row.language, "criterion": criterion, "score": score})
    long_df = pd.DataFrame(long, columns=["judge", "model", "intent", "language", "criterion", "score"])
    rows = []
    for (judge, model), group in long_df.groupby(["judge", "model"]):
        for intent, language, scoped in _scopes(group):
            for criterion, scores in scoped.groupby("criterion")["score"]:
                rows.append({"judge": judge, "model": model, "intent": intent, "language": language,
                             "criterion": criterion, "mean_score": float(scores.mean()), "n": len(scores)})
    return pd.DataFrame(rows, columns=CRITERION_COLUMNS)


def cross_validation_grid(cross: pd.DataFrame) -> pd.DataFrame:
    """Mean final score of every candidate per (evaluator judge, reference model) pair (§3.4).

    ``cross`` has judge, reference_model, model, final_score, parse_ok. rank orders the candidates
    within one (judge, reference model) cell, 1 = best (ties share the better rank); it is NaN
    for a candidate with no parsed score.
    """
    rows = []
    for (judge, reference, model), group in cross.groupby(["judge", "reference_model", "model"]):
        parsed = _parsed(group)
        rows.append({"judge": judge, "reference_model": reference, "model": model,
                     "mean_score": float(parsed["final_score"].mean()) if len(parsed) else math.nan,
                     "n": len(parsed), "parse_failures": len(group) - len(parsed)})
    table = pd.DataFrame(rows, columns=GRID_COLUMNS)
    table["mean_score"] = table["mean_score"].astype("float64")
    table["rank"] = table.groupby(["judge", "reference_model"])["mean_score"].rank(ascending=False, method="min")
    return table


def rating_bias(cross: pd.DataFrame) -> pd.DataFrame:
    """Rating bias per evaluator (§3.4): bias(A) = mean over B of (Rating_{A,B}(B) − 8).

    Rating_{A,B}(B) is the mean score judge A gives model B's answer when the reference is B's own
    other answer: the grid rows with model == reference_model. One row per (judge, model B) with
    that mean and its bias, and one row per judge with model = 'all' holding bias(A) (an
    unweighted mean over the models B that have a parsed rating; n = number of such models).
    """
    own = _parsed(cross[cross["model"] == cross["reference_model"]])
    rows = []
    for judge, group in own.groupby("judge"):
        per_model = group.groupby("model")["final_score"].agg(["mean", "size"])
        for model, stats in per_model.iterrows():
            rows.append({"judge": judge, "model": model, "mean_rating": float(stats["mean"]),
                         "bias": float(stats["mean"]) - REFERENCE_SCORE, "n": int(stats["size"])})
        rows.append({"judge": judge, "model": ALL, "mean_rating": float(per_model["mean"].mean()),
                     "bias": float(per_model["mean"].mean()) - REFERENCE_SCORE, "n": len(per_model)})
    return pd.DataFrame(rows, columns=BIAS_COLUMNS)


def user_alignment(board: pd.DataFrame, satisfaction: pd.DataFrame) -> pd.DataFrame:
    """Pearson correlation of benchmark score per intent with users' satisfaction per intent (§3.4).

    ``board`` is the leaderboard; ``satisfaction`` has intent and satisfaction (1–5) and optionally
    model. Without a model column, each intent's benchmark score is the mean over models of their
    mean final score (language 'all'), one row per judge with model 'all'. With a model column,
    one row per judge × model pairs that model's per-intent scores with its own satisfaction.
    """
    per_intent = board[(board["intent"] != ALL) & (board["language"] == ALL) & board["final_score"].notna()]
    has_model = "model" in satisfaction.columns and satisfaction["model"].notna().any()
    rows = []
    for judge, scores in per_intent.groupby("judge"):
        if has_model:
            groups = [(model, scores[scores["model"] == model], satisfaction[satisfaction["model"] == model])
                      for model in sorted(set(scores["model"]) & set(satisfaction["model"].dropna()))]
        else:
            groups = [(ALL, scores, satisfaction)]
        for model, model_scores, survey in groups:
            benchmark = model_scores.groupby("intent")["final_score"].mean()
            users = survey.groupby("intent")["satisfaction"].mean()
            shared = sorted(set(benchmark.index) & set(users.index))
            r, p = pearson([float(benchmark[i]) for i in shared], [float(users[i]) for i in shared])
            rows.append({"judge": judge, "model": model, "n_intents": len(shared), "pearson_r": r, "p_value": p})
    return pd.DataFrame(rows, columns=USER_ALIGNMENT_COLUMNS)


HUMAN_WINNERS = ("A", "B", "tie", "undetermined")
_WINNER_AS_VERDICT = {"A": "A>B", "B": "B>A", "tie": "A=B"}


def bradley_terry(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Bradley–Terry coefficients from human pairwise choices (winner A, B, tie or undetermined).

    'undetermined' rows are excluded (§3.4); a tie is half a win for each side. The fit is
    ``benchwright.ratings`` (maximum likelihood, no anchor): ``rating`` is on the Elo scale with
    mean 1000, ``coefficient`` the same fit as a natural-log strength centred on 0, so that
    P(i beats j) = 1 / (1 + exp(coefficient_j − coefficient_i)). ``at_bound`` marks a model that
    won or lost every comparison (no finite estimate). Raises ValueError when the models are not
    all connected by comparisons, or when there is none.
    """
    from benchwright import ratings

    unknown = set(comparisons["winner"]) - set(HUMAN_WINNERS)
    if unknown:
        raise ValueError(f"unknown winner value(s) {sorted(unknown)}; expected {HUMAN_WINNERS}")
    decided = comparisons[comparisons["winner"] != "undetermined"]
    battles = pd.DataFrame({"model_a": decided["model_a"], "model_b": decided["model_b"],
                            "verdict": decided["winner"].map(_WINNER_AS_VERDICT)})
    table = ratings.rating_table(battles, anchor=None, rounds=0)
    table["coefficient"] = (table["rating"] - ratings.INIT_RATING) * math.log(ratings.BASE) / ratings.SCALE
    table = table.rename(columns={"judgments": "comparisons"})
    return table[BT_COLUMNS].reset_index(drop=True)


def human_alignment(board: pd.DataFrame, coefficients: pd.DataFrame) -> pd.DataFrame:
    """Per judge: Pearson r of BT coefficients with overall benchmark scores, Spearman ρ, and
    whether the two rank orders agree exactly (over the models present in both)."""
    from scipy import stats

    overall = board[(board["intent"] == ALL) & (board["language"] == ALL) & board["final_score"].notna()]
    bt = coefficients.set_index("model")["coefficient"]
    rows = []
    for judge, scores in overall.groupby("judge"):
        benchmark = scores.set_index("model")["final_score"]
        shared = sorted(set(benchmark.index) & set(bt.index))
        x, y = [float(benchmark[m]) for m in shared], [float(bt[m]) for m in shared]
        r, p = pearson(x, y)
        rho = float(stats.spearmanr(x, y).statistic) if len(shared) >= 3 and not math.isnan(r) else math.nan
        agree = len(shared) >= 2 and (sorted(shared, key=lambda m: -benchmark[m]) == sorted(shared, key=lambda m: -bt[m]))
        rows.append({"judge": judge, "n_models": len(shared), "pearson_r": r, "p_value": p,
                     "spearman_rho": rho, "ranks_agree": bool(agree)})
    return pd.DataFrame(rows, columns=HUMAN_ALIGNMENT_COLUMNS)


# --- schema and range suites (validated with benchwright.quality.validate_frame) ---------------------


SUITES: dict[str, list[dict]] = {
    "urs_items": [
        {"type": "columns_exist", "columns": ["item_id", "intent", "language", "question", "reference_answer"]},
        {"type": "column_values_in_set", "column": "intent", "values": list(INTENTS)},
        {"type": "column_values_in_set", "column": "language", "values": list(LANGUAGES)},
        {"type": "column_not_null", "column": "question"},
        {"type": "columns_unique", "columns": ["item_id"]},
    ],
    "urs_generations": [
        {"type": "columns_exist", "columns": ["benchmark", "model", "item_id", "sample_index", "response", "error"]},
        {"type": "column_values_in_set", "column": "benchmark", "values": ["urs"]},
        {"type": "column_values_in_set", "column": "sample_index", "values": [0, 1]},
        {"type": "columns_unique", "columns": ["model", "item_id", "sample_index"]},
    ],
    "urs_judgments": [
        {"type": "columns_exist", "columns": ["model", "judge", "item_id", "raw_text", "final_score",
                                              "criterion_scores", "parse_ok", "error"]},
        between("final_score", SCORE_MIN, SCORE_MAX),
        {"type": "column_values_in_set", "column": "intent", "values": list(INTENTS)},
        {"type": "column_values_in_set", "column": "language", "values": list(LANGUAGES)},
        {"type": "columns_unique", "columns": ["model", "judge", "item_id"]},
    ],
    "urs_cross_judgments": [
        between("final_score", SCORE_MIN, SCORE_MAX),
        {"type": "columns_unique", "columns": ["judge", "reference_model", "model", "item_id"]},
    ],
    "urs_leaderboard": [
        between("final_score", SCORE_MIN, SCORE_MAX),
        between("n", 0, None, allow_null=False),
        {"type": "column_values_in_set", "column": "intent", "values": [ALL, *INTENTS]},
        {"type": "column_values_in_set", "column": "language", "values": [ALL, *LANGUAGES]},
        {"type": "columns_unique", "columns": ["judge", "model", "intent", "language"]},
    ],
    "urs_cross_validation": [
        between("mean_score", SCORE_MIN, SCORE_MAX),
        {"type": "columns_unique", "columns": ["judge", "reference_model", "model"]},
    ],
    "urs_rating_bias": [
        between("mean_rating", SCORE_MIN, SCORE_MAX, allow_null=False),
        between("bias", SCORE_MIN - REFERENCE_SCORE, SCORE_MAX - REFERENCE_SCORE, allow_null=False),
        {"type": "columns_unique", "columns": ["judge", "model"]},
    ],
}
