"""Orders to drop the instructions and requests for the assistant's setup in the fourteen
languages a blind writer uses most (English's forms live in rag.injection), kept strict: a verb
of dropping near the instructions needs a second-person possessive ("tus instrucciones",
"deine Regeln", "свои правила"), and a request for the system message needs a verb of showing
("zeig", "muestra", "покажи") or a possessive. A user's own past ("J'ai oublié toutes les
règles", "我忘记了之前的设定") and questions about a product ("Que signifie le message système
« disque plein » ?", "前の設定をリセットする方法は？") pass: tests/rag/query/test_guard_languages.py
holds both sides. Written in folded form (rag.injection.fold: lower case, accents stripped;
Japanese kana lose their voicing marks)."""

from __future__ import annotations

# verbs and phrases of dropping (imperatives and infinitives; the possessive carries the order)
_DROP = (r"ignor\w*|oubli\w*|ne (?:respecte|suis|tiens) (?:plus|pas)\w*|laisse tomber|"
         r"vergiss\w*|missacht\w*|halte dich nicht|befolge (?:nicht|keine)|"
         r"olvid\w*|haz caso omiso|no (?:sigas|respetes|hagas caso)|ya no sigas|desconsider\w*|"
         r"dimentic\w*|non (?:tenere conto|seguire|rispettare)|lascia perdere|"
         r"esquec\w*|nao (?:siga|sigas|respeite|obedeca)|"
         r"забудь|не обращаи внимания|не следуи|больше не следуи|отмени|игнорируи|"
         r"vergeet|negeer|"
         r"zapomnij|zignoruj|ignoruj|nie przestrzegaj|nie stosuj|pomin|"
         r"unut|unutun|dikkate alma|uyma|gormezden gel|yok say|"
         r"انس|تجاهل|لا تتبع|لا تلتزم|اهمل")
_ORDERS = (r"consignes?|instructions?|regles?|directives?|"
           r"anweisung\w*|regeln|vorgaben|richtlinien|befehle|"
           r"instrucciones|reglas|directrices|indicaciones|ordenes|"
           r"istruzion\w*|regole|indicazioni|direttive|"
           r"instrucoes|regras|orientacoes|diretrizes|"
           r"инструкц\w*|правил\w*|указани\w*|"
           r"instructies|regels|richtlijnen|"
           r"instrukcj\w*|zasad\w*|polecen\w*|"
           r"talimat\w*|kural\w*")
# the assistant's: second-person possessives
_YOUR = (r"tes|vos|dein\w*|ihre|tus|sus|tue|tuoi|le tue|suas|tuas|as suas|твои\w*|свои\w*|ваши|"
         r"je|jouw|uw|swoich|swoje|twoje|twoich|senin|sizin")

# imperatives only (an order, not "ho dimenticato", "j'ai oublié", "how to ignore")
_DROP_NOW = (r"ne tiens plus compte d\w*|laisse tomber|oublie|ignore|ignoriere|missachte|vergiss|olvida|"
             r"ignora|"
             r"no sigas|desconsidera|dimentica|non tenere conto d\w*|lascia perdere|esquece|esqueca|"
             r"desconsidere|"
             r"не обращаи внимания на|отмени|забудь|игнорируи|vergeet|negeer|zapomnij|zignoruj|ignoruj|pomin|"
             r"unut|yok say|انس|تجاهل")
_PREVIOUS = (r"precedent\w*|anterieur\w*|vorherig\w*|bisherig\w*|anterior\w*|previ[ao]s|di prima|предыдущ\w*|"
             r"прежни\w*|прошл\w*|vorige|eerdere|poprzedni\w*|wczesniejsz\w*|onceki|السابقة|del sistema|"
             r"do sistema|"
             r"du systeme|системн\w*")

