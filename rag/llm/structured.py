"""Structured replies: a stage that parses a reply can ask the endpoint to constrain it to a JSON
schema, so a small model that ignores "reply in the form …" still sends something parseable.

Two ways of asking exist in the wild: OpenAI's `{"type": "json_schema", …}` (OpenAI, vLLM,
llama.cpp's own server, Ollama) and llama-cpp-python's `{"type": "json_object", "schema": …}`,
which compiles the schema to a grammar. The client tries them in that order and remembers, per
endpoint, which one was refused; an endpoint that refuses both gets the plain prompt, and one that
ignores the field answers in text — which is why every stage keeps its text parser and reads a
JSON reply through it (`as_lines`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

ReplyFormat = Literal["json_schema", "json_object_schema", "text"]
DIALECTS: tuple[ReplyFormat, ...] = ("json_schema", "json_object_schema")


@dataclass(frozen=True)
class ReplySchema:
    """The JSON schema a reply must follow, under a name (OpenAI requires one)."""

    name: str
    schema: Mapping[str, Any]

    def response_format(self, dialect: ReplyFormat) -> dict[str, Any]:
        if dialect == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": self.name, "schema": dict(self.schema), "strict": True}}
        return {"type": "json_object", "schema": dict(self.schema)}


def _object(properties: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    # every property required and nothing else allowed: what OpenAI's strict mode demands
    return {"type": "object", "properties": dict(properties), "required": list(properties),
            "additionalProperties": False}


def choice_schema(name: str, field: str, choices: Sequence[str | int]) -> ReplySchema:
    """`{field: one of choices}`."""
    return ReplySchema(name, _object({field: {"enum": list(choices)}}))


def numbered_schema(name: str, count: int, choices: Sequence[str | int]) -> ReplySchema:
    """`{"1": choice, …, "count": choice}`: one answer per numbered item, read by the stage's
    "<number>: <answer>" line parser after `as_lines`."""
    return ReplySchema(name, _object({str(i): {"enum": list(choices)} for i in range(1, count + 1)}))


def object_schema(name: str, properties: Mapping[str, Mapping[str, Any]]) -> ReplySchema:
    return ReplySchema(name, _object(properties))


GRADES_0_10: tuple[int, ...] = tuple(range(11))


def json_object(reply: str) -> dict[str, Any] | None:
    """The JSON object a reply consists of (surrounding text and a code fence allowed), or None."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(reply[start : end + 1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def as_lines(reply: str) -> str:
    """A JSON object reply as "<key>: <value>" lines (for the stages' line parsers); any other
    reply unchanged."""
    data = json_object(reply)
    if data is None:
        return reply
    return "\n".join(f"{key}: {value}" for key, value in data.items())


class FormatSupport:
    """Which dialects each endpoint refused, so later calls go straight to one that works."""

    def __init__(self) -> None:
        self._refused: dict[str, set[ReplyFormat]] = {}
        self._lock = threading.Lock()

    def candidates(self, endpoint_key: str) -> tuple[ReplyFormat, ...]:
        with self._lock:
            refused = self._refused.get(endpoint_key, set())
        return (*(d for d in DIALECTS if d not in refused), "text")

    def refuse(self, endpoint_key: str, dialect: ReplyFormat) -> None:
        with self._lock:
            self._refused.setdefault(endpoint_key, set()).add(dialect)


FORMAT_SUPPORT = FormatSupport()


def refusal_of_format(status_code: int, message: str) -> bool:
    """Whether an error answer refuses the response_format rather than the request as a whole (a
    prompt too long for the context is no reason to drop the schema). llama-cpp-python answers
    an unknown format type with a 500 that names the field."""
    text = message.lower()
    if "response_format" in text:
        return status_code in (400, 422, 500)
    return status_code in (400, 422) and ("schema" in text or "json" in text)
