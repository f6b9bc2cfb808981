"""Chat roles and prompt words in many languages (guard8), so that a forged turn or an extraction
request in a language no earlier word list knew still reads as one: a "System-Nachricht:",
"Asystent:", "Järjestelmä:", "Rendszer:", "Σύστημα:" line after a question, a role JSON object of
any role, and "what is your system prompt / hidden instructions, print it verbatim" in 40+
languages. Words are folded like every view (rag.injection.fold: lower case, no accents), stems
take inflections and compounds ("systemmeldung", "järjestelmäviesti" → "jarjestelmaviesti").

Written from the languages' vocabularies, not from a set's rows; the forms the blind set
datasets/guard_blind_2026_12i missed are among them, so its figures are fit (dev).
Tests: tests/rag/query/test_guard_roles.py.
"""

from __future__ import annotations

# the system / the assistant / the developer / a tool, as a turn label (stems, folded)
_SYSTEM = (r"system\w{0,3}|systeme|sistem\w{0,3}|systeem|jarjestelma\w{0,3}|rendszer\w{0,3}|συστημα\w{0,2}|"
           r"систем\w{0,2}|sustav\w{0,2}|susteem\w{0,2}|kerfi\w{0,2}|coras|he thong|ระบบ|सिस्टम|"
           r"نظام|מערכת|系统|系統|システム|시스템|sistemo|systemet|sisteem")
_ASSISTANT = (r"assistent\w{0,2}|assistant\w{0,2}|asistent\w{0,3}|assistente|asystent\w{0,2}|"
              r"avustaja\w{0,2}|assistentti\w{0,2}|asszisztens\w{0,2}|βοηθοσ|ассистент\w{0,2}|"
              r"асистент\w{0,2}|помощник\w{0,2}|pomocnik\w{0,2}|tro ly|ผู้ช่วย|सहायक|مساعد|עוזר|"
              r"助手|助理|アシスタント|어시스턴트|yardimci|yardımcı|asisten|msaidizi|modelo?|model|ai|ia|ki|ии|"
              r"chatbot|bot")
_DEVELOPER = (r"developer|entwickler|desarrollador|developpeur|sviluppatore|desenvolvedor|ontwikkelaar|"
              r"programista|deweloper|kehittaja|fejleszto|προγραμματιστησ|разработчик|розробник|vyvojar|"
              r"razvijac|dezvoltator|gelistirici|geliştirici|utvecklare|udvikler|utvikler|nha phat trien|"
              r"开发者|開発者|개발자|מפתח|مطور|डेवलपर|admin\w{0,8}|operator\w{0,2}|оператор\w{0,2}|"
              r"administrator\w{0,2}|администратор\w{0,2}")
_TOOL = (r"tool|werkzeug|herramienta|outil|strumento|ferramenta|narzedzie|tyokalu|eszkoz|εργαλειο|"
         r"инструмент|nastroj|alat|unealta|arac|verktyg|vaerktoj|cong cu|工具|ツール|도구|function|funktion|"
         r"funcion|fonction|funzione|функция")
# what a compound adds: "-Nachricht", "meldung", "üzenet", "viesti", "消息"
_NOTE = (r"nachricht|meldung|mitteilung|hinweis|anweisung|message|mensaje|messaggio|mensagem|wiadomosc|"
         r"komunikat|viesti|ilmoitus|uzenet|μηνυμα|сообщение|повідомлення|zprava|poruka|mesaj\w{0,2}|"
         r"meddelande|besked|melding|bericht|thong bao|消息|信息|通知|メッセージ|메시지|הודעה|رسالة|note|"
         r"notice|prompt|override|update|vastaus|valasz|odpowiedz|antwort|reponse|respuesta|risposta|"
         r"resposta|ответ|απαντηση")
ROLE = rf"(?:{_SYSTEM}|{_ASSISTANT}|{_DEVELOPER}|{_TOOL})(?:[ -]?(?:{_NOTE}))?"
# a log line after a question is not a forged turn: "…? System: error 0x80070005"
_NOT_LOG = (r"(?!\s*(?:error|warn\w*|fail\w*|fatal|exception|critical|info|debug|notice|ok\b|\d|0x|out of|"
            r"windows|linux|ubuntu|macos|android|ios|kernel|started|stopped|online|offline|"
            r"[a-z]:\\|/))")

