"""GAP (METHODS §4): game logs, player reliability, selection, rewards, rotation, VQA dataset, scoring.

Choices METHODS leaves open, made here:

- **Reliability prior.** Each player's two conditional rates, P(H=0 | I=1) (marks a planted error
  *Wrong*) and P(H=0 | I=0) (marks an honest answer *Wrong*), get an independent Beta(1, 1) prior;
  the estimate uses their posterior means (k + 1) / (n + 2). A player with no tainted history scores
  P(I=1)·0.5 / 0.5 = P(I=1) = 0.5 at the default planting rate, below θ = 0.8, so their untainted
  questions are kept only once their tainted marks show they tell planted errors from honest answers.
- **P(I=1)** is the game's configured planting probability (default 0.5), not a per-player rate.
- **Selection** uses each player's latest estimate (after all their tainted marks so far), so a
  player who turns into a spammer loses their earlier questions on the next run. The running
  estimate after every tainted mark is kept in its own table for audit.
- Only untainted questions the player marked *Wrong* are candidates (the estimate is
  P(M=0 | H=0)).
- **Points**: 20 per (session, tainted image) where the player marked *Wrong* an answer the model had
  been instructed to get wrong; a week is the ISO week of the session start (UTC).
- **Rotation**: an untainted image with more than 10 kept questions is flagged to move to the
  tainted set (the "model trained on them" condition is outside the product).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwright import judging
from benchwright.loading import complete_lines
from benchwright.judging import Shown
from benchwright.pii import pseudonym, redacted
from benchwright.quality import between

POINTS_PER_CAUGHT = 20
DEFAULT_THETA = 0.8
DEFAULT_P_PLANTED = 0.5
PRIOR_A, PRIOR_B = 1.0, 1.0          # Beta prior on each conditional rate
ROTATION_MIN_QUESTIONS = 10          # "more than 10 informative questions"
TIME_LIMIT_S = 120.0
MARKS = ("correct", "wrong")


def wrong_given_marked_wrong(p_marked_wrong_when_planted: float, p_marked_wrong_when_not_planted: float,
                             p_planted: float) -> float:
    """P(M=0 | H=0, untainted) ≈ P(H=0|I=1)P(I=1) / (P(H=0|I=0)P(I=0) + P(H=0|I=1)P(I=1)) (METHODS §4.2)."""
    for name, value in (("p_marked_wrong_when_planted", p_marked_wrong_when_planted),
                        ("p_marked_wrong_when_not_planted", p_marked_wrong_when_not_planted), ("p_planted", p_planted)):
        if not 0.0 <= value <= 1.0 or math.isnan(value):
            raise ValueError(f"{name} must be a probability, got {value}")
    caught = p_marked_wrong_when_planted * p_planted
    false_alarm = p_marked_wrong_when_not_planted * (1.0 - p_planted)
    if caught + false_alarm == 0.0:
        return 0.0     # the player never marks Wrong: nothing of theirs is a candidate anyway
    return caught / (caught + false_alarm)


# --------------------------------------------------------------------------------------------------
# Game logs: one JSON object per line = one question, the model's answer and the player's mark.

LOG_FIELDS: dict[str, type | tuple] = {
    "session_id": str, "player_id": str, "session_start": str, "image_id": str, "tainted": bool,
    "image_order": int, "time_limit_s": (int, float), "question_index": int, "question": str,
    "model_answer": str, "instructed_wrong": bool, "player_mark": str, "seconds_taken": (int, float),
}
LOG_COLUMNS = list(LOG_FIELDS)


def parse_log_line(line: str) -> dict:
    """One log line -> a row; raises ValueError naming what is wrong."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    missing = [f for f in LOG_FIELDS if f not in record]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    for field, kind in LOG_FIELDS.items():
        value = record[field]
        # bool is an int in Python: an int field must not accept true/false.
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ValueError(f"field {field!r} has the wrong type ({type(value).__name__})")
    if record["player_mark"] not in MARKS:
        raise ValueError(f"player_mark must be one of {MARKS}, got {record['player_mark']!r}")
    if record["instructed_wrong"] and not record["tainted"]:
        raise ValueError("instructed_wrong on an untainted image")
    if not 0 <= record["seconds_taken"] <= record["time_limit_s"]:
        raise ValueError(f"seconds_taken {record['seconds_taken']} outside [0, time_limit_s]")
    if record["image_order"] < 1 or record["question_index"] < 0:
        raise ValueError("image_order must be >= 1 and question_index >= 0")
    try:
        pd.Timestamp(record["session_start"])
    except ValueError:
        raise ValueError(f"session_start is not a timestamp: {record['session_start']!r}") from None
    return without_personal_data({field: record[field] for field in LOG_FIELDS})


