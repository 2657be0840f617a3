"""MMMT-IF (METHODS §2): instructions scattered through multi-turn multimodal chats, checked by code.

- ``loader``  reads source chats (MMDU JSON / JSONL) and human ratings.
- ``instruction_following``  the verifiable instructions and their checkers.
- ``method``  chat building, prompts, the autorater's reader, PIF / PIF-N-K, comparisons, preferences and
  alignment with people.
- ``steps``   requests per turn (``benchwright.steps.Plan`` shape), histories and rows.
- ``plots``   the per-turn curves as PNG.
"""
