"""Layer 2 of Axiom's intent router: ask the LLM when no exemplar is close enough."""

from __future__ import annotations

import re

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.structured import choice_schema
from rag.llm.usability import record_reply
from rag.query.intent.exemplars import INTENTS

INTENT_PROMPT = """Classify the user's message to a document assistant into exactly one intent.

greeting: says hello
gratitude: says thanks
garbage: meaningless or random input
off_topic: unrelated to the user's documents (weather, jokes, sports, chit-chat)
followup: wants more on the previous answer
simplify: wants the previous answer explained more simply
deepen: wants more technical depth on the previous answer
command: asks to summarize, compare, list or give an overview
question: asks something the documents may answer
clarify: too vague to answer without asking what they mean

{context}
Message: \"\"\"{message}\"\"\"

Reply with the intent name only."""


INTENT_SCHEMA = choice_schema("intent", "intent", INTENTS)


class IntentLLMError(RuntimeError):
    """The LLM call failed or its reply named no intent."""


def parse_intent(reply: str) -> str | None:
    """The first intent name in `reply` ("off-topic" and "clarify_needed" accepted)."""
    text = reply.lower().replace("-", "_").replace(" ", "_")
    text = text.replace("clarify_needed", "clarify").replace("offtopic", "off_topic")
    found = [(m.start(), intent) for intent in INTENTS
             for m in [re.search(rf"(?<![a-z]){intent}(?![a-z])", text)] if m]
    return min(found)[1] if found else None


def llm_intent(message: str, chat: ChatModel, has_history: bool) -> tuple[str, str]:
    """(intent, raw reply) from the LLM; raises IntentLLMError on failure or an unusable reply."""
    context = ("The user has a previous answer from the assistant." if has_history
               else "This is the first message of the conversation.")
    prompt = INTENT_PROMPT.format(context=context, message=message[:2000])
    try:
        reply = chat.chat([Message("user", prompt)], max_tokens=16, schema=INTENT_SCHEMA).text
    except LLMError as exc:
        record_reply("understand.intent", "fallback", f"call failed ({exc.kind})")
        raise IntentLLMError(f"intent LLM call failed ({exc.kind}): {exc}") from exc
    intent = parse_intent(reply)
    if intent is None:
        record_reply("understand.intent", "fallback", "names no intent")
        raise IntentLLMError(f"intent LLM reply names no intent: {reply[:80]!r}")
    record_reply("understand.intent", "ok")
    return intent, reply
