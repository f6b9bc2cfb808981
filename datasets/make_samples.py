"""Write the binary sample documents (PDF, DOCX, PPTX) in datasets/samples/ from text kept here.

Run `python datasets/make_samples.py`; the outputs are committed, so this only needs rerunning
after editing the text below. Dates are fixed so the files (and their doc_ids) stay stable.
"""

from __future__ import annotations

import argparse
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import docx
import pptx
from fpdf import FPDF
from pptx.util import Inches, Pt

SAMPLES = Path(__file__).resolve().parent / "samples"
FIXED_DATE = datetime(2024, 5, 6, 9, 0, tzinfo=UTC)

ADMIN_GUIDE_TITLE = "Lumen Notes for Teams: Administrator Guide"
# (chapter heading, paragraphs); each chapter starts a new PDF page.
ADMIN_GUIDE: list[tuple[str, list[str]]] = [
    ("Chapter 1. Setting up a team space", [
        ("A team space is a shared area in Lumen Notes where every member of an organisation can read "
        "and write the notebooks the team owns. It is created by the first administrator when the "
        "organisation subscribes to the Team plan, and it exists next to each member's personal space, "
        "which stays private to that member."),
        ("To create the space, sign in on the web app, open Settings, then Organisation, and choose "
        "Create team space. Pick a name that people will recognise in the sidebar, upload a logo if you "
        "like, and choose the default language for new notebooks. The space is ready immediately; "
        "there is nothing to install on the server side."),
        ("Before inviting anyone, decide how notebooks will be organised. Teams that do well with Lumen "
        "usually start with a small number of notebooks per department, a Handbook notebook for policies "
        "everyone must be able to find, and a Templates notebook shared across the space so that "
        "meeting notes and project briefs look the same no matter who writes them."),
        ("Verify your company domain under Organisation, then Domains, by adding the DNS record Lumen "
        "shows you. A verified domain lets anyone with an address at that domain request to join, and it "
        "is required before you can turn on single sign-on."),
    ]),
    ("Chapter 2. Members, roles and guests", [
        ("Every person in a team space has one of four roles. Owners can change billing and delete the "
        "space; there must always be at least one owner. Administrators manage members, domains, "
        "security settings and the audit log. Members create and edit notebooks they have access to. "
        "Guests can only see the notebooks that were shared with them and never appear in the member "
        "directory."),
        ("Invite people from Organisation, then Members, either one address at a time or by uploading a "
        "CSV file with one address per line. Invitations expire after 14 days. Guests do not count "
        "towards the number of paid seats, but a space may have at most five guests per paid member."),
        ("Notebook permissions come in three levels: can view, can comment and can edit. Permissions are "
        "granted to people or to groups, and groups can be synchronised from your identity provider so "
        "that someone who joins the finance group there automatically gets the finance notebooks here."),
        ("When a member changes teams, move their notebooks rather than their account. Notebook ownership "
        "can be transferred from the notebook menu, and the full version history moves with it."),
    ]),
    ("Chapter 3. Security and compliance", [
        ("Team spaces support single sign-on with any SAML 2.0 or OpenID Connect identity provider. Once "
        "single sign-on is enforced, members can no longer sign in with a password, and removing someone "
        "in the identity provider signs them out of every Lumen device within 15 minutes. User "
        "provisioning through SCIM creates and deactivates accounts automatically."),
        ("The audit log records sign-ins, sharing changes, exports, permission changes and administrator "
        "actions. Entries are kept for one year and can be exported as CSV or streamed to a security "
        "information system through the audit webhook. The log never contains note contents."),
        ("Administrators can restrict what leaves the space: exports can be limited to administrators, "
        "publishing notes to the web can be switched off, and downloads of attachments on unmanaged "
        "devices can be blocked. These settings live under Organisation, then Data controls."),
        ("Vaults work in team spaces too. A team vault is end-to-end encrypted with a key shared among its "
        "members; when someone is removed from the vault, Lumen rotates the key so that the removed "
        "member's devices can no longer decrypt new content. Administrators cannot open a vault they are "
        "not a member of."),
    ]),
    ("Chapter 4. Billing and plans", [
        ("The Team plan is billed per member per month, at 9 US dollars when paid monthly and 90 US "
        "dollars per member per year when paid yearly. Each paid member adds 100 GB to the storage pool "
        "that the whole space shares. Seats are counted on the first day of each billing period; members "
        "added in the middle of a period are charged pro rata on the next invoice."),
        ("Spaces with more than ten members can pay by bank transfer against an invoice instead of by "
        "card. Switch under Organisation, then Billing, then Payment method. Invoices are due within 30 "
        "days and show the company name and tax number that the owner enters there."),
        ("Refunds follow the standard policy: a subscription cancelled within 14 days of a payment is "
        "refunded in full; after that the space stays active until the end of the paid period and is "
        "not renewed."),
    ]),
    ("Chapter 5. Offboarding and data retention", [
        ("When someone leaves the organisation, deactivate their account instead of deleting it. A "
        "deactivated account frees its seat at the next billing period, but the notes it created stay "
        "in the team space and keep their authorship and history. Personal-space notes of a deactivated "
        "member are kept for 90 days so that they can be transferred if needed, then deleted."),
        ("Deleted notes remain in the team Trash for 30 days. Administrators can also set a retention "
        "policy per notebook, for example keeping everything in a Legal notebook for seven years, in "
        "which case notes in it cannot be permanently deleted before the period ends."),
        ("If the organisation cancels the Team plan, the space becomes read-only for 60 days. During that "
        "time any administrator can export the whole space as Markdown, HTML or PDF. After 60 days the "
        "space and all of its notebooks are deleted from Lumen's servers, including backups."),
    ]),
]