def without_personal_data(mark: dict) -> dict:
    """A parsed mark as it may be stored, whoever produced the file (the web app masks, other producers
    may not): the free text redacted, and an identity that is personal data (a player or session named
    by an e-mail) replaced by its stable pseudonym, so the natural key stays one key per person."""
    return {**mark, "question": redacted(mark["question"]), "model_answer": redacted(mark["model_answer"]),
            "player_id": pseudonym(mark["player_id"]), "session_id": pseudonym(mark["session_id"])}


# A game mark's natural key: a session shows each picture once (image_order) and numbers its questions.
MARK_KEY = ["session_id", "image_order", "question_index"]
# Where a mark was read: the same file and line read again is the same record, not a duplicate.
MARK_PLACE = ["file_name", "line_no"]


def parse_log_file(data: bytes, file_name: str) -> tuple[str, pd.DataFrame, list[dict], bytes]:
    """(content sha256, good rows with file name and line numbers, quarantined lines with reasons, the
    unfinished last line).

    Follows the drop-folder contract (``benchwright.loading``): only complete lines are records (LF or
    CRLF; blank lines skipped); a last line without a line end is still being written and is returned
    as the tail, not read. A line that is not valid UTF-8 is quarantined, never silently altered.
    """
    digest = hashlib.sha256(data).hexdigest()
    rows, bad = [], []
    lines, tail = complete_lines(data)
    for number, raw_bytes in lines:
        try:
            raw = raw_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append({"file_sha256": digest, "file_name": file_name, "line_no": number,
                        "reason": f"not valid UTF-8 (byte {exc.start} of the line)",
                        "line": redacted(raw_bytes.decode("utf-8", errors="replace")[:2000])})
            continue
        try:
            row = parse_log_line(raw)
        except ValueError as exc:
            # A quarantined line is kept for the operator, redacted like every stored text.
            bad.append({"file_sha256": digest, "file_name": file_name, "line_no": number,
                        "reason": redacted(str(exc)), "line": redacted(raw[:2000])})
            continue
        rows.append({"file_sha256": digest, "file_name": file_name, "line_no": number, **row})
    frame = pd.DataFrame(rows, columns=["file_sha256", "file_name", "line_no", *LOG_COLUMNS])
    if len(frame):
        frame["session_start"] = pd.to_datetime(frame["session_start"], utc=True).dt.tz_localize(None)
        frame["seconds_taken"] = frame["seconds_taken"].astype(float)
        frame["time_limit_s"] = frame["time_limit_s"].astype(float)
    return digest, frame, bad, tail


# --------------------------------------------------------------------------------------------------
# Reliability (§4.2), selection, points, leaderboard, rotation.

@dataclass
class Reliability:
    """Running counts of one player's tainted marks, with the Beta prior."""
    planted_wrong: int = 0
    planted_total: int = 0
    honest_wrong: int = 0
    honest_total: int = 0

    def add(self, instructed_wrong: bool, marked_wrong: bool) -> None:
        if instructed_wrong:
            self.planted_total += 1
            self.planted_wrong += int(marked_wrong)
        else:
            self.honest_total += 1
            self.honest_wrong += int(marked_wrong)

    def rates(self) -> tuple[float, float]:
        return ((self.planted_wrong + PRIOR_A) / (self.planted_total + PRIOR_A + PRIOR_B),
                (self.honest_wrong + PRIOR_A) / (self.honest_total + PRIOR_A + PRIOR_B))

    def estimate(self, p_planted: float = DEFAULT_P_PLANTED) -> float:
        return wrong_given_marked_wrong(*self.rates(), p_planted)


def _in_play_order(marks: pd.DataFrame) -> pd.DataFrame:
    return marks.sort_values(["player_id", "session_start", "session_id", "image_order", "question_index"], kind="stable")


