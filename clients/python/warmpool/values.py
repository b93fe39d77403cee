"""How values cross the wire: what a notebook holds as JSON the API takes, the API's names for a
caller's keywords, and the API's "NaN"/"Infinity" strings back as the floats a job wrote."""
from __future__ import annotations

import datetime
import decimal
import math
import os
from typing import Any, Dict, Mapping, Tuple

__all__ = ["JsonDict", "Metrics", "jsonable", "numbers", "api_names", "caller_names", "timeout_alias"]

JsonDict = Dict[str, Any]
"""A JSON object as the API sends or takes it."""
Metrics = Dict[str, Any]
"""A job's metrics: names to numbers (NaN and the infinities as floats), or whatever else the job wrote."""

# The API returns NaN and the infinities a job wrote as these strings (strict JSON has no other
# way to carry them); the client hands them back as the floats the job wrote.
NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def numbers(value: Any) -> Any:
    """Metrics as the job wrote them: "NaN", "Infinity", "-Infinity" as floats, in nested dicts and lists too."""
    if isinstance(value, str):
        return NON_FINITE.get(value, value)
    if isinstance(value, dict):
        return {k: numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numbers(v) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """What JSON can carry, from what a notebook holds: numpy scalars and arrays (by ``tolist``), dates and
    times (ISO 8601), paths (their text), tuples and sets (lists); NaN and the infinities as the strings
    "NaN", "Infinity", "-Infinity", the one form the API uses for them (strict JSON has no other)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else ("NaN" if value != value else "Infinity" if value > 0 else "-Infinity")
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(jsonable(k))): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, decimal.Decimal):
        return jsonable(float(value))
    if hasattr(value, "tolist"):  # numpy (and array-likes): scalars to int/float/bool, arrays to nested lists
        return jsonable(value.tolist())
    raise TypeError("warmpool cannot send a %s in JSON (value %r); pass numbers, strings, lists and dicts"
                    % (type(value).__name__, value))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def api_names(spec: Mapping[str, Any]) -> JsonDict:
    """snake_case keywords as the API's names (min_idle -> minIdle); nested dicts (env, template) are left as they are."""
    return {_camel(k): v for k, v in spec.items() if v is not None}


def caller_names(spec: Mapping[str, Any]) -> Dict[str, str]:
    """The API's name -> the keyword the caller wrote, where they differ (minIdle -> min_idle), for error messages."""
    return {_camel(k): k for k in spec if _camel(k) != k}


def timeout_alias(opts: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """``timeout=`` on a submit is the job's ``timeout_seconds``, as a caller of most Python APIs would write it.
    Returns the keywords with it renamed, and the names for errors (timeoutSeconds -> timeout then)."""
    names = caller_names(opts)
    out = dict(opts)
    if "timeout" in out:
        if out.get("timeout_seconds") is not None:
            raise TypeError("give the job's timeout once: timeout= or timeout_seconds=, not both")
        out["timeout_seconds"] = out.pop("timeout")
        names["timeoutSeconds"] = "timeout"
    return out, names