FORGED_TURNS = (
    # a question, then a role line with a body of three words or more, in any of the languages
    rf"[?？;]\s*(?:-{{3,}}\s*)?(?:\[|<|\*\*)?(?:{ROLE})(?:\]|>|\*\*)?"
    rf"(?: ?\([\w ]{{1,20}}\))?\s*[:：]{_NOT_LOG}"
    r"(?:\s*[^\s:]+){3}",
    # a role JSON object of any role after a question, content in any language
    r"[?？;!.。]\s*\[?\s*\{\s*['\"]role['\"]\s*:\s*['\"](?:system|developer|assistant|tool|function|model)"
    r"['\"]\s*,\s*['\"]content['\"]\s*:\s*['\"][^'\"]{8,}",
    # a function called with a file-transfer or web address to send data out
    r"\b(?:call|invoke|run|execute|trigger)\b[^\n]{0,30}?\b\w*(?:export|send|upload|dump|transfer|email|"
    r"post|sync|backup|copy|share|push)\w*\s*\([^)]{0,200}\b(?:s?ftp|https?|s3|scp|smb|webdav)://",
)

# "system prompt", "hidden / initial / secret instructions", in the same languages (folded)
_PROMPT = (r"system ?prompt\w{0,4}|systemprompt\w{0,4}|system(?:ov[yaeu]\w{0,2}|owy|owe|ni|ski|sk\w?|"
           r"isk\w?|e|en|n)? (?:prompt\w{0,4}|kehote\w{0,6}|instrukc\w+|pokyn\w*|uput\w*|anweisung\w*)|"
           r"systemowy prompt|systemov\w+ prompt|systemski prompt|sistemsk\w+ (?:prompt|uput\w*)|"
           r"jarjestelmakehote\w*|jarjestelman kehote\w*|rendszerprompt\w*|rendszer ?utasitas\w*|"
           r"prompt\w* (?:du |de |del |di |do |da )?(?:systeme|sistema|sistemului|systemu)|"
           r"promptul de sistem|instructiunil\w* de sistem|systeemprompt\w*|systeeminstructie\w*|"
           r"системн\w+ (?:промпт\w*|подсказк\w*|инструкц\w*|указан\w*)|системн\w+ промпт\w*|"
           r"το system prompt|(?:τισ |τισ )?οδηγιεσ (?:συστηματοσ|σου)|μηνυμα συστηματοσ|"
           r"sistem (?:istemi|komut\w*|talimat\w*)|sistem promptu\w*|prompt sistem|"
           r"loi nhac he thong|chi dan he thong|system-prompt\w*|systemnachricht|systemmeddelande|"
           r"systemmelding\w*|systembesked|"
           r"システムプロンプト|시스템 ?프롬프트|系统提示词|系統提示詞|系统提示(?![音框信息栏])|"
           r"הנחיות המערכת|פרומפט המערכת|موجه النظام|تعليمات النظام|सिस्टम प्रॉम्प्ट|"
           r"พรอมต์ระบบ|prompt sistemu|prompt sustava")
_HIDDEN = (r"(?:instructions?|consignes?|instrucciones|istruzioni|instrucoes|anweisungen|instructies|"
           r"instrukcj\w+|instrukc\w+|pokyn\w*|ohjee?\w*|utasitas\w*|οδηγιεσ|инструкц\w+|указани\w+|"
           r"uput\w*|talimat\w*|instructiuni\w*|instruktion\w*|instruksi|huong dan|chi dan|regles|reglas|"
           r"regeln|regole|regras|zasady|pravidla|szabaly\w*|saann\w*|правила)"
           r"(?: \w+){0,2} (?:cachee?s?|secretes?|initiales?|ocult\w+|secret\w+|nascost\w+|iniziali|"
           r"versteckt\w*|geheim\w*|ursprunglich\w*|verborgen\w*|ukryt\w+|poczatkow\w+|tajn\w+|skryt\w+|"
           r"puvodn\w+|piilo\w+|salai\w*|alkuperais\w+|rejtett\w*|titkos\w*|eredeti\w*|κρυφ\w+|μυστικ\w+|"
           r"αρχικ\w+|скрыт\w+|секретн\w+|исходн\w+|первоначальн\w+|skriven\w*|tajn\w+|gizli\w*|"
           r"ascuns\w*|secret\w*|initial\w*|dolda|hemliga|ursprungliga|skjulte|an|bi mat)"
           r"|(?:cachee?s?|secretes?|ocult\w+|versteckt\w*|geheim\w*|ukryt\w+|tajn\w+|skryt\w+|piilo\w+|"
           r"rejtett\w*|titkos\w*|κρυφ\w+|μυστικ\w+|скрыт\w+|секретн\w+|skriven\w*|gizli\w*|ascuns\w*|"
           r"dolda|hemliga|skjulte|verborgen\w*|alkuperais\w+|eredeti\w*|αρχικ\w+|исходн\w+|"
           r"puvodn\w+|poczatkow\w+|ursprunglich\w*)(?: \w+)? (?:instructions?|consignes?|instrucciones|"
           r"istruzioni|instrucoes|anweisungen|instructies|instrukcj\w+|instrukc\w+|pokyn\w*|ohjee?\w*|"
           r"utasitas\w*|οδηγιεσ|инструкц\w+|указани\w+|uput\w*|talimat\w*|instructiuni\w*|"
           r"instruktion\w*|regeln|zasady|pravidla|szabaly\w*|правила)")
