"""Failed calls: when a request is asked again, when it is given up, and how a step's failed calls are judged.

A failed call is journalled (cache.py, table `errors`) and never served as an answer, so the next run that
needs the request asks it again. A partition whose last materialization recorded failed calls is therefore not
up to date: the main job (scripts/orchestrate.py) and, with the daemon, `failed_calls_sensor` run it again, and
the cache serves everything but the failed requests.

The give-up rule, so a request that cannot succeed is not asked for ever: a request whose last
`GIVE_UP_AFTER` journalled failures (one per run that asked it) all carry the same permanent HTTP status is
given up. A permanent status is a 4xx that waiting cannot change (400 bad request, 404 unknown model, 413 too
large, 422 unprocessable ...); 401 and 403 are not (they are about the key, which the operator can fix, not
the request), nor are 408, 409, 425 and 429 (transient). A given-up request is not called again: runs serve
its last error, marked ``given up``, and count it in `given_up`; a partition whose only failed calls are given
up counts as up to date. `materialize_all.py --retry-given-up` (LLMClient `retry_given_up`) asks them anyway.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

GIVE_UP_AFTER = 3
"""Runs in a row a request must fail with the same permanent HTTP status to be given up."""

GIVEN_UP_PREFIX = "given up"

FAILED_CALLS_ERROR_SHARE = 0.10
"""Share of a step's requests that may fail before its `failed_calls` check is an ERROR (above zero: WARN)."""

_TRANSIENT_4XX = {401, 403, 408, 409, 425, 429}


def is_permanent_status(status: int | None) -> bool:
    """Whether a failed call's HTTP status says that asking the same request again cannot help."""
    return isinstance(status, int) and 400 <= status < 500 and status not in _TRANSIENT_4XX


def given_up_error(failures: list[tuple[str, int | None]]) -> str | None:
    """The error to serve for a request given its journalled failures, oldest first, as (error, status);
    None when it should be asked again (see the module's give-up rule)."""
    last = failures[-GIVE_UP_AFTER:]
    if len(last) < GIVE_UP_AFTER:
        return None
    statuses = {status for _error, status in last}
    if len(statuses) != 1 or not is_permanent_status(next(iter(statuses))):
        return None
    return (f"{GIVEN_UP_PREFIX} after {GIVE_UP_AFTER} runs failed with HTTP {last[-1][1]} "
            f"(materialize_all.py --retry-given-up asks again): {last[-1][0]}")


def metadata_count(metadata: Mapping[str, Any], name: str) -> int:
    """A whole-number field of a step's metadata; 0 when it is missing, not a number or NaN (no calls)."""
    value = metadata.get(name)
    value = getattr(value, "value", value)  # a Dagster MetadataValue or a plain number
    if not isinstance(value, (int, float)) or (isinstance(value, float) and math.isnan(value)):
        return 0
    return int(value)


def failed_calls(metadata: Mapping[str, Any]) -> int:
    """Failed calls a step recorded in its materialization metadata (`errors`, given-up ones included)."""
    return metadata_count(metadata, "errors")


def calls_to_ask_again(metadata: Mapping[str, Any]) -> int:
    """Failed calls of a materialization that a new run would ask again (not given up): above zero, the
    partition is not up to date."""
    return max(0, metadata_count(metadata, "errors") - metadata_count(metadata, "given_up"))


def calls_to_retry(metadata: Mapping[str, Any]) -> int:
    """Of `calls_to_ask_again`, those worth asking without a change: not the requests a reached budget kept from
    being sent (`not_sent`, llm/budget.py), which only a larger budget sends (the main job's next run asks them)."""
    return max(0, calls_to_ask_again(metadata) - metadata_count(metadata, "not_sent"))


def requests_of(metadata: Mapping[str, Any]) -> int:
    """Requests (results) of a step; older materializations without `requests`: calls plus cache hits."""
    return metadata_count(metadata, "requests") or metadata_count(metadata, "api_calls") + metadata_count(metadata, "cache_hits")


def all_calls_failed(metadata: Mapping[str, Any]) -> bool:
    """A step that asked for something and got nothing: every one of its requests failed."""
    errors = failed_calls(metadata)
    return errors > 0 and errors >= requests_of(metadata)


def failed_share_severity(errors: int, requests: int, threshold: float = FAILED_CALLS_ERROR_SHARE) -> str | None:
    """'ERROR' when more than `threshold` of the requests failed, 'WARN' when some did, None when none did."""
    if errors <= 0:
        return None
    return "ERROR" if requests <= 0 or errors / requests > threshold else "WARN"
