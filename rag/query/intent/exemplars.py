"""Canonical exemplars of each intent for the semantic router (Axiom's table, extended).

Kept apart from the labeled test set `datasets/intents.csv`: no sentence here appears there
(tests/rag/query/test_intent_dataset.py checks), so the accuracy reported on it is not leakage.
The Query Lab page edits a copy of this mapping and re-scores the router with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

INTENTS: tuple[str, ...] = (
    "greeting", "gratitude", "garbage", "off_topic", "followup",
    "simplify", "deepen", "command", "question", "clarify",
)

# Axiom: question and command need retrieval; followup / simplify / deepen transform the last
# answer when there is one (else retrieval); the rest are answered without documents.
NEEDS_RETRIEVAL: Mapping[str, str] = MappingProxyType({
    "question": "yes", "command": "yes", "followup": "maybe", "simplify": "maybe",
    "deepen": "maybe", "greeting": "no", "gratitude": "no", "garbage": "no", "off_topic": "no",
    "clarify": "no",
})

# Axiom's handler replies for intents that need no documents.
CANNED_REPLIES: Mapping[str, str] = MappingProxyType({
    "greeting": "Hello! How can I help you with your documents today?",
    "gratitude": "You're welcome! Feel free to ask if you have more questions about your documents.",
    "garbage": "I didn't quite understand that. Could you rephrase your question about the documents?",
    "off_topic": "I'm designed to help with questions about your uploaded documents. "
                 "What would you like to know about them?",
    "clarify": "Could you say a bit more about what you are looking for?",
})

EXEMPLARS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "greeting": (
        "hi", "hello", "hey", "good morning", "sup", "howdy", "hello there", "hey there",
        "good afternoon", "good evening", "hiya", "greetings", "what's up", "yo",
        "hi, how are you?", "morning!",
    ),
    "gratitude": (
        "thanks", "thank you", "appreciate it", "thx", "ty", "cheers", "thanks a lot",
        "thank you so much", "many thanks", "much appreciated", "that was helpful, thanks",
        "great, thank you", "perfect, thanks!", "awesome thanks", "thanks for the help",
    ),
    "garbage": (
        "asdfghjkl", "qwertyuiop", "zxcvbnm", "lorem ipsum dolor", "blah blah blah",
        "jfkdlsa", "hjkl hjkl", "aaaaaa", "xyzzy", "test test", "ppppp", "sdfsdf",
        "mnbvcxz", "ghghgh",
    ),
    "off_topic": (
        "what's the weather like today?", "tell me a joke", "who won the football game last night?",
        "recommend a good movie", "how do I cook pasta?", "what's the bitcoin price?",
        "write me a poem about the sea", "what time is it in Tokyo?", "who is the president?",
        "play some music", "book me a flight to Paris", "what is the meaning of life?",
        "what should I eat for dinner?", "how tall is Mount Everest?",
        "can you help me with my math homework?", "what's your favorite color?",
        "translate hello into Spanish", "what are the lottery numbers?",
    ),
    "followup": (
        "more", "tell me more", "continue", "elaborate", "what else", "go on", "keep going",
        "and then?", "more details please", "expand on that", "anything else?",
        "can you elaborate on that?", "tell me more about that", "what else should I know?",
        "and after that?",
    ),
    "simplify": (
        "explain simpler", "eli5", "dumb it down", "too complicated", "explain it like I'm five",
        "in plain english please", "I don't understand", "simpler please",
        "can you make that easier to understand?", "that's confusing", "say it more simply",
        "explain without jargon", "I'm not technical, explain again",
    ),
    "deepen": (
        "go deeper", "more technical", "in depth", "dive deeper", "give me the technical details",
        "explain the internals", "more advanced explanation", "get into the details",
        "what happens under the hood?", "go into more depth", "explain it at an expert level",
        "show me the low-level details",
    ),
    "command": (
        "summarize", "compare", "list all", "give me an overview", "summarize the document",
        "list all the documents", "give me a summary of the key points", "compare the two options",
        "outline the main sections", "make a table of the plans", "summarize this handbook",
        "list every feature", "give me a bullet list of the steps",
    ),
    "question": (
        "what is the price of the plan?", "how does the feature work?", "how do I change my settings?",
        "where can I find the export option?", "why does the app do that?",
        "can I use it on my phone?", "what happens when two edits collide?",
        "is there a size limit for files?", "which platforms are supported?",
        "how long is data kept?", "who can see my notes?", "does it work offline?",
        "how do I reset my password?", "when does the sync run?",
    ),
    "clarify": (
        "help", "info", "explain", "that one", "the thing", "which one?", "what about it?",
        "huh?", "details", "question", "the other one", "this", "tell me about it",
        "something about the stuff", "can you help?", "the setting",
    ),
})
