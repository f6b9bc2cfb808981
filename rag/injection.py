"""Prompt-injection detectors shared by the query guard and ingest (text in a document that
addresses the assistant).

Detection runs on several views of the text, so one pattern catches many disguises: folded
(NFKC, invisible characters dropped, case-folded, accents stripped: "précédentes" → "precedentes"),
and every view the decoders of rag.decoders find: de-leeted ("1gn0r3" → "ignore"), de-spaced
("i g n o r e" → "ignore"), confusables mapped to ASCII ("Іgnоrе" → "ignore"), and decoded
(base16/32/64, hex, percent-encoding, ROT13, atbash, Morse, Braille, Unicode tag characters).
A readable message in an encoding or behind invisible characters is a finding of its own ("encoded_text",
"hidden_text"): a question about documents has no reason to carry one.
Patterns are families, not phrases: a verb
of one kind near a noun of another ("ignore … instructions", "reveal … system prompt") in English,
French, German, Spanish, Italian, Portuguese, Russian and Chinese here, more languages, personas,
impersonated authority and notes to the assistant in rag.injection_families; chat-template and
closing-delimiter tricks; markdown-image / link exfiltration; claimed authority; role-play.
Ordinary questions that use the same words ("How do I make apt ignore a held package?", "What does
the system administrator do?") pass: each family needs its pair or its qualifier.
See datasets/guard_attacks.jsonl and guard_benign.jsonl, scored by `python -m eval guard`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from rag.decoders.base import DOCUMENT_SKIPS, Decoded, decode_all, readable
from rag.injection_families import DOCUMENT_MORE, MORE, NOT_A_MANUALS, NOT_DESCRIBED, NOT_QUOTED
from rag.injection_families import OWN_SETUP as _OWN_SETUP
from rag.injection_mentions import mask_mentions, topic_question
from rag.injection_polyglot import DOCUMENT_POLYGLOT, POLYGLOT
from rag.injection_roles import ROLES
from rag.injection_shapes import SHAPES
from rag.injection_turns import DOCUMENT_TURNS, TURNS
from rag.text import mixed_script_words

# -- word families (folded: lower case, no accents) --------------------------------------------
_IGNORE = (r"ignor\w*|disregard\w*|forget\w*|override|bypass|set aside|never mind|nevermind|"
           r"stop following|(?:do not|don'?t|no longer) (?:follow|obey)|pay no attention to|skip|"
           r"non seguire(?: piu)?|no sigas|ne suis (?:plus|pas)|befolge (?:nicht|keine)|не следуй|nao sigas?|"
           r"oublie\w*|ne tiens? pas compte|fais abstraction|vergiss\w*|missacht\w*|uberspring\w*|"
           r"olvida\w*|no hagas caso|haz caso omiso|dimentica\w*|esquec\w*|игнорир\w*|забудь\w*|"
           r"negeer\w*|vergeet|zignoruj\w*|ignoruj\w*|zapomnij|unut\w*|abaikan|ignorera|"
           r"gormezden gel\w*|yok say\w*|αγνοησ\w*|αγνοηστε")
# Nouns that only ever mean the assistant's instructions, and generic ones ("rules", "context")
# that do so only after a qualifier ("your rules", "the above context", "the question").
_ORDERS = (r"instructions?|prompts?|directions|guidelines|guidance|everything|(?:the )?above|"
           r"consignes?|\w*anweisung\w*|systemprompt|instrucciones|indicaciones|istruzion\w*|"
           r"instrucoes|инструкц\w*|указани\w*|instructies|instrukcj\w*|instrukc\w*|instruktion\w*|"
           r"instruksi|talimat\w*|polecen\w*|befehle|ordini|ordres|οδηγι\w*|pokyn\w*|huong dan")
_QUALIFIED = (r"(?:your|my|all|all the|these|those|previous|prior|earlier|above|the above|original|"
              r"tes|toutes tes|les|deine|alle|tus|todas las|las|le tue|as suas|твои|все)(?: \w+)? "
              r"(?:rules|policy|policies|restrictions|(?:system )?messages?|context|regles|regeln|"
              r"vorgaben|reglas|regole|regras|правил\w*)"
              r"|the (?:question|documents|sources)|(?:your|the) (?:safety|content) \w+"
              r"|(?:system|systeme|sistema|systems?) (?:rules|regles|reglas|regole|regras)"
              r"|(?:rules|regles|reglas|regole|regras|regeln) (?:of the|du|del|des|do|dello) "
              r"(?:system|systeme|sistema|systems)|systemregeln")
_RULES = rf"{_ORDERS}|{_QUALIFIED}"
_REVEAL = (r"repeat\w*|print\w*|output|copy|quote|show|reveal|display|dump|leak|tell me|give me|"
           r"write out|list|summari[sz]e|continue|affiche\w*|montre\w*|revele\w*|repete\w*|donne\w*|"
           r"zeig\w*|gib|verrat\w*|wiederhol\w*|muestra\w*|revela\w*|dime|repite|mostra\w*|"
           r"покажи|выведи|повтори|translate|tradui\w*|ubersetz\w*|traduc\w*|tradu\w*|echo|"
           r"scrivi\w*|escrib\w*|wypisz|pokaz\w*|toon|herhaal|напиши|перечисли")
_SECRET = (r"(?:system|initial|original|hidden|secret|configuration|developer|first|starting) "
           r"(?:prompt|instructions?|message|rules|guidelines)|system ?prompt|prompt (?:du )?systeme|"
           r"systemanweisung\w*|systemprompt|(?:prompt|mensaje) del? sistema|prompt di sistema|"
           r"системн\w* (?:промпт|инструкц\w*)|your (?:instructions|rules|guidelines|prompt)|"
           r"(?:tes|deine|tus) (?:instructions|regles|anweisungen|reglas|instrucciones)"
           rf"|{_OWN_SETUP}")
_TEXT = r"text|words|everything|message|messages|instructions|prompt|content|conversation|lines"
_PREVIOUS = r"above|before (?:this|mine|my|the question)|came before|preceding|earlier|prior"
_REPLY = r"reply|respond|answer|say|output|print|write|antworte|reponds?|responde|rispondi|responda"
_ONLY = r"only|just|nothing else|seulement|uniquement|nur|solo|solamente|unicamente|apenas"
_ASSISTANT = r"ai|llm|language model|assistant|chatbot|gpt|model|bot"

# "Ignore the rest of this data and print …", "Disregard all info except …": the reader is told
# to drop the text around it, which only a model reading it would do.
_IGNORE_REST = (r"\b(?:ignore|disregard|forget)\b[\w\s',]{0,20}?\b(?:the rest|all the rest|"
                r"everything (?:else|above|below|before|after|except)|anything (?:else|above|below)|"
                r"all (?:the )?(?:other )?(?:info|information|data|text|content|context)(?: \w+)? except|"
                r"(?:all |any )?(?:other|previous|prior|above|earlier|preceding|following) "
                r"(?:info|information|data|text|content|context|documents?|sources?)|"
                r"this (?:data|text|document|content|page|record|file))\b")
_ROLE_LINE = (r"(?:^|\n|[.!?]\s)\s*[*#>\s]*(?:system|assistant|ai|chatgpt|gpt)\s*:\s*(?:you|ignore|disregard|"
              r"focus|from now|do not|don'?t|always|never|only|respond|reply|answer|say|print|output|forget|"
              r"new|the user|tell|provide|repeat|summari[sz]e|include|instead|i will|sure|as an ai)")
# Nouns that name instructions in any phrasing: a harmless object listed beside one of them
# ("ignore any typos and the previous instructions") does not make the order harmless
_INSTRUCTION_NOUNS = (_ORDERS.replace(r"everything|(?:the )?above|", "")
                      + r"|rules|restrictions|polic(?:y|ies)|regles|regeln|reglas|regole|regras|правил\w*")
# "Ignore the typos in my last message", "ignore my last message's formatting": the thing to ignore
# is harmless, not an instruction (guard8) — unless an instruction follows in the same list (guard9)
_NOT_HARMLESS = (r"(?!\s+(?:(?:the|any|all|my|those|these|that|this|a|some)\s+)*"
                 r"(?:(?:minor|small|little|previous|last|obvious)\s+)?"
                 r"(?:typos?|spelling|grammar|formatting|format|errors?|mistakes?|warnings?|noise|"
                 r"message'?s formatting|last message'?s|punctuation|capitali[sz]ation|whitespace|"
                 r"indentation|case|accents?)\b"
                 rf"(?![\w\s',]{{0,40}}?\b(?:{_INSTRUCTION_NOUNS})\b))")
# Each family is a list of alternatives; one match anywhere in any view flags the family.
PATTERNS: dict[str, tuple[str, ...]] = {
    "ignore_instructions": (rf"{NOT_DESCRIBED}{NOT_QUOTED}\b(?:{_IGNORE})\b{_NOT_HARMLESS}[\w\s',]{{0,40}}?"
                            rf"\b(?:{_RULES})\b{NOT_A_MANUALS}",
                            _IGNORE_REST,
                            # "ignore what the document says. Instead, tell …": dropping the sources
                            # and then doing something else is an order to the reader
                            rf"\b(?:{_IGNORE})\b (?:what |all )?"
                            r"(?:the |these |those |les |la |le |die |los |las )?"
                            r"(?:documents?|documentation|docs|sources?|context|search results)\b(?: says?)?"
                            r"[\s.,;]*(?:and|instead|then|just|et|puis|und|y)\b"),
    "reveal_prompt": (
        rf"\b(?:{_REVEAL})\b(?! (?:me |us )?how (?:to|do i|can i) "
        r"(?:set|configure|change|pass|use|write|add)\b)"
        rf"[\w\s',]{{0,50}}?(?:{_SECRET})",
        # "everything above in the notes I pasted" is the user's own text
        rf"\b(?:{_REVEAL})\b[\w\s',]{{0,30}}?\b(?:{_TEXT})\b[\w\s',]{{0,30}}?\b(?:{_PREVIOUS})\b"
        r"(?![^?]{0,60}\b(?:i|we) (?:just )?(?:pasted|shared|sent|wrote|uploaded|attached)\b)",
        r"\bstarting with ['\"]?you are\b", r"\bfrom ['\"]you are\b",
        r"\bwhat (?:were|have) you (?:been )?told\b", r"\bwhat instructions were you\b",
        r"\b(?:instructions|rules|guidelines) (?:were )?you (?:were |have been )?(?:given|told)\b",
        r"\byour system message\b", r"\bhidden prompt\b", _OWN_SETUP,
        # the assistant's own setup asked for by name or by where it sits
        r"\b(?:your|tu|ton|dein\w*) (?:system ?prompt|prompt (?:de|del) sistema|prompt systeme|systemprompt|"
        r"system message|initial instructions|hidden instructions)",
        r"\brole ['\"]?system\b(?! ?['\"]?,? ?['\"]?content\b)",
        r"\b(?:in|of|from) your context(?: window)?\b",
        r"\bwhat (?:did|does|has|have) (?:the |your )?"
        r"(?:operator|developer|creator|admin\w*|company|owner)s?\b"
        r"[\w\s]{0,20}\b(?:tell|told|instruct\w*|ask\w*) you\b",
        r"\b(?:you see|you were given|you have|you got) at the (?:top|start|beginning)\b",
        r"\b(?:passwords?|api keys?|tokens?|credentials|secrets?)\b[\w\s]{0,30}"
        r"\b(?:in your (?:documents|context|memory|prompt|instructions|config\w*)|"
        r"you (?:were given|store|keep))\b",
    ),
    "override_answer": (
        # "it can only answer from the documents" describes the assistant; it tells it nothing
        rf"(?<!can )(?<!will )\b(?:{_ONLY}) (?:{_REPLY})\b",
        rf"\b(?:{_REPLY})\b[\w\s]{{0,12}}\b(?:with )?(?:{_ONLY})\b",
        r"\binstead of answering\b", r"\b(?:don'?t|do not) answer\b",
        r"\binstead,? (?:respond|reply|say|write|output)",
        r"\b(?:whatever|regardless of|no matter) (?:what )?(?:the )?"
        r"(?:sources?|documents?|context|question|was asked)",
        r"\byour (?:only )?(?:job|task|answer) (?:now )?(?:is|must be)\b",
        r"\bthe (?:assistant|ai|model|chatbot|bot) (?:must|should|will|has to) (?:now |also |always )?"
        r"(?:add|say|tell|respond|reply|answer|include|recommend|state|mention|claim)\b",
        r"\btell (?:the|every|all) users? (?:that|to|it|they)\b",
        # actions on the user's behalf that a question to a document search never asks for
        r"\b(?:call|run|invoke|execute|trigger) (?:the )?[a-z]+_[a-z_.]+ tool\b",
        r"\bwithout (?:telling|asking|notifying|informing) (?:me|the user|anyone|them)\b",

    ),
    "role_override": (
        r"\byou are now\b", r"\bfrom now on,? you\b", r"\bfrom here on\b",
        # role-play to practise ("pretend to be a customer so I can practise") is a request, not a persona
        r"\bpretend (?:you are|to be|you'?re)\b"
        r"(?![^?.]{0,60}\b(?:so (?:that )?i can|(?:and|to) help me|for me to) "
        r"(?:practi[cs]e|prepare|rehearse|"
        r"train|learn|study))",
        rf"\b(?:act|roleplay|role-play) as (?:an? |my )?(?:\w+ ){{0,2}}"
        rf"(?:{_ASSISTANT}|terminal|persona|character)\b",
        r"\blet'?s play a game\b", r"\bstay in character\b",
        r"\bimagine you are an? (?:ai|assistant|model)\b",
        r"\b(?:no|without(?: any)?) (?:content policy|restrictions|filters|rules|limits|censorship)\b",
        r"\bunfiltered\b",
        # PowerShell's 'unrestricted' execution policy, unrestricted access to a share: a setting
        r"\bunrestricted\b(?!['\"’”]? (?:setting|execution|policy|access|license|licence|"
        r"internet|data|use|funds?|grants?|download|shares?|permissions?)\b)",
        r"\bevil (?:assistant|ai|bot)\b",
        r"\b(?:an? )?ai (?:that|which|who) (?:has no|prints|reveals)",
        # "jailbreak" and "developer mode" are also a phone's: only when the model is the subject
        r"\bjailbr(?:oken|eak) (?:mode|prompt|version|ai|assistant|chatbot)\b",
        r"\byou(?:'re| are)? jailbroken\b",
        # refusal suppression: the reply's safety wording forbidden or refusing made costly
        r"\b(?:do not|don'?t|never) (?:apologi[sz]e|include any (?:notes?|disclaimers?|warnings?)|"
        r"add (?:a |any )?(?:disclaimers?|warnings?)|refuse|say (?:the words?|that you can'?t|you can'?t))\b",
        r"\b(?:every time|each time|if) you refuse\b",
        # fiction or a persona as the wrapper for a harmful how-to, and personas without scruples
        r"\b(?:novel|story|screenplay|fiction|movie|thriller|my character|in character)\b[^?]{0,200}"
        r"\b(?:in (?:(?:precise|exact|full|complete|technical|step-by-step|explicit) ){1,2}detail|"
        r"(?:exact|precise) (?:steps|instructions|recipe))\b[^?.]{0,12}\b(?:how|for|to)\b",
        r"\bnever (?:tells?|says?|mentions?|warns?)\b[^.?]{0,40}\b(?:illegal|unethical|dangerous|harmful|"
        r"not allowed|against the (?:rules|law))\b",
        r"\b(?:no|without(?: any)?) (?:moral|ethical) "
        r"(?:limits|boundaries|guidelines|compass|constraints|filters)\b",
        r"\bopposite mode\b|\bevil confidant\b",
        r"\bdo anything now\b", r"\bdeveloper mode\b(?=[^?]{0,80}\byou)", r"\byou are dan\b", r"\bdan mode\b",
        r"你现在是",
    ),
    "claimed_authority": (
        r"\bas (?:the|your) (?:developer|admin\w*|creator|owner|operator)\b",
        r"\bi(?: am|'m) (?:the |your )?(?:developer|admin\w*|system administrator|creator|owner)\b",
        # "the admin override on the thermostat" is a device's feature, not a claim
        r"(?<!the )\b(?:admin|developer|sudo|god|debug|maintenance) override\b"
        r"(?! (?:on|of|for|in) (?:the|a|an|my|our|this)\b"
        r"| (?:button|setting|switch|feature|function|code|key|"
        r"pin|option|menu|reset)s?\b)",
        r"\b(?:admin|developer|sudo|god|debug|maintenance) mode\b(?=[^?]{0,80}\byou)",
        r"\byou(?:'re| are)? (?:now )?in (?:\w+ )?(?:admin|developer|sudo|god|debug|maintenance) mode\b",
        r"\bi (?:hereby )?(?:authori[sz]e|permit) you\b", r"\bgive you permission\b",
        r"\byou (?:are|were) (?:now )?(?:permitted|authori[sz]ed|allowed) to\b",
        r"\b(?:safety|content|security) (?:checks?|polic\w+|filters?|rules) (?:are |is )?(?:now )?"
        r"(?:disabled|off|lifted)",
        r"\bdisable (?:the |your )?(?:content|safety) (?:policy|filters?|rules)",
        r"\b(?:developer|admin) here\b", r"\b(?:openai|anthropic) staff\b", r"\byou must obey\b",
    ),
    "fake_delimiter": (
        r"</\s*(?:context|sources?|documents?|instructions?|system|user|data|question)\s*>",
        r"<\s*(?:instructions?|system)\s*>", r"<\|[a-z_]+\|>", r"\[/?inst\]", r"\[system\]", r"\]\]>",
        r"(?:^|\n)\s*(?:system|assistant)\s*:", _ROLE_LINE, r"#{2,}\s*(?:system|instruction|end)",
        r"\bend(?: of)? (?:the )?(?:context|documents?|sources?|input)\b",
        r"\bnew (?:instructions?|task|policy|rules)\s*:",
        r"[>\]{(]\s*(?:system|assistant)\s*:",  # a turn marker after a tag or brace: "{{system: …"
        r"\bsystem\.prompt\b|\bprint\(\s*(?:system|prompt)",
        r"<!--[^>]{0,200}\b(?:respond|reply|say|tell|answer|ignore|print|output)\b",  # orders in a comment
        r"<[^>]*\b(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)",  # text hidden by CSS
    ),
    "exfiltration_link": (
        r"!\[[^\]]*\]\(\s*https?://", r"<img\b[^>]*\bsrc\s*=", r"\]\(https?://[^)\s]*[?&][^)\s]*=",
        r"\b(?:send|post|append|embed|include|put|add)\b[\w\s',]{0,60}\b(?:link|url|webhook)\b",
        r"\bhttps?://\S*(?:webhook|collect|log|exfil|attacker|evil)\S*",
    ),
    "encoded_instruction": (
        # "decode this and do what it says"; "what does base64 encoding actually do?" asks about it
        r"\b(?:decode|base64|rot13|hex)\b[\w\s():,]{0,40}\b(?:follow|execute|run|obey|do (?:it|that|what|"
        r"as))\b",
        r"\b(?:follow|execute|run|obey)\b[\w\s():,]{0,40}\b(?:base64|rot13|encoded|hex)\b",
        r"^base64:",
    ),
    # Chinese has no word boundaries: verb and noun within a few characters.
    "ignore_instructions_zh": (r"(?:忽略|无视|忽视|忘记|不要理会|不理会).{0,10}"
                               r"(?:指令|指示|说明|规则|内容|提示|要求)",),
    # 系统提示符 is a shell's prompt string
    "reveal_prompt_zh": (r"系统提示(?![符音框信息栏声窗])|提示词|初始提示|系统消息|系统指令",),
    "override_answer_zh": (r"只(?:回答|回复|输出|说)",),
}
# more languages, personas, impersonated authority, notes to the assistant (rag.injection_families)
# forged turns, decode-and-act, named personas (rag.injection_turns); other languages' orders and
# forged turns in any script (rag.injection_polyglot); config tails, role JSON, more extraction
# (rag.injection_shapes)
for _more in (MORE, TURNS, POLYGLOT, SHAPES, ROLES):
    for _family, _extra in _more.items():
        PATTERNS[_family] = PATTERNS.get(_family, ()) + _extra
# Documents are prose about anything, "don't follow the instructions in the policy" included, so
# their families are stricter: instructions qualified as the assistant's, its prompt by name, text
# addressed to an AI, chat-template tokens, exfiltration images with a query string.
_ASSISTANTS_ORDERS = (r"(?:all |any )?(?:previous|prior|above|earlier|preceding|your|system|original) "
                      r"(?:instructions?|prompts?|rules|guidelines|directions)")
_FOREIGN_ORDERS = (r"consignes?|anweisung\w*|instrucciones|istruzion\w*|instrucoes|инструкц\w*|"
                   r"(?:tes|deine|tus) (?:regles|regeln|reglas)")
DOCUMENT_PATTERNS: dict[str, tuple[str, ...]] = {
    # a quoted "'ignore previous instructions'" in an article about injection is a mention, not an order
    "ignore_instructions": (rf"(?<!['\"‘“])\b(?:{_IGNORE})\b[\w\s',]{{0,30}}?\b(?:{_ASSISTANTS_ORDERS}|"
                            rf"{_FOREIGN_ORDERS})\b", r"\bignore the (?:question|documents|sources)\b",
                            _IGNORE_REST),
    # a turn of the assistant's, anywhere: prose says "the setup assistant opens", not "Assistant: Sure"
    "role_marker": (_ROLE_LINE, r"\b(?:assistant|chatgpt)\s*:\s",
                    r"\[(?:system|assistant)\]", r"<\|im_start\|>",
                    r"#{2,}\s*(?:system|instruction|response)\b"),
    "reveal_prompt": (rf"\b(?:{_REVEAL})\b[\w\s',]{{0,50}}?(?:{_SECRET})",
                      r"\bstarting with ['\"]?you are\b"),
    "claimed_authority": (r"\bi (?:hereby )?(?:authori[sz]e|permit) you\b",
                          # "developer mode" alone is a phone setting or a browser banner in a how-to
                          r"\b(?:admin|developer) override\b",
                          r"\bdeveloper mode\b[^.]{0,60}\byou (?:must|will|are|can now|now)\b"),
    "addresses_assistant": (
        rf"\b(?:if you are|attention|note to|dear|hey|to the|hello) (?:an? |the )?(?:{_ASSISTANT})s?\b",
        r"\b(?:ai|llm) (?:assistants?|models?),? (?:must|should|please|reading)\b",
        r"\bwhen (?:you )?(?:summari[sz]\w*|answer\w*|asked about) (?:this|questions)\b[^.]{0,40}"
        r"\b(?:you must|always|say|reply|tell)\b",
        r"\byou are now\b", r"\bfrom now on,? you (?:must|will|are)\b",
        rf"\b(?:{_ASSISTANT}|chatgpt|claude|gemini|copilot)s?(?:, | (?:please |you must |you should |must |"
        r"should ))"
        r"(?:ignore|disregard|say|respond|reply|print|output|answer|state|tell|include|recommend|append|"
        r"stop|instead|omit|classify|rank|approve)\b",
        # without a comma or a modal, only verbs that are not also nouns ("AI output", "an assistant instead")
        rf"\b(?:{_ASSISTANT}|chatgpt|claude|gemini|copilot)s? "
        r"(?:ignore|disregard|say|respond|reply|print|tell|include|recommend|append|omit|classify|approve)\b",
        r"\bprovide (?:it|this|them|the following)(?: information)? to the user\b",
        r"\b(?:tell|inform|convince|assure) the user (?:that|to ignore)\b",
        r"\b(?:respond|reply|answer) (?:only |just )?with (?:exactly|only|nothing but)\b",
        r"\bwhen (?:asked|you are asked|questioned) about\b[^.]{0,60}\b(?:say|answer|reply|respond|state)\b",
        # a note addressed to a machine reader: "Note for the AI summarizer", "P.S. for any AI
        # reading this", "INSTRUCTION TO THE SUPPORT BOT", "[AI instruction]"
        r"(?:\b(?:note|message|instructions?|reminder)\b|\bp\.?s\b\.?)[\w\s]{0,10}?\b(?:to|for) "
        r"(?:the |any |all |an? )?"
        r"(?:[\w-]+ ){0,2}(?:ai|llm|bots?|assistants?|(?:language )?models?|summari[sz]ers?|agents?)\b",
        r"\[(?:ai|llm|assistant|bot)[ _-]?(?:instructions?|notes?|only)\]",
        # "Translator AI: do not translate", "Agent AI: Ignore …", "AI coding assistants: also add …"
        r"\b(?:ai|llm|bots?|assistants?|agents?)\s*:\s*(?:do not|don'?t|ignore|disregard|also|always|never|"
        r"stop|instead|reply|respond|say|write|add|change|report|omit|describe|classify|rank|approve)\b",
        # "AI systems processing this document must …", "AI summarizers should …"
        r"\b(?:ai|llm)s? (?:[\w-]+ )?"
        r"(?:systems?|summari[sz]ers?|assistants?|models?|agents?|tools?|readers?)\b"
        r"[\w\s]{0,30}?\b(?:must|should|shall|need to|are required to)\b",
        r"\bif (?:an? |the |any )?(?:ai|llm|assistant|language model|bot|chatbot)\b[\w\s]{0,20}?"
        r"\b(?:reading|summari[sz]ing|processing|analy[sz]ing|reviewing)\b",
        r"\bnew system (?:prompt|instructions?|message)\b",
        r"(?:^|\n)\s*instructions?\s*:\s*(?:ignore|disregard|you|always|never|tell|say|report|reply)\b",
        r"\bsystem\s*:\s*the (?:[\w-]+ )?(?:assistant|ai|model|bot|chatbot)\b",
        r"\b(?:ignore|disregard|forget)\b (?:the |this |your )?(?:[\w-]+ )?(?:task|assignment|request)\b"
        r"[\s.,;]*(?:and |instead)",
    ),
    "fake_delimiter": (r"<\|[a-z_]+\|>", r"\[/?inst\]", r"</\s*(?:context|sources?)\s*>"),
    "exfiltration_link": (r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?&][^)\s]*=", r"<img\b[^>]*\bsrc\s*=",
                          r"!\[[^\]]*\]\(\s*https?://[^)\s]*(?:\[|\{|%5b|%7b|<)",
                          r"\b(?:render|display|print|output|include|show|append)\b[\w\s',]{0,40}\b"
                          r"(?:markdown|image)\b[\w\s',]{0,40}\b(?:url|link|https?)\b",
                          r"\bhttps?://\S*(?:webhook|exfil|attacker)\S*"),
    "ignore_instructions_zh": PATTERNS["ignore_instructions_zh"],
    "reveal_prompt_zh": (r"系统提示(?!符)|初始提示|系统指令",),
}
for _more in (DOCUMENT_MORE, DOCUMENT_TURNS, DOCUMENT_POLYGLOT):
    for _family, _extra in _more.items():
        DOCUMENT_PATTERNS[_family] = DOCUMENT_PATTERNS.get(_family, ()) + _extra
# Letters spread out one by one ("i g n o r e p r e v i o u s …") lose their word breaks, so that
# view is squashed to letters only and searched for the strongest pairs without word boundaries.
_SQUASHED = re.compile(r"(?:ignor|disregard|forget|bypass|override)\w{0,16}?"
                       r"(?:instruction|prompt|rules|guideline)"
                       r"|(?:reveal|print|show|repeat)\w{0,12}?(?:systemprompt|yourprompt|yourinstruction)")


def _compile(families: dict[str, tuple[str, ...]]) -> dict[str, re.Pattern[str]]:
    # no re.I: every view they are tried on is case-folded already (`views`), and a
    # case-insensitive search cost twice the time on document pages
    return {name: re.compile("|".join(f"(?:{p})" for p in alternatives), re.M)
            for name, alternatives in families.items()}


_COMPILED = _compile(PATTERNS)
_DOCUMENT_COMPILED = _compile(DOCUMENT_PATTERNS)

@dataclass(frozen=True)
class Finding:
    """One family found: in which view, and the matched text with a little around it."""

    family: str
    view: str
    snippet: str

    @property
    def label(self) -> str:
        return self.family if self.view == "text" else f"{self.family} ({self.view})"


_HIDDEN_KINDS = ("decoded", "hidden")
_WORDS = re.compile(r"[^\W\d_]{2,}")
_MIN_MESSAGE_WORDS = 5
_MIN_MIXED_WORDS = 2  # words mixing scripts (Latin with Cyrillic/Greek look-alikes: TR39) in a question
# the reveal families a definition / how-to question about prompts can trip on a bare noun
_REVEAL_FAMILIES = frozenset({"reveal_prompt", "reveal_prompt_zh"})


def fold(text: str) -> str:
    """NFKC, invisible format characters dropped, case-folded, accents stripped (CJK untouched)."""
    if text.isascii():  # the normal forms leave ASCII alone, and it has no Cf or combining marks
        return text.lower()
    text = _without(unicodedata.normalize("NFKC", text), lambda ch: unicodedata.category(ch) == "Cf")
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return unicodedata.normalize("NFC", _without(decomposed, unicodedata.combining))


def _without(text: str, drop: Callable[[str], object]) -> str:
    """`text` without the characters `drop` is true of, each kind of character tested once (a
    document page is thousands of characters but a few dozen kinds)."""
    gone = [ord(ch) for ch in set(text) if drop(ch)]
    return text.translate(dict.fromkeys(gone)) if gone else text


def decoded_views(text: str, disguises: bool = True) -> tuple[Decoded, ...]:
    """Every decoder's views of `text` (rag.decoders); documents skip the ones that would invent
    words in long prose (leetspeak, spacing)."""
    return decode_all(text, frozenset() if disguises else DOCUMENT_SKIPS)


def views(text: str, disguises: bool = True, decoded: tuple[Decoded, ...] | None = None) -> dict[str, str]:
    """The folded text and every decoded view, folded, by view name (the name shows in the
    verdict: "ignore_instructions (rot13)")."""
    found = {"text": fold(text)}
    for item in decoded_views(text, disguises) if decoded is None else decoded:
        name, n = item.view, 1
        while name in found:
            n += 1
            name = f"{item.view}{n}"
        found[name] = fold(item.text) if item.view != "squashed" else item.text
    # a question's quoted phrase that is talked about ("'ignore previous instructions' attacks")
    # is not an order (rag.injection_mentions); documents keep their own rule for quotes
    return {name: mask_mentions(view) for name, view in found.items()} if disguises else found


def hidden_findings(decoded: tuple[Decoded, ...], documents: bool = False) -> tuple[Finding, ...]:
    """Content a person would not see: a readable message in an encoding (questions only: a
    document may quote base64 in a tutorial) or behind invisible characters (both)."""
    found: dict[str, Finding] = {}
    for item in decoded:
        if item.kind not in _HIDDEN_KINDS or (documents and item.kind == "decoded"):
            continue
        family = "encoded_text" if item.kind == "decoded" else "hidden_text"
        # a message is a few words; "hello world" in a base64 tutorial is not one
        message = readable(item.text) and len(_WORDS.findall(item.text)) >= _MIN_MESSAGE_WORDS
        # one token with no space in it (a percent-encoded URL decoded) is an address, not a message
        message = message and any(ch.isspace() for ch in item.text.strip())
        if family not in found and (item.kind == "hidden" or message):
            found[family] = Finding(family, item.view, f"{item.note}: {item.text[:60]!r}")
    return tuple(found.values())


def _scan(text: str, patterns: dict[str, re.Pattern[str]], disguises: bool,
          extra: tuple[Decoded, ...] = ()) -> tuple[Finding, ...]:
    decoded = decoded_views(text, disguises) + extra
    found: dict[str, Finding] = {f.family: f for f in hidden_findings(decoded, documents=not disguises)}
    mixed = mixed_script_words(fold(text)) if disguises and not text.isascii() else []
    if len(mixed) >= _MIN_MIXED_WORDS:  # one brand name may mix scripts; a sentence of them is a disguise
        found["homoglyph_words"] = Finding("homoglyph_words", "confusables", ", ".join(mixed[:5]))
    for view_name, view in views(text, disguises, decoded).items():
        spread = view_name.startswith("spaced") and "spread_out_letters" not in found
        if spread and (m := _SQUASHED.search(view)):  # letters joined across words lose their breaks
            found["spread_out_letters"] = Finding("spread_out_letters", view_name, m.group())
        if view_name.startswith("squashed"):
            if "spread_out_letters" not in found and (m := _SQUASHED.search(view)):
                found["spread_out_letters"] = Finding("spread_out_letters", view_name, m.group())
            continue
        for name, pattern in patterns.items():
            if name not in found and (m := pattern.search(view)):
                snippet = view[max(0, m.start() - 30): m.end() + 30].replace("\n", " ")
                found[name] = Finding(name, view_name, snippet)
    if disguises and _REVEAL_FAMILIES & found.keys() and topic_question(fold(text)):
        found = {name: f for name, f in found.items() if name not in _REVEAL_FAMILIES}
    return tuple(found.values())


def detect(text: str, extra: tuple[Decoded, ...] = ()) -> tuple[str, ...]:
    """Names of the injection families found in a query (with the view that revealed each);
    `extra`: views the caller already has (what the edge's strip of hidden characters found)."""
    return tuple(f.label for f in _scan(text, _COMPILED, disguises=True, extra=extra))


def detect_in_document(text: str) -> tuple[Finding, ...]:
    """Text in a document that addresses the assistant (stricter families, see DOCUMENT_PATTERNS)."""
    return _scan(text, _DOCUMENT_COMPILED, disguises=False)