DROP_ORDERS = (
    rf"(?<!ai )(?<!j'ai )(?<!ho )(?<!he )(?<!habe )\b(?:{_DROP_NOW})\b[\w\s',]{{0,20}}?"
    rf"\b(?:{_ORDERS})\b[\w\s',]{{0,12}}?\b(?:{_PREVIOUS})\b",
    rf"(?<!ai )(?<!j'ai )(?<!ho )(?<!he )(?<!habe )\b(?:{_DROP_NOW})\b[\w\s',]{{0,20}}?"
    rf"\b(?:{_PREVIOUS})\b (?:\w+ )?(?:{_ORDERS})\b",
    rf"\b(?:{_YOUR})\b (?:\w+ )?(?:{_ORDERS})\b[\w\s',]{{0,20}}?\b(?:gelten nicht mehr|ya no son validas|"
    r"ne sont plus valables|non (?:sono|valgono) piu|nao (?:sao mais validas|valem mais)|"
    r"больше не действуют|zijn niet meer geldig|juz nie obowiazuja|artik gecerli degil)\b",
    r"\b(?:negeer|vergeet|oublie|olvida|dimentica|esquece) (?:wat|ce que|lo que|quello che|o que) "
    r"(?:je|jij|u|on t'a|te|ti|te) [\w\s']{0,15}\b(?:eerder|vroeger|avant|antes|prima)\b",
    rf"\b(?:{_DROP})\b[\w\s',]{{0,25}}?\b(?:{_YOUR})\b (?:\w+ )?(?:{_ORDERS})\b",
    rf"\b(?:{_YOUR})\b (?:\w+ )?(?:{_ORDERS})\b[\w\s',]{{0,25}}?\b(?:{_DROP})\b",
    # "ignoriere alles Vorherige", "olvida todo lo anterior" (an order: not "j'ai oublié")
    r"(?<!ai )(?<!j'ai )(?<!habe )(?<!he )\b(?:ignorier\w*|ignora|ignore|vergiss|oublie|olvida|dimentica|"
    r"esquece|забудь|игнорируи|vergeet|negeer|zapomnij|zignoruj|unut)\b "
    r"(?:\w+ )?(?:alles|tout|todo|tutto|tudo|все|всё|wszystko|her seyi?)\b[\w\s',]{0,15}?"
    r"\b(?:vorherig\w*|precedent\w*|anterior|prima|предыдущ\w*|ранее|eerder\w*|wczesniej\w*|onceki|avant|"
    r"oben|arriba|sopra|acima|выше)\b",
    r"\bvolg\w* (?:je|jouw) (?:\w+ )?(?:regels|instructies|richtlijnen) niet\b",
    r"\b(?:kurallarına|talimatlarına|kurallarini|talimatlarini)[\w\s']{0,12}\b(?:uyma|dikkate alma|unut)\b",
    r"(?:لا تتبع|لا تلتزم|تجاهل|انس)\s*(?:\S+\s+){0,2}?(?:قواعدك|تعليماتك|أوامرك|اوامرك)",
    r"fais comme si tu n'avais (?:recu )?aucune? (?:instruction|consigne|regle)",
    # scripts without spaces: an order (not "我忘记了", "I forgot")
    r"(?<!我)(?:请|你)?(?:忘记|忘掉|无视|忽略|不要再?遵守|不再遵守|别管)(?!了).{0,6}"
    r"(?:你的)(?:设定|规则|指令|指示|提示|要求)",
    r"请(?:忘记|忘掉|无视|忽略)(?!了).{0,8}(?:设定|规则|指令|指示|提示|要求)",
    r"(?:ルール|規則|指示|命令|設定)に?(?:は|を)?(?:従わ|守ら)ないて",
    r"(?:규칙|지침|지시|명령)을? ?(?:따르지|지키지) ?마",
)

_SYSTEM_MESSAGE = (r"message (?:du )?systeme|prompt (?:initial|systeme|de depart)|instructions initiales|"
                   r"systemnachricht|systemprompt|system-prompt|"
                   r"mensaje del sistema|prompt (?:del sistema|inicial)|"
                   r"messaggio di sistema|prompt (?:di sistema|iniziale)|"
                   r"mensagem do sistema|prompt (?:do sistema|inicial)|"
                   r"системн\w* (?:сообщени\w*|промпт\w*|подсказк\w*)|"
                   r"systeembericht|systeemprompt|wiadomosc\w* systemow\w*|prompt systemow\w*|"
                   r"sistem mesaj\w*|sistem istem\w*|رسالة النظام")
