"""LLM layer: one cached, concurrent, retried way to call any model (docs/ARCHITECTURE.md#llm-layer)."""

from benchwright.llm.cache import LEDGER_COLUMNS, CachedResponse, ResponseCache
from benchwright.llm.request import LLMRequest, request_key
from benchwright.llm.results import CallScope, CallStats, LLMResult
from benchwright.llm.runner import LLMRunner, ModelLimits, ReplayMissError

__all__ = [
    "CachedResponse",
    "CallScope",
    "CallStats",
    "LEDGER_COLUMNS",
    "LLMRequest",
    "LLMResult",
    "LLMRunner",
    "ModelLimits",
    "ReplayMissError",
    "ResponseCache",
    "request_key",
]
