"""Documents page: samples by default, uploads with a broken file, PII highlighted and redacted."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rag.paths import SAMPLES_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "documents.py")
PII_TEXT = (
    b"Escalation notes\n\nCustomer Jane wrote from jane.doe@example.com and asked us to call "
    b"+44 20 7946 0958 about the refund. Nothing else is sensitive here, just a long enough text "
    b"to keep the density of personal data moderate for the detector.\n"
)


def _report(at: AppTest):  # the ingest report is the first table on the page
    return at.dataframe[0].value


def test_samples_are_ingested_by_default() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    report = _report(at)
    samples = sorted(p.name for p in SAMPLES_DIR.iterdir() if p.is_file())
    assert sorted(report["file"]) == samples
    assert set(report["status"]) == {"ok"}
    assert at.selectbox(key="docs_doc").options  # one entry per document
    assert len(at.session_state["app_documents"]) == len(samples)


def test_upload_reports_the_broken_file_and_keeps_the_good_one() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.segmented_control(key="docs_source").set_value("Upload files").run()
    at.file_uploader(key="docs_uploads").set_value([
        ("notes.txt", PII_TEXT, "text/plain"),
        ("broken.pdf", b"%PDF-1.7 these bytes are not a pdf", "application/pdf"),
        ("empty.md", b"", "text/markdown"),
    ]).run()
    assert not at.exception
    report = _report(at).set_index("file")
    assert report.loc["notes.txt", "status"] == "ok"
    for bad in ("broken.pdf", "empty.md"):
        assert report.loc[bad, "status"] == "skipped"
        assert report.loc[bad, "problem"] and report.loc[bad, "what to do"]
    assert at.selectbox(key="docs_doc").options == ["notes.txt"]
    assert any(c.value.startswith("1 parsed · 2 skipped") for c in at.caption)


def test_pii_is_highlighted_and_redaction_follows_the_chosen_kinds() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.segmented_control(key="docs_source").set_value("Upload files").run()
    at.file_uploader(key="docs_uploads").set_value(("notes.txt", PII_TEXT, "text/plain")).run()
    pii = at.dataframe[1].value
    assert set(pii["kind"]) == {"email", "phone"}
    text_view = at.html[0].value
    assert text_view.count("<mark") == 2 and 'title="email"' in text_view
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sensitivity level"] == "HIGH" and metrics["Redacted"] == "2"
    assert "[REDACTED_EMAIL]" in at.html[-1].value

    at.multiselect(key="docs_redact_kinds").set_value(["phone"]).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Redacted"] == "1"
    assert "jane.doe@example.com" in at.html[-1].value

    at.multiselect(key="docs_redact_kinds").set_value([]).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Redacted"] == "0" and metrics["Sensitivity level"] != "HIGH"