def reliability_history(marks: pd.DataFrame, p_planted: float = DEFAULT_P_PLANTED) -> pd.DataFrame:
    """The player's estimate after every tainted mark, in play order."""
    out = []
    state: dict[str, Reliability] = {}
    for row in _in_play_order(marks[marks["tainted"]]).itertuples(index=False):
        r = state.setdefault(row.player_id, Reliability())
        r.add(bool(row.instructed_wrong), row.player_mark == "wrong")
        out.append({"player_id": row.player_id, "session_id": row.session_id, "image_id": row.image_id,
                    "question_index": row.question_index, "tainted_marks": r.planted_total + r.honest_total,
                    "reliability": r.estimate(p_planted)})
    return pd.DataFrame(out, columns=["player_id", "session_id", "image_id", "question_index", "tainted_marks", "reliability"])


def player_reliability(marks: pd.DataFrame, p_planted: float = DEFAULT_P_PLANTED) -> pd.DataFrame:
    """Per player: counts, the two rates (posterior means) and the latest estimate."""
    state: dict[str, Reliability] = {p: Reliability() for p in sorted(marks["player_id"].unique())}
    for row in marks[marks["tainted"]].itertuples(index=False):
        state[row.player_id].add(bool(row.instructed_wrong), row.player_mark == "wrong")
    rows = []
    for player, r in state.items():
        p1, p0 = r.rates()
        rows.append({"player_id": player, "planted_total": r.planted_total, "planted_marked_wrong": r.planted_wrong,
                     "honest_total": r.honest_total, "honest_marked_wrong": r.honest_wrong,
                     "p_wrong_when_planted": p1, "p_wrong_when_honest": p0, "reliability": r.estimate(p_planted)})
    return pd.DataFrame(rows, columns=["player_id", "planted_total", "planted_marked_wrong", "honest_total",
                                       "honest_marked_wrong", "p_wrong_when_planted", "p_wrong_when_honest", "reliability"])


def select_adversarial(marks: pd.DataFrame, players: pd.DataFrame, theta: float = DEFAULT_THETA) -> pd.DataFrame:
    """Untainted questions marked Wrong by a player whose estimate exceeds θ."""
    candidates = marks[(~marks["tainted"]) & (marks["player_mark"] == "wrong")]
    merged = candidates.merge(players[["player_id", "reliability"]], on="player_id", how="left")
    kept = merged[merged["reliability"] > theta]
    return kept[["session_id", "player_id", "image_id", "question_index", "question", "model_answer", "reliability"]] \
        .reset_index(drop=True)


def points(marks: pd.DataFrame) -> pd.DataFrame:
    """20 points per (session, tainted image) with a planted error the player marked Wrong."""
    caught = marks[marks["tainted"] & marks["instructed_wrong"] & (marks["player_mark"] == "wrong")]
    per_image = caught.drop_duplicates(["session_id", "image_id"])
    return per_image[["player_id", "session_id", "session_start", "image_id"]].assign(points=POINTS_PER_CAUGHT)


def weekly_leaderboard(marks: pd.DataFrame) -> pd.DataFrame:
    """ISO week × player: points and rank (1 = most; ties share the lower rank)."""
    sessions = marks.drop_duplicates("session_id")[["player_id", "session_id", "session_start"]]
    per_session = points(marks).groupby("session_id")["points"].sum()
    sessions = sessions.assign(points=sessions["session_id"].map(per_session).fillna(0).astype(int))
    iso = pd.to_datetime(sessions["session_start"]).dt.isocalendar()
    sessions["week"] = iso["year"].astype(str) + "-W" + iso["week"].astype(int).map("{:02d}".format)
    board = sessions.groupby(["week", "player_id"], as_index=False)["points"].sum()
    board["rank"] = board.groupby("week")["points"].rank(method="min", ascending=False).astype(int)
    return board.sort_values(["week", "rank", "player_id"]).reset_index(drop=True)


def image_rotation(kept: pd.DataFrame, minimum: int = ROTATION_MIN_QUESTIONS) -> pd.DataFrame:
    counts = kept.groupby("image_id").size().rename("kept_questions").reset_index()
    counts["move_to_tainted"] = counts["kept_questions"] > minimum
    return counts.sort_values("image_id").reset_index(drop=True)


# --------------------------------------------------------------------------------------------------
# Player interaction model (§4.3). S = 1 when, on a tainted image, the player's mark is right about the
# answer (Wrong on a planted error, Correct on an honest answer): the question "revealed" the truth.

STRUCTURAL = ("alpha", "beta", "tau", "gamma", "lam")
PARAM_BOUNDS = (1e-3, 20.0)