# verbs of showing, imperative ("quel est" / "what is" ask about a message, not for it)
_SHOW = (r"montre\w*|affiche\w*|recopie\w*|repete\w*|donne-moi|zeig\w*|gib mir|wiederhole|"
         r"muestra\w*|copia|repite|dame|mostra\w*|ripeti|dammi|mostre|repita|me de|"
         r"покажи|выведи|повтори|toon|herhaal|geef|pokaz|powtorz|wypisz|goster|tekrarla|yaz|اعرض|كرر|اكتب")
REVEAL_SETUP = (
    rf"\b(?:{_SHOW})\b[\w\s',-]{{0,30}}?\b(?:{_SYSTEM_MESSAGE})\b",
    rf"\b(?:ton|ta|tes|dein\w*|tu|tus|tuo|tua|teu|seu|sua|твои|твоя|твое|твой|je|jouw|twoj\w*|senin) "
    rf"(?:{_SYSTEM_MESSAGE})\b",
    # instructions received/given at the start, or by the operator
    rf"\b(?:{_ORDERS})\b[\w\s',]{{0,30}}?\b(?:recu\w*|donne\w*|bekommen|erhalten|gegeben|dieron|recibi\w*|"
    r"hanno dato|ricevut\w*|recebeu|deram|дали|получил\w*|gekregen|dostal\w*|otrzymal\w*|verildi|aldin)\b"
    r"[\w\s',]{0,30}?\b(?:au debut|am anfang|vom (?:betreiber|entwickler)|al principio|al inicio|all'inizio|"
    r"no inicio|в начале|aan het begin|na poczatku|basta|par l'operateur)\b",
    rf"\b(?:{_ORDERS})\b[\w\s',]{{0,30}}?\b(?:vom (?:betreiber|entwickler)|par l'operateur|del operador|"
    r"dall'operatore|do operador|от (?:разработчик\w*|оператора)|van de (?:beheerder|ontwikkelaar)|"
    r"od operatora)\b",
    # what stands at the start of this chat or before the user's message
    r"\b(?:anfang|debut|principio|inizio|inicio|начале|begin|poczatku|basinda)\b (?:de |des |del |della |di |"
    r"da |do |van |)?(?:dieses|diesem|cette|ce|este|esta|questa|questo|этого|deze|dit|tego|bu)\s"
    r"(?:chats?|conversation|gesprach\w*|conversacion|conversazione|conversa|диалога|разговора|чата|gesprek|"
    r"rozmowy|czatu|sohbet\w*)\b",
    r"\b(?:texte?|testo|texto|текст|tekst|metin)\b[\w\s',]{0,30}?\b(?:avant (?:mon|ma|ce)|vor (?:meiner|"
    r"dieser)|"
    r"antes de (?:mi|este)|prima (?:della mia|del mio|di questo)|antes da minha|antes (?:de|do) meu|"
    r"перед (?:моим|этим)|voor mijn|przed moj\w*|mesajımdan once|(?:che|que|qui|das|der) (?:preced\w*|vor) "
    r"(?:la mia|il mio|mi|mon|ma|a minha|o meu|meiner|meinem))\b",
    r"(?:最初|初め|始め)に(?:与え|受け|渡さ)(?:ら)?れた(?:指示|命令|設定)",
    r"(?:シ|ジ)ステムメッセー(?:シ|ジ)を?(?:見せ|表示|教え|出力|繰り返)", r"この会話の最初",
    r"你的(?:初始|原始|最初)(?:指令|指示|设定|提示)", r"(?:这个?|本)(?:对话|聊天)(?:的)?开头",
    r"시스템 ?메시지를? ?(?:보여|출력|알려)", r"이 대화의? 처음",
)
