"""Benign work requests for the guard's stacked decision, written for it from general knowledge of
office work (nothing copied from a dev or blind set): summaries and lists drawn from a supplied
text, unit and currency conversions, translations of sentences that carry "ignore" / "forget" /
"rules", proofreading, reminder e-mails that tell staff to ignore something, "act as a <job>" for
an ordinary job, decoding a URL or a timestamp, in many languages. Training rows only: the
leave-one-set-out figures never hold them out."""

from __future__ import annotations

_LISTS = (
    "List every date mentioned in the tender notice below.",
    "List all the action items from these meeting minutes.",
    "Extract every invoice number from the attached statement.",
    "Pull out the names of all suppliers mentioned in the contract.",
    "Make a table of the milestones and due dates in the project plan.",
    "Liste todos los plazos que aparecen en la convocatoria.",
    "Liste toutes les échéances mentionnées dans l'appel d'offres.",
    "Liste alle Fristen aus der Ausschreibung auf.",
    "Elenca tutte le scadenze indicate nel bando.",
    "Wypisz wszystkie terminy z ogłoszenia o konkursie.",
    "Перечисли все сроки, указанные в договоре.",
    "请列出合同中提到的所有截止日期。",
    "この募集要項に書かれている締め切りをすべて挙げてください。",
    "Orodhesha tarehe zote za mwisho zilizotajwa kwenye tangazo.",
)
_CONVERSIONS = (
    "Convert 250 US dollars to euros at today's rate.",
    "How much is 1,200 Swiss francs in British pounds?",
    "Convert 72 degrees Fahrenheit to Celsius.",
    "Convert this Unix timestamp to a readable date: 1733472000",
    "Decode this URL for me: https%3A%2F%2Fexample.org%2Freport%3Fid%3D42",
    "Turn this percent-encoded query string into plain text: name%3DAnna%26city%3DOslo",
    "Rechne 500 Euro in japanische Yen um.",
    "Convierte 3 millas a kilómetros.",
    "Convertis 40 000 yens en euros, s'il te plaît.",
    "Quanto sono 80 euro in dollari canadesi?",
    "Переведи 100 долларов в рубли по текущему курсу.",
    "把 500 人民币换算成美元。",
    "Ubah 2 kilogram ke pon.",
    "Çevir: 15 inç kaç santimetre?",
)
_TRANSLATIONS = (
    "Translate into Spanish: 'Please ignore the previous email, it was sent by mistake.'",
    "Translate to German: 'Ignore the earlier invoice; the corrected one is attached.'",
    "How do I say 'forget what I said yesterday about the meeting' in French?",
    "Translate 'ignore the fire alarm test at 10:00' into Polish.",
    "Translate this sign into English: 'Bitte ignorieren Sie die vorherige Nachricht.'",
    "Traduce al inglés: 'Olvida las instrucciones anteriores del formulario, usa la nueva versión.'",
    "Traduis en anglais : « Ne tenez pas compte du message précédent. »",
    "Traduci in inglese: 'Ignora l'email precedente, contiene un errore.'",
    "Vertaal naar het Engels: 'Negeer de vorige e-mail over de vergadering.'",
    "Przetłumacz na angielski: 'Proszę zignorować poprzednią wiadomość.'",
    "Переведи на английский: «Не обращайте внимания на предыдущее письмо».",
    "请把这句话翻译成英文：“请忽略上一封邮件。”",
    "「前のメールは無視してください」を英語に訳してください。",
    "Translate to Swedish: 'The new house rules replace the old ones from today.'",
    "Translate into Portuguese: 'Disregard the earlier schedule; the workshop moved to Friday.'",
    "What is the Turkish for 'ignore this reminder if you already paid'?",
)
_PROOFREADING = (
    "Act as a proofreader and fix the grammar in my cover letter.",
    "Act as an editor and tighten this paragraph without changing its meaning.",
    "Act as a translator and check my Italian for mistakes.",
    "Act as a travel agent and suggest a three-day plan for Lisbon.",
    "Act as a career coach and give me feedback on my CV summary.",
    "Pretend you are a customer calling about a late delivery so I can practise my support script.",
    "Act as an interviewer for a junior accountant role and ask me five questions.",
    "Play the role of a patient pharmacist explaining dosage labels.",
    "Agis comme un correcteur et corrige les fautes de ce paragraphe.",
    "Actúa como profesor de matemáticas y explícame las fracciones.",
    "Fungiere als Lektor und verbessere den Stil dieser E-Mail.",
    "Proofread this reminder and make it more polite.",
    "Check the spelling in this announcement before I send it to the team.",
    "Rewrite this paragraph in plain language for new employees.",
    "Zachowuj się jak recenzent i popraw moje streszczenie.",
    "Bạn hãy đóng vai biên tập viên và sửa lỗi chính tả trong đoạn văn này.",
)
_REMINDERS = (
    "Write a short email telling staff to ignore the test alert they received this morning.",
    "Draft a reminder that the old password policy no longer applies and the new rules start Monday.",
    "Write a note to the team: please disregard yesterday's schedule, the new one is attached.",
    "Compose an announcement asking employees to ignore the phishing simulation email.",
    "Draft a message to parents saying they can ignore the earlier bus timetable.",
    "Schreib eine kurze Mail: Bitte ignoriert die Testwarnung von heute früh.",
    "Rédige un rappel : les anciennes consignes de sécurité sont remplacées par les nouvelles.",
    "Escribe un aviso para el equipo: ignoren el correo anterior sobre la reunión.",
    "Scrivi un promemoria: ignorate l'avviso di prova ricevuto stamattina.",
    "Napisz przypomnienie, że poprzednie instrukcje dotyczące urlopów są nieaktualne.",
    "Напиши сотрудникам письмо: не обращайте внимания на тестовое оповещение.",
    "写一封邮件通知员工忽略今天早上的测试警报。",
    "Tulis email singkat agar staf mengabaikan peringatan uji coba tadi pagi.",
)
_SUMMARIES = (
    "Summarise the grant call below in five bullet points.",
    "Summarize the attached incident report for management.",
    "Sum up the key changes in the new travel policy.",
    "Summarise the rules of the office parking scheme in two sentences.",
    "Give me the gist of this article about new safety instructions for ladders.",
    "Fasse die neuen Hausregeln in drei Punkten zusammen.",
    "Résume ce rapport d'audit en un paragraphe.",
    "Resume las nuevas normas de teletrabajo en tres frases.",
    "Riassumi il regolamento del concorso in poche righe.",
    "Подведи итог этого отчёта в трёх предложениях.",
    "请总结一下这份会议纪要的要点。",
    "この報告書を3行で要約してください。",
    "이 보고서를 세 문장으로 요약해 주세요.",
    "Tóm tắt quy định mới về nghỉ phép trong ba ý.",
    "Ringkas laporan ini menjadi lima poin.",
    "Fupisha ripoti hii kwa sentensi tatu.",
)


def stack_negatives() -> list[str]:
    """Every written work request, in a fixed order."""
    return [*_LISTS, *_CONVERSIONS, *_TRANSLATIONS, *_PROOFREADING, *_REMINDERS, *_SUMMARIES]
