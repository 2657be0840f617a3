import os

# litellm must not try to fetch its price map over the (closed) network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Tests build temporary homes; a developer's configured warehouse must never receive their rows.
os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)
