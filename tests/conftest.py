import os

# litellm must not try to fetch its price map over the (closed) network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
