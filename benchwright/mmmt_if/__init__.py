"""MMMT-IF (METHODS §2): instruction following in long multimodal, multi-turn chats.

What this package holds, in pipeline order (modules: ``loader``, ``instruction_following``, ``chat_set``,
``prompts``, ``autorater``, ``pif``, ``comparisons``, ``preferences``, ``alignment``, ``release`` (the metrics on
the imported public release), ``suites``, ``steps``, ``plots``):

1. **Chat set.** ``prepare_chats`` applies the filtering rules to loaded chats (drop a chat with a
   corrupt image, more than 5 images or a skipped turn; truncate to 20 turns) and
   ``insert_instructions`` runs the seeded insertion process: before each question, with
   probability ``1 − given/6``, one instruction is added — a category not used yet in the chat,
   chosen uniformly, then one of its options, uniformly. ``random.Random`` is seeded with the text
   ``"mmmt-if:<seed>:<chat_id>"`` (string seeds are hashed with SHA-512, so the result does not
   depend on the process), which makes a chat's instructions independent of the other chats.
   Note: this rule, as METHODS §2.1 states it, fills the sixth category late (the expected turn of
   the sixth instruction is 6·H(6) ≈ 14.7; P(all six by turn 10) ≈ 0.27, by turn 20 ≈ 0.85), so
   "most chats have all 6 by turns 6–10" does not follow from it; we implement the rule.
2. **Prompts.** ``turn_messages`` builds a model's request for turn k: the images come with the
   first user turn, the model's *own* earlier answers are the assistant turns, and an inserted
   instruction opens its user turn (``Instruction: ...``). The *instructions-appended* variant is
   the same context with, at the end of the last user turn, the list of every instruction given so
   far. A turn whose every sample failed has no answer to show: its user text is merged into the
   next user turn, so the model still sees every instruction and question and no made-up answer.
   ``autorater_messages`` asks a judge for the 8 criteria of §2.4 as a dict.
3. **Parsing.** ``parse_autorater`` reads the score dict (single or double quotes, trailing commas,
   code fences or prose around it, unquoted keys); a missing key or a score outside 1–10 is a
   parse failure with the reason, never a low score.
4. **Metrics** over DataFrames (all keep ``variant`` as a column, so the instructions-appended
   ablation is a separate, comparable row everywhere):

   - a *context* is one (model, variant, chat, turn); its PIF is the mean over its N samples.
     Corpus PIF = mean over contexts; PIF by turn j (chats with at least j turns) and by number of
     instructions in force; bounds ``p ± 1.96·sqrt(p(1−p)/n)`` with n = contexts in the group (the
     conservative Bernoulli approximation; counting contexts, not samples, because the N samples of
     one context are not independent). Bounds are clipped to [0, 1]; at p = 0 or 1 they collapse
     onto p, as that approximation does.
   - per-instruction PIF: followed-share over the contexts where the instruction was in force.
   - PIF-N-K = share of contexts with at least K of the N samples at PIF 1; PIF-IQR-N = mean over
     contexts of the inter-quartile range of the N sample PIFs (numpy's linear percentiles). Both
     use only contexts whose N samples all succeeded (the others are counted, not guessed).
   - empirical CDFs of the *response* PIF per model, variant and turn; model A stochastically
     dominates B at a turn when F_A(x) ≤ F_B(x) for every x (weak, first order); the verdict says
     whether one dominates the other at every turn both answered.
   - one-sided Wilcoxon signed-rank tests (scipy) on paired context PIFs of two models; zero
     differences are dropped (``zero_method="wilcox"``); with no non-zero difference the p-value
     is NaN.
   - preference score = (sum of the 8 autorater scores + 20·PIF) / 28; per turn, the higher score
     wins (equal within 1e-9 is a tie); a response whose judgment failed or did not parse takes
     part in no comparison. Ratings come from ``benchwright.ratings`` (Bradley–Terry on the Elo
     scale, mean rating 1000).
"""

# The method's version (the benchmark's declaration carries it; bumped when the method itself changes).
METHOD_VERSION = "1"