def interaction_outcomes(marks: pd.DataFrame) -> pd.DataFrame:
    """Tainted marks as model rows: player, image, seconds, position, session length, S."""
    tainted = marks[marks["tainted"]].copy()
    # N = images shown in the session: the highest order seen in its log (tainted and untainted).
    tainted["session_images"] = tainted["session_id"].map(marks.groupby("session_id")["image_order"].max())
    tainted["revealed"] = ((tainted["player_mark"] == "wrong") == tainted["instructed_wrong"]).astype(int)
    return tainted[["player_id", "image_id", "seconds_taken", "image_order", "session_images", "revealed"]].reset_index(drop=True)


@dataclass
class InteractionModel:
    alpha: float
    beta: float
    tau: float
    gamma: float
    lam: float
    ability: dict[str, float]
    difficulty: dict[str, float]
    time_limit: float = TIME_LIMIT_S

    def predict(self, rows: pd.DataFrame) -> np.ndarray:
        a = rows["player_id"].map(self.ability).fillna(np.mean(list(self.ability.values())) if self.ability else 0.5)
        d = rows["image_id"].map(self.difficulty).fillna(np.mean(list(self.difficulty.values())) if self.difficulty else 0.5)
        z = _linear(self.alpha, self.beta, self.tau, self.gamma, self.lam, a.to_numpy(float), d.to_numpy(float), rows,
                    self.time_limit)[0]
        return 1.0 / (1.0 + np.exp(-z))

    def update_ability(self, player: str, observed: float, expected: float, eta: float = 0.05) -> float:
        """Online step A_i ← A_i + η(observed − expected), kept in [0, 1]."""
        value = min(1.0, max(0.0, self.ability.get(player, 0.5) + eta * (observed - expected)))
        self.ability[player] = value
        return value


def _linear(alpha, beta, tau, gamma, lam, a, d, rows, time_limit):
    urgency = 1.0 - rows["seconds_taken"].to_numpy(float) / time_limit
    position = (rows["image_order"].to_numpy(float) - 1.0) / rows["session_images"].to_numpy(float)
    decay = np.exp(-lam * position)
    fatigue = 1.0 - decay
    return alpha * a - beta * d + tau * urgency - gamma * fatigue, urgency, fatigue, position, decay


