"""URS intents and their five criteria each (benchwright/urs/README.md#criteria-by-intent), in English and Chinese."""

from __future__ import annotations

LANGUAGES = ("en", "zh")
REFERENCE_SCORE = 8  # what the reference answer itself is worth (benchwright/urs/README.md#the-judge)
SCORE_MIN, SCORE_MAX = 1, 10


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


def check_intent_language(intent: str, language: str) -> None:
    if intent not in CRITERIA_BY_INTENT:
        raise ValueError(f"unknown intent {intent!r}; expected one of {', '.join(INTENTS)}")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected 'en' or 'zh'")
