"""A run killed with SIGKILL resumes without repeating the calls it had already committed."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
from benchwright.llm.litellm_setup import load_litellm as _litellm
from tests.support.processes import kill_when

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/resume-model"
N = 30

# The child builds the very same requests from this module, so both runs share the keys.
CHILD = """
import sys
from benchwright.llm import LLMRunner, ModelLimits
from tests.integration.test_llm_resume import MODEL, make_requests
cache_path, base_url = sys.argv[1], sys.argv[2]
LLMRunner(cache_path, timeout_s=5, max_retries=0).run(
    make_requests(base_url), limits={MODEL: ModelLimits(max_concurrency=2)}
)
"""


def make_requests(base_url: str) -> list[LLMRequest]:
    return [
        LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"question {i}"}], api_base=base_url, tag=f"q{i}")
        for i in range(N)
    ]


def _rows(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(str(path), timeout=5)
    try:
        return conn.execute("SELECT count(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:  # the child has not created the table yet
        return 0
    finally:
        conn.close()


def test_killed_run_resumes_from_the_journal(tmp_path):
    from tests.support.openai_server import OpenAIServer

    cache = tmp_path / "llm.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with OpenAIServer(latency_s=0.2, max_lifetime_s=60) as srv:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(cache), srv.base_url],
            cwd=str(ROOT),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        _litellm()  # warm the parent's import while the child does the same
        # The child imports litellm (~3 s) before its first call.
        kill_when(child, lambda: _rows(cache) >= 6, timeout_s=30)

        done_before = _rows(cache)
        assert 6 <= done_before < N  # killed mid-run, with some responses committed
        served_to_child = srv.count()
        assert served_to_child >= done_before  # calls in flight at the kill were received but lost

        srv.reset_counts()
        results, stats = LLMRunner(str(cache), timeout_s=5, max_retries=0).run(
            make_requests(srv.base_url), limits={MODEL: ModelLimits(max_concurrency=2)}
        )
        assert srv.count() == N - done_before
        assert stats.api_calls == N - done_before and stats.cache_hits == done_before
        assert [r.text for r in results] == [f"echo: question {i}" for i in range(N)]
        assert _rows(cache) == N