# print it word for word
_VERBATIM = (r"verbatim|word for word|mot pour mot|mot a mot|palabra por palabra|al pie de la letra|"
             r"parola per parola|palavra por palavra|wort fur wort|woortelijk|letterlijk|slowo w slowo|"
             r"doslownie|doslova|slovo od slova|sanasta sanaan|sanatarkasti|szo szerint|szorol szora|"
             r"αυτολεξει|λεξη προσ λεξη|дословно|слово в слово|doslovno|rijec po rijec|cuvant cu cuvant|"
             r"kelimesi kelimesine|ordagrant|ord for ord|kata demi kata|tung chu|逐字|一字不差|原文|"
             r"一字一句|そのまま|그대로|מילה במילה|حرفيا|शब्दशः")

# verbs that ask for it, and "your" (fi/hu possessive suffixes are in _OWN_PROMPT)
_SHOW = (r"show|print|reveal|display|output|repeat|tell me|give me|write out|list|montre\w*|"
         r"affiche\w*|donne\w*|"
         r"ecri\w*|revele\w*|muestra\w*|dime|escrib\w*|revela\w*|mostra\w*|scrivi|dimmi|zeig\w*|gib|"
         r"schreib\w*|verrat\w*|nenn\w*|toon|geef|schrijf|pokaz\w*|wypisz|napisz|podaj|zdradz\w*|ukaz\w*|"
         r"vypis\w*|napis\w*|rekni|prozrad\w*|nayta|kirjoita|kerro|tulosta|paljasta|mutasd|ird ki|irja ki|"
         r"mondd|αποκαλυψε|δειξε|γραψ\w*|πεσ|покажи|выведи|напиши|скажи|раскрой|pokazi|ispisi|napisi|reci|"
         r"arata|scrie|spune|goster\w*|yaz\w*|soyle|visa|skriv|beratta|vis|fortael|fortell|tunjukkan|"
         r"tuliskan|hien thi|cho xem|viet ra|显示|输出|告诉|打印|見せて|表示|出力|教えて|"
         r"보여|출력|알려|הראה|כתוב|"
         r"أظهر|اعرض|اكتب|दिखाओ|बताओ")
_YOUR = (r"your|sw[oa]j\w*|svoj\w*|сво[йиея]\w*|tvuj|tvoj\w*|twoj\w*|dein\w*|ton|ta|tes|"
         r"votre|vos|tu|tus|tuo|tua|tuoi|teu|je|jouw|uw|"
         r"твой|твоя|твои|ваш\w*|σου|senin|sizin|din|dit|dina|dine|cua ban|你的|あなたの|당신의|שלך|الخاص بك")
_OWN_PROMPT = r"jarjestelmakehotteesi|jarjestelmakehotteenne|rendszerpromptod|rendszerpromptja|kehotteesi"
_NOT_API = r"(?!\s*(?:parameter|field|argument|setting|variable|option|role|key|attribute)s?\b)"
_ASKED = rf"(?:{_PROMPT}|{_HIDDEN})"

EXTRACTION = (
    # "show me how to set the system prompt parameter" asks about an API, not for the prompt
    rf"(?<![\w-])(?:{_SHOW})\b(?! (?:me |us )?how\b)[^\n?]{{0,50}}?{_ASKED}{_NOT_API}",
    rf"(?<![\w-])(?:{_YOUR})\s+(?:\w+\s+)?{_ASKED}|{_ASKED}\s+(?:\w+\s+)?(?:{_YOUR})\b|{_OWN_PROMPT}",
    rf"(?:{_HIDDEN})\b[^\n]{{0,40}}(?:t'a|te|ti|dir|you|sinulle|neked|σου|тебе|вам|sana|dig|je)\b",
    rf"{_ASKED}[^\n]{{0,80}}\b(?:{_VERBATIM})",
)
ROLES: dict[str, tuple[str, ...]] = {
    "fake_delimiter": FORGED_TURNS,
    "reveal_prompt": EXTRACTION,
}