RELEASE_TITLE = "Lumen Notes 4.0 Release Notes"
RELEASE_SECTIONS: list[tuple[str, list[str]]] = [
    ("Highlights", [
        ("Lumen Notes 4.0 replaces the sync engine with LumenSync, which merges offline edits paragraph "
        "by paragraph instead of character by character. Conflict copies are now created only when two "
        "devices change the same paragraph."),
        ("Search has a new ranking that looks at titles, headings and text, and gives recently edited "
        "notes a small boost. Search operators tag:, in:, before:, after: and has: can be combined."),
    ]),
    ("New features", [
        "Templates with placeholders such as {{date}} and {{title}}.",
        "Hierarchical tags written with a slash, for example #project/atlas.",
        "Nightly local backups on desktop, keeping the last 14 archives.",
        "Text recognition for scanned PDF attachments on Plus and Team plans.",
    ]),
    ("Changes and fixes", [
        "The maximum attachment size grows from 100 MB to 250 MB.",
        "Version history on the Free plan now covers 7 days instead of 3.",
        "Fixed: tags containing a dot could not be renamed from the tag browser.",
        "Fixed: the web clipper lost images on pages that load them lazily.",
    ]),
]
PLAN_TABLE = [
    ("Feature", "Free", "Plus", "Team"),
    ("Price", "$0", "$4 per month", "$9 per user per month"),
    ("Notebooks", "3", "Unlimited", "Unlimited"),
    ("Storage", "500 MB", "20 GB", "100 GB per member"),
    ("Version history", "7 days", "90 days", "90 days"),
    ("Devices", "2", "Unlimited", "Unlimited"),
]

DECK_TITLE = "Getting started with Lumen Notes"
DECK: list[tuple[str, list[str], str]] = [
    ("Getting started with Lumen Notes", ["A ten-minute tour for new team members"],
     "Welcome people and say that the handbook has the details."),
    ("Write", ["Ctrl+N creates a note", "Type / for the block menu", "Drop in attachments up to 250 MB"],
     "Show the block menu live; people remember it better than the shortcut list."),
    ("Connect", ["Type [[ to link notes", "Backlinks show who links here", "Tags like #project/atlas nest"],
     "Links beat folders: point at the backlinks panel."),
    ("Find", ["Ctrl+K searches everything", "Operators: tag:, in:, before:, has:",
              "Star a search to keep it"],
     "Demo: tag:meeting after:2024-01-01."),
]


def _pdf(path: Path) -> None:
    pdf = FPDF(format="A4")
    pdf.set_title(ADMIN_GUIDE_TITLE)
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_margins(20, 20, 20)
    for number, (heading, paragraphs) in enumerate(ADMIN_GUIDE):
        pdf.add_page()
        if number == 0:
            pdf.set_font("helvetica", "B", 18)
            pdf.multi_cell(0, 10, ADMIN_GUIDE_TITLE)
            pdf.ln(4)
        pdf.set_font("helvetica", "B", 14)
        pdf.multi_cell(0, 8, heading)
        pdf.ln(2)
        pdf.set_font("helvetica", size=11)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 6, paragraph)
            pdf.ln(3)
    pdf.output(str(path))


def _docx(path: Path) -> None:
    document = docx.Document()
    properties = document.core_properties
    properties.title, properties.author = RELEASE_TITLE, "Lumen Notes team"
    properties.created = properties.modified = FIXED_DATE.replace(tzinfo=None)
    document.add_heading(RELEASE_TITLE, level=0)
    document.add_paragraph("Released in May 2024 for Windows, macOS, Linux, iOS, Android and the web.")
    for heading, items in RELEASE_SECTIONS:
        document.add_heading(heading, level=1)
        style = None if heading == "Highlights" else "List Bullet"
        for item in items:
            document.add_paragraph(item, style=style)
    document.add_heading("Plans at a glance", level=1)
    table = document.add_table(rows=len(PLAN_TABLE), cols=len(PLAN_TABLE[0]))
    for row, values in zip(table.rows, PLAN_TABLE, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.save(str(path))


def _pptx(path: Path) -> None:
    deck = pptx.Presentation()
    deck.core_properties.title = DECK_TITLE
    deck.core_properties.created = deck.core_properties.modified = FIXED_DATE.replace(tzinfo=None)
    for index, (title, bullets, notes) in enumerate(DECK):
        slide = deck.slides.add_slide(deck.slide_layouts[0 if index == 0 else 1])
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
        for paragraph in body.paragraphs:
            for run in paragraph.runs:
                run.font.size = Pt(24)
        slide.notes_slide.notes_text_frame.text = notes
    deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
    deck.save(str(path))


def freeze_zip(path: Path) -> None:
    """Office files are zips stamped with the current time; fix the stamps so reruns give equal bytes."""
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in entries:
            info.date_time = FIXED_DATE.timetuple()[:6]
            target.writestr(info, data)


OUTPUTS = {
    "lumen-teams-admin-guide.pdf": _pdf,
    "lumen-notes-4.0-release-notes.docx": _docx,
    "getting-started-deck.pptx": _pptx,
}


def write_samples(out: Path = SAMPLES) -> list[Path]:
    """Write every binary sample into `out`; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, write in OUTPUTS.items():
        write(out / name)
        if name.endswith((".docx", ".pptx")):
            freeze_zip(out / name)
        written.append(out / name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SAMPLES, help="folder to write into")
    for path in write_samples(parser.parse_args().out):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