def fit_interaction_model(rows: pd.DataFrame, time_limit: float = TIME_LIMIT_S) -> InteractionModel:
    """Maximum likelihood with L-BFGS-B (analytic gradient); every parameter bounded (§4.3)."""
    from scipy.optimize import minimize

    players, p_index = np.unique(rows["player_id"].to_numpy(str), return_inverse=True)
    images, i_index = np.unique(rows["image_id"].to_numpy(str), return_inverse=True)
    s = rows["revealed"].to_numpy(float)
    n_p, n_i = len(players), len(images)

    def objective(theta):
        alpha, beta, tau, gamma, lam = theta[:5]
        a, d = theta[5:5 + n_p], theta[5 + n_p:]
        z, urgency, fatigue, position, decay = _linear(alpha, beta, tau, gamma, lam, a[p_index], d[i_index], rows, time_limit)
        log_p = -np.logaddexp(0.0, -z)
        log_q = -np.logaddexp(0.0, z)
        nll = -np.sum(s * log_p + (1 - s) * log_q)
        resid = -(s - np.exp(log_p))          # d nll / d z
        grad = np.empty_like(theta)
        grad[0] = resid @ a[p_index]
        grad[1] = -resid @ d[i_index]
        grad[2] = resid @ urgency
        grad[3] = -resid @ fatigue
        grad[4] = -resid @ (gamma * position * decay)
        grad[5:5 + n_p] = alpha * np.bincount(p_index, weights=resid, minlength=n_p)
        grad[5 + n_p:] = -beta * np.bincount(i_index, weights=resid, minlength=n_i)
        return nll, grad

    start = np.concatenate([[1.0] * 5, [0.5] * n_p, [0.5] * n_i])
    bounds = [PARAM_BOUNDS] * 5 + [(0.0, 1.0)] * (n_p + n_i)
    result = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 2000})
    t = result.x
    return InteractionModel(*map(float, t[:5]), ability=dict(zip(players, map(float, t[5:5 + n_p]))),
                            difficulty=dict(zip(images, map(float, t[5 + n_p:]))), time_limit=time_limit)


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve via the rank-sum (Mann–Whitney) identity; NaN with one class only."""
    from scipy.stats import rankdata

    labels = np.asarray(labels, dtype=bool)
    n_pos, n_neg = labels.sum(), (~labels).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def calibration_table(labels: np.ndarray, predicted: np.ndarray, bins: int = 10) -> pd.DataFrame:
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(predicted, edges[1:-1]), 0, bins - 1)
    frame = pd.DataFrame({"bin": which, "predicted": predicted, "observed": np.asarray(labels, float)})
    table = frame.groupby("bin").agg(n=("observed", "size"), mean_predicted=("predicted", "mean"),
                                     observed_rate=("observed", "mean")).reset_index()
    table["bin_low"], table["bin_high"] = edges[table["bin"]], edges[table["bin"] + 1]
    return table[["bin", "bin_low", "bin_high", "n", "mean_predicted", "observed_rate"]]


def cross_validate(rows: pd.DataFrame, folds: int = 5, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """k-fold CV (seeded row shuffle): per-fold AUC and log loss, plus out-of-fold predictions."""
    order = np.random.default_rng(seed).permutation(len(rows))
    out_of_fold = np.full(len(rows), np.nan)
    results = []
    for k, test in enumerate(np.array_split(order, folds)):
        train = np.setdiff1d(order, test)
        model = fit_interaction_model(rows.iloc[train])
        pred = model.predict(rows.iloc[test])
        out_of_fold[test] = pred
        y = rows["revealed"].to_numpy()[test]
        clipped = np.clip(pred, 1e-9, 1 - 1e-9)
        results.append({"fold": k, "n": len(test), "auc": roc_auc(y, pred),
                        "log_loss": float(-np.mean(y * np.log(clipped) + (1 - y) * np.log(1 - clipped)))})
    return pd.DataFrame(results), out_of_fold


# --------------------------------------------------------------------------------------------------
# GAP-VQA dataset (§4.5): categories by rules, split by image, ShareGPT export.

CATEGORIES = ["Object Recognition", "Scene Understanding", "Activity Recognition", "Object Attributes",
              "Spatial Relationships", "Counting", "Text Recognition", "Emotion Recognition",
              "Weather and Environment", "Temporal Inference", "Cultural or Social Context",
              "Art and Aesthetics", "Anomaly Detection"]

# First matching rule wins; the order puts specific cues before generic ones. Words are matched whole.
CATEGORY_RULES: list[tuple[str, tuple[str, ...]]] = [
    ("Counting", ("how many", "number of", "count", "how much")),
    # A question about an attribute of a located object is about the attribute.
    ("Object Attributes", ("what colour", "what color", "which colour", "which color", "what shape", "what material")),
    ("Text Recognition", ("text", "written", "say", "says", "read", "word", "letter", "sign", "label", "logo")),
    ("Emotion Recognition", ("emotion", "feel", "feeling", "mood", "happy", "sad", "angry", "smiling", "expression")),
    ("Weather and Environment", ("weather", "sunny", "rain", "raining", "snow", "cloudy", "outdoor", "indoors", "season")),
    ("Temporal Inference", ("time of day", "when", "before", "after", "night", "morning", "evening", "year", "era")),
    ("Spatial Relationships", ("left", "right", "above", "below", "behind", "in front", "next to", "between",
                               "under", "on top", "where", "closest", "farthest")),
    ("Anomaly Detection", ("unusual", "strange", "wrong with", "odd", "out of place", "anomaly", "missing")),
    ("Art and Aesthetics", ("style", "painting", "art", "artistic", "composition", "aesthetic", "drawn")),
    ("Cultural or Social Context", ("culture", "cultural", "tradition", "festival", "religious", "social", "country")),
    ("Activity Recognition", ("doing", "activity", "playing", "running", "eating", "action", "happening")),
    ("Object Attributes", ("color", "colour", "shape", "size", "material", "made of", "big", "small", "texture")),
    ("Scene Understanding", ("scene", "place", "setting", "location", "room", "background")),
    ("Object Recognition", ("what is", "what are", "is there", "are there", "which object", "identify", "object")),
]


def categorize(question: str) -> str:
    """One of the 13 §4.5 categories by keyword rules; 'Object Recognition' when nothing matches."""
    text = " " + re.sub(r"[^a-z0-9 ]+", " ", question.lower()) + " "
    for category, cues in CATEGORY_RULES:
        if any(f" {cue} " in text for cue in cues):
            return category
    return "Object Recognition"


def split_by_image(image_ids: list[str], val_fraction: float, seed: int) -> dict[str, str]:
    """image -> 'train' | 'val', seeded; every question of an image lands in the same split."""
    unique = sorted(set(image_ids))
    random.Random(seed).shuffle(unique)
    n_val = round(len(unique) * val_fraction)
    if 0 < val_fraction < 1 and len(unique) >= 2:
        n_val = min(max(n_val, 1), len(unique) - 1)
    return {image: ("val" if k < n_val else "train") for k, image in enumerate(unique)}


def sharegpt_record(item_id: str, image_path: str, question: str, answer: str) -> dict:
    """One LLaMA-Factory ShareGPT conversation (dataset_info: formatting 'sharegpt', images column 'images')."""
    return {"id": item_id, "conversations": [{"from": "human", "value": f"<image>\n{question}"},
                                             {"from": "gpt", "value": answer}], "images": [image_path]}


# --------------------------------------------------------------------------------------------------
# Scoring judge (§4.5): one number in [0, 1].

SCORE_PROMPT_VERSION = "gap-score-v1"
SCORE_MARKER = "GAP answer score"
SCORE_PROMPT = (
    f"{SCORE_MARKER}. Compare a model's answer about an image with the correct answer. For the objects the "
    "correct answer mentions, check four things: whether they exist, their position, their count and their "
    "colour. Give 1 when the model's answer is right on all four, 0 when it is right on none, and a value in "
    "between for partly right answers.\n\nQuestion: {question}\n{correct}\n{answer}\n\n"
    "End with one line exactly like: Score: <number between 0 and 1>"
)
CORRECT_TAG, ANSWER_TAG = "correct_answer", "model_answer"
PROMPT_TAGS = (CORRECT_TAG, ANSWER_TAG)


def score_prompt(question: str, correct: str, answer: str) -> str:
    return SCORE_PROMPT.format(question=question, correct=judging.tagged(CORRECT_TAG, correct, PROMPT_TAGS),
                               answer=judging.tagged(ANSWER_TAG, answer, PROMPT_TAGS))


SCORE_LINE = re.compile(r"score\s*[:=]\s*\**\s*(-?\d*\.?\d+)\s*(/\s*1(?:\.0+)?)?\s*(%?)(?!\d|\.\d)", re.IGNORECASE)


def parse_score(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> tuple[float | None, str | None]:
    """(score, problem). Reads the judge's last own 'Score: x' line; else a reply that is just one number.

    Accepts x in [0, 1] and 'x/1'; a percentage or any other value is a located problem, never a guess.
    A 'Score: x' line that also occurs in a text the judge was shown (``shown``: the correct answer and
    the model's answer) is an echo, not the judge's (``benchwright.judging``).
    """
    if not text or not text.strip():
        return None, "empty output"
    labelled, echoed = judging.last_own(text, list(SCORE_LINE.finditer(text)), judging.shown(shown))
    if echoed:
        return None, echoed
    if labelled is not None:
        raw, _, percent = labelled.groups()
        if percent:
            return None, f"percentage instead of a number in [0, 1]: {raw}%"
    else:
        bare = re.fullmatch(r"\s*\**\s*(-?\d*\.?\d+)\s*\**\s*", text)
        if not bare:
            return None, "no 'Score: <x>' line"
        raw = bare.group(1)
    value = float(raw)
    if not 0.0 <= value <= 1.0:
        return None, f"score {raw} outside [0, 1]"
    return value, None


SUITES = {
    "gap_player_reliability": [
        {"type": "columns_exist", "columns": ["player_id", "reliability", "p_wrong_when_planted", "p_wrong_when_honest"]},
        between("reliability", 0, 1, allow_null=False),
        between("p_wrong_when_planted", 0, 1, allow_null=False),
        between("p_wrong_when_honest", 0, 1, allow_null=False),
        {"type": "columns_unique", "columns": ["player_id"]},
    ],
    "gap_log_quarantine": [
        {"type": "column_not_null", "column": "reason"},
        {"type": "columns_unique", "columns": ["file_sha256", "line_no"]},
    ],
}


ANSWER_PROMPT_VERSION = "gap-answer-v1"
ANSWER_LEAD = "Answer briefly about this image: "


TAINT_PROMPT_VERSION = "gap-taint-v1"
TAINT_INSTRUCTION = ("Instruction for this game round: change exactly one detail of your answer (a count, a colour "
                     "or a side) so that it is slightly wrong but still sounds plausible. Do not say that you changed it.")


def answer_messages(question: str, image_url: str | None, instructed_wrong: bool = False) -> list[dict]:
    """The question to a model, with its image (None for a text-only model); for a planted error the
    game's instruction to be subtly wrong follows the question (METHODS §4.1)."""
    parts = [{"type": "image_url", "image_url": {"url": image_url}}] if image_url else []
    text = f"{ANSWER_LEAD}{question}" + (f"\n\n{TAINT_INSTRUCTION}" if instructed_wrong else "")
    return [{"role": "user", "content": [*parts, {"type": "text", "text": text}]}]


def score_summary(judgments: pd.DataFrame) -> pd.DataFrame:
    """judge × model: GPT score (mean over parsed val items), n, parse failures, errors; plus per-model
    latency, tokens/s and cost per 1,000 tokens of the answering calls (columns answer_*)."""
    rows = []
    for (judge, model), group in judgments.groupby(["judge", "model"]):
        answered = group[group["answer_error"].isna()]
        judged = answered[answered["judge_error"].isna()]
        parsed = judged[judged["parse_ok"]]
        tokens = answered["answer_tokens_out"].sum()
        seconds = answered["answer_latency_ms"].sum() / 1000
        all_tokens = answered["answer_tokens_in"].sum() + tokens
        rows.append({"judge": judge, "model": model, "gpt_score": float(parsed["score"].mean()) if len(parsed) else None,
                     "n": len(parsed), "parse_failures": int((~judged["parse_ok"]).sum()),
                     "errors": int(len(group) - len(judged)),
                     "answer_latency_ms": float(answered["answer_latency_ms"].mean()) if len(answered) else None,
                     "answer_tokens_per_s": float(tokens / seconds) if seconds > 0 else None,
                     "answer_cost_per_1k_tokens": float(answered["answer_cost_usd"].sum() / all_tokens * 1000) if all_tokens else None})
    return pd.DataFrame(rows, columns=["judge", "model", "gpt_score", "n", "parse_failures", "errors", "answer_latency_ms",
                                       "answer_tokens_per_s", "answer_cost_per_1k_tokens"])


# --------------------------------------------------------------------------------------------------
# Engagement analytics (§4.4): distributions as (measure, bucket, count) rows.

def engagement(marks: pd.DataFrame) -> pd.DataFrame:
    """Sessions per player per ISO week, images per session, and players' accuracy on tainted images
    (share of tainted marks that were right, in 10 % buckets labelled by their lower edge)."""
    rows = []
    if len(marks):
        sessions = marks.drop_duplicates("session_id")
        iso = pd.to_datetime(sessions["session_start"]).dt.isocalendar()
        per_week = sessions.assign(week=iso["year"].astype(str) + "-" + iso["week"].astype(str)) \
            .groupby(["player_id", "week"]).size()
        images = marks.groupby("session_id")["image_id"].nunique()
        tainted = marks[marks["tainted"]]
        right = (tainted["player_mark"] == "wrong") == tainted["instructed_wrong"]
        accuracy = right.groupby(tainted["player_id"]).mean()
        for measure, values in (("sessions_per_player_week", per_week), ("images_per_session", images)):
            for bucket, count in values.value_counts().sort_index().items():
                rows.append({"measure": measure, "bucket": float(bucket), "count": int(count)})
        buckets = (np.minimum(np.floor(accuracy * 10), 9) / 10).value_counts().sort_index()
        rows += [{"measure": "tainted_accuracy", "bucket": float(b), "count": int(c)} for b, c in buckets.items()]
    return pd.DataFrame(rows, columns=["measure", "bucket", "count"])


def histogram_png(counts: pd.DataFrame, title: str) -> bytes:
    """A small bar chart (Pillow) of one measure's bucket counts."""
    import io

    from PIL import Image, ImageDraw

    width, height, margin = 420, 220, 30
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((margin, 6), title, fill="black")
    if len(counts):
        top = max(counts["count"])
        bar = (width - 2 * margin) / len(counts)
        for k, row in enumerate(counts.itertuples(index=False)):
            h = (height - 2 * margin - 10) * row.count / top
            x = margin + k * bar
            draw.rectangle((x + 2, height - margin - h, x + bar - 2, height - margin), fill=(30, 70, 210))
            draw.text((x + 2, height - margin + 4), f"{row.bucket:g}", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
