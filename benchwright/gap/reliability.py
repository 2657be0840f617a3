"""GAP player reliability (benchwright/gap/README.md#which-questions-are-kept): estimates from planted mistakes, selection, points, leaderboard, rotation.

Choices the paper leaves open, made here:

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

import math
from dataclasses import dataclass

import pandas as pd


POINTS_PER_CAUGHT = 20
DEFAULT_THETA = 0.8
DEFAULT_P_PLANTED = 0.5
PRIOR_A, PRIOR_B = 1.0, 1.0          # Beta prior on each conditional rate
ROTATION_MIN_QUESTIONS = 10          # "more than 10 informative questions"


def wrong_given_marked_wrong(p_marked_wrong_when_planted: float, p_marked_wrong_when_not_planted: float,
                             p_planted: float) -> float:
    """P(M=0 | H=0, untainted) ≈ P(H=0|I=1)P(I=1) / (P(H=0|I=0)P(I=0) + P(H=0|I=1)P(I=1)) (the card's estimate)."""
    for name, value in (("p_marked_wrong_when_planted", p_marked_wrong_when_planted),
                        ("p_marked_wrong_when_not_planted", p_marked_wrong_when_not_planted), ("p_planted", p_planted)):
        if not 0.0 <= value <= 1.0 or math.isnan(value):
            raise ValueError(f"{name} must be a probability, got {value}")
    caught = p_marked_wrong_when_planted * p_planted
    false_alarm = p_marked_wrong_when_not_planted * (1.0 - p_planted)
    if caught + false_alarm == 0.0:
        return 0.0     # the player never marks Wrong: nothing of theirs is a candidate anyway
    return caught / (caught + false_alarm)


# Reliability, selection, points, leaderboard, rotation.

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
