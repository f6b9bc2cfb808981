"""The generate stage: plan the prompt, stream the LLM's answer (or the offline extractive one),
clean it up, and fall back to the extractive answer — saying so — when every provider fails."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from rag.context.prompts import build_messages, choose_template
from rag.embed.base import EmbeddingModelError
from rag.generate.answer_rank import AnswerSimilarity
from rag.generate.cleanup import cited_numbers, clean_response
from rag.generate.extractive import extractive_answer
from rag.generate.section_prior import SectionSimilarity
from rag.generate.whole_sentences import DocumentTexts
from rag.llm.base import Attempt, LLMError, Message
from rag.llm.client import LLMClient
from rag.llm.usability import record_reply
from rag.outputs.context import BuiltContext
from rag.outputs.generated import AnswerMode, GeneratedAnswer, Quote
from rag.settings.generation import GenerationConfig


@dataclass(frozen=True)
class AnswerPlan:
    """Everything the answerer needs, decided before any call."""

    query: str
    context: BuiltContext
    template: str
    messages: tuple[Message, ...]
    max_tokens: int
    feedback: str = ""


def plan_answer(
    query: str,
    context: BuiltContext,
    settings: GenerationConfig,
    *,
    intent: str | None = None,
    feedback: str = "",
) -> AnswerPlan:
    """Template per query class (Adaptive), messages with the fitted history, generation token cap."""
    return planned_with(query, context, settings, choose_template(query, settings.template, intent),
                        feedback)


def planned_with(query: str, context: BuiltContext, settings: GenerationConfig, template: str,
                 feedback: str = "") -> AnswerPlan:
    """The plan for this context with a template already chosen."""
    history = context.history[-settings.history_messages :] if settings.history_messages else ()
    messages = build_messages(
        query, context, template, suggest=settings.suggested_questions, feedback=feedback, history=history
    )
    max_tokens = min(settings.max_tokens, max(1, context.budget.allotted.get("generation", 0)))
    return AnswerPlan(query, context, template, messages, max_tokens, feedback)


class AnswerStream:
    """Iterate for text pieces as they are produced; `result` holds the GeneratedAnswer after."""

    def __init__(
        self,
        plan: AnswerPlan,
        settings: GenerationConfig,
        client: LLMClient | None,
        note: str = "",
        documents: DocumentTexts | None = None,  # whole sentences for the extractive answer
        similarity: SectionSimilarity | None = None,  # the extractive answer's section prior
        answer_model: AnswerSimilarity | None = None,  # which extractive sentence answers
    ) -> None:
        self.plan = plan
        self.answer_model = answer_model
        self.documents = documents
        self.similarity = similarity
        self.settings = settings
        self.client = client
        self._notes = (note,) if note else ()
        self.result: GeneratedAnswer | None = None

    def __iter__(self) -> Iterator[str]:
        if self.client is None:
            yield from self._offline(self._notes)
            return
        stream = (
            self.client.stream(self.plan.messages, self.plan.max_tokens) if self.settings.stream else None
        )
        try:
            if stream is not None:
                yield from stream
                completion = stream.completion()
            else:
                completion = self.client.chat(self.plan.messages, self.plan.max_tokens)
                yield completion.text
            cut = completion.finish_reason in ("length", "deadline")
            cleaned = clean_response(completion.text, cut_off=cut)
            if completion.finish_reason == "deadline":
                self._notes = (*self._notes, "the time budget ended the answer: cut back to its "
                               "last whole sentence (generation.deadline_s)")
            if not cleaned.text:
                raise LLMError("empty", "nothing left after clean-up", completion.attempts)
        except LLMError as exc:
            record_reply("generate.answer", "fallback", f"{exc.kind}")
            attempts = exc.attempts
            warning = f"LLM failed ({exc.kind}) after {len(attempts)} attempt(s): {exc}"
            if not self.settings.fallback_to_extractive:
                self.result = self._answer("", "error", warnings=(warning,), attempts=attempts)
                return
            yield f"\n\n⚠ {warning}. Extractive answer instead:\n\n"
            yield from self._offline(
                (*self._notes, warning + "; fell back to the extractive answer"), attempts
            )
            return
        mode: AnswerMode = "no_rag" if self.plan.context.no_rag else "llm"
        record_reply("generate.answer", "repaired" if cleaned.repairs else "ok",
                     "repeated or cut-off text removed")
        self.result = self._answer(
            cleaned.text,
            mode,
            raw=completion.text,
            provider=completion.provider,
            model=completion.model,
            attempts=completion.attempts,
            questions=cleaned.suggested_questions,
            warnings=self._notes
            + ((f"preamble removed: {cleaned.preamble_removed!r}",) if cleaned.preamble_removed else ())
            + cleaned.repairs,
        )

    def _offline(self, warnings: tuple[str, ...], attempts: tuple[Attempt, ...] = ()) -> Iterator[str]:
        context = self.plan.context
        if context.no_rag:
            text = f"No document passage was relevant enough to answer this ({context.reason})."
            self.result = self._answer(text, "no_rag", warnings=warnings, attempts=attempts)
        else:
            answer = partial(extractive_answer, self.plan.query, context,
                             self.settings.extractive_sentences, self.settings.extractive_max_chars,
                             self.documents, support=self.settings.extractive_support)
            try:
                found = answer(similarity=self.similarity, answer_model=self.answer_model)
            except (EmbeddingModelError, OSError) as exc:  # a model could not be loaded
                warnings = (*warnings, f"no section prior or answer model in the extractive "
                                       f"answer: {exc}")
                found = answer()
            text = found.text
            self.result = self._answer(
                text, "extractive", attempts=attempts, quotes=found.quotes,
                warnings=warnings + ((found.note,) if found.note else ()), support=found.support,
            )
        yield text

    def _answer(
        self,
        text: str,
        mode: AnswerMode,
        *,
        raw: str = "",
        provider: str = "",
        model: str = "",
        attempts: tuple[Attempt, ...] = (),
        questions: tuple[str, ...] = (),
        warnings: tuple[str, ...] = (),
        quotes: tuple[Quote, ...] = (),
        support: float | None = None,
    ) -> GeneratedAnswer:
        return GeneratedAnswer(
            text=text,
            mode=mode,
            raw_text=raw or text,
            template=self.plan.template,
            provider=provider,
            model=model,
            cited=cited_numbers(text),
            suggested_questions=questions,
            attempts=tuple(attempts),
            messages=self.plan.messages,
            warnings=warnings,
            feedback=self.plan.feedback,
            quotes=quotes,
            support=support,
        )


def generate_answer(
    plan: AnswerPlan,
    settings: GenerationConfig,
    client: LLMClient | None,
    note: str = "",
    documents: DocumentTexts | None = None,
    similarity: SectionSimilarity | None = None,
    answer_model: AnswerSimilarity | None = None,
) -> GeneratedAnswer:
    """Run the answerer to the end (no streaming consumer)."""
    stream = AnswerStream(plan, settings, client, note, documents, similarity, answer_model)
    for _ in stream:
        pass
    assert stream.result is not None
    return stream.result
