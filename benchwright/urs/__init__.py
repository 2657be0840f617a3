"""URS — user-centric, intent-aware scoring (METHODS §3): criteria, judge prompts, parser, metrics.

Modules: ``loader``, ``intents``, ``prompts``, ``parse``, ``metrics``, ``suites``, ``steps``.

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

# The method's version (the benchmark's declaration carries it; bumped when the method itself changes).
METHOD_VERSION = "1"
