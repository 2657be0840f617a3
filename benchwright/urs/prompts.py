"""URS prompts (benchwright/urs/README.md#the-judge): the candidate's prompt and the judge's, in English and Chinese, with the answer
and the reference fenced so neither can close its own section. Bump the matching ``*_PROMPT_VERSION``
whenever a prompt's text changes."""

from __future__ import annotations


from benchwright import judging
from benchwright.urs.intents import CRITERIA, CRITERIA_BY_INTENT, FINAL_KEY, INTENT_NAMES_ZH, check_intent_language, criterion_name

CANDIDATE_PROMPT_VERSION = "urs-candidate-v1"
JUDGE_PROMPT_VERSION = "urs-judge-v1"


# --- candidate prompt -----------------------------------------------------------------------------

CANDIDATE_SYSTEM = (
    "You are a helpful assistant. Answer the user's question directly, "
    "in the language the question is written in."
)


def candidate_messages(question: str) -> list[dict]:
    """What a candidate (or the reference model) is asked: the user's question as it stands."""
    return [{"role": "system", "content": CANDIDATE_SYSTEM}, {"role": "user", "content": question}]


# --- judge prompt -------------------------------------------------------------------------------

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
    check_intent_language(intent, language)
    keys = [criterion_name(c, language) for c in CRITERIA_BY_INTENT[intent]] + [FINAL_KEY[language]]
    return "{" + ", ".join(f"'{key}': {SCORE_PLACEHOLDER}" for key in keys) + "}"


def judge_messages(question: str, intent: str, language: str, reference_answer: str, answer: str) -> list[dict]:
    """The intent-aware judge prompt in the question's language.

    Parts 1–3 (criteria with definitions, reasoning steps, scoring standards) form the system
    message; part 4 (question, reference answer, answer to evaluate) the user message.
    """
    check_intent_language(intent, language)
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
