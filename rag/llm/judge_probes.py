"""Labelled probes for the judge check (rag.llm.judge_check): plain cases that any model fit
to judge gets right. Written for this purpose — not drawn from any evaluation set — and kept
short, so checking a slow local model takes seconds, not minutes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RelevanceProbe:
    question: str
    relevant: str
    irrelevant: str


@dataclass(frozen=True)
class SupportProbe:
    context: str
    claim: str
    supported: bool


RELEVANCE_PROBES: tuple[RelevanceProbe, ...] = (
    RelevanceProbe(
        "When does the city library close on weekdays?",
        "The city library opens at 9 am. On weekdays it closes at 6 pm; on Saturdays at 1 pm.",
        "The harbour ferry leaves every 40 minutes. Tickets are sold on board."),
    RelevanceProbe(
        "How do I reset my router to factory settings?",
        "To reset the router, hold the recessed reset button for ten seconds until the lights "
        "blink. All settings return to the factory defaults.",
        "Tomatoes need six hours of sun a day. Water them at the base, not on the leaves."),
    RelevanceProbe(
        "What is the boiling point of water at sea level?",
        "At sea level, water boils at 100 degrees Celsius. At higher altitude it boils at a lower "
        "temperature because the air pressure is lower.",
        "The novel was published in 1851. Its first edition sold fewer than 3,000 copies."),
    RelevanceProbe(
        "How many vacation days do new employees get?",
        "New employees receive 25 vacation days per year. Unused days can be carried over "
        "until the end of March.",
        "The cafeteria serves lunch from noon to 2 pm. Vegetarian dishes are marked green."),
    RelevanceProbe(
        "Which port does the monitor use for video input?",
        "The monitor takes video input over HDMI or DisplayPort. A USB-C cable also carries "
        "video from laptops that support it.",
        "Bake the bread for 35 minutes at 220 degrees. Let it cool before slicing."),
    RelevanceProbe(
        "How long is the warranty on the washing machine?",
        "The washing machine comes with a two-year warranty. The motor is covered for ten years.",
        "The museum is closed on Mondays. Guided tours start at 11 am."),
    RelevanceProbe(
        "What should I feed a puppy?",
        "Feed a puppy food made for puppies, three to four times a day, until it is six months "
        "old. Fresh water should always be available.",
        "The bridge is 1.2 kilometres long. It opened to traffic in 1937."),
    RelevanceProbe(
        "How do I cancel my gym membership?",
        "To cancel your gym membership, send the signed cancellation form to the front desk. "
        "The notice period is one month.",
        "Mercury is the planet closest to the sun. A year there lasts 88 days."),
)

SUPPORT_PROBES: tuple[SupportProbe, ...] = (
    SupportProbe("The city library opens at 9 am and closes at 6 pm on weekdays.",
                 "The library closes at 6 pm on weekdays.", True),
    SupportProbe("The city library opens at 9 am and closes at 6 pm on weekdays.",
                 "The library closes at 10 pm on weekdays.", False),
    SupportProbe("New employees receive 25 vacation days per year.",
                 "New employees get 25 vacation days a year.", True),
    SupportProbe("New employees receive 25 vacation days per year.",
                 "New employees get unlimited vacation.", False),
    SupportProbe("The washing machine comes with a two-year warranty.",
                 "The washing machine has a two-year warranty.", True),
    SupportProbe("The washing machine comes with a two-year warranty.",
                 "The washing machine is sold without any warranty.", False),
    SupportProbe("At sea level, water boils at 100 degrees Celsius.",
                 "Water boils at 100 degrees Celsius at sea level.", True),
    SupportProbe("At sea level, water boils at 100 degrees Celsius.",
                 "At sea level, water boils at 40 degrees Celsius.", False),
)
