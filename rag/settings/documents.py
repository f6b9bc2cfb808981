"""Documents section of a config: the size limit for one file and EchoMind's
thresholds."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MB = 1024 * 1024


class DocumentsConfig(BaseModel):
    """Defaults are EchoMind's numbers; `max_bytes` is checked before a file is read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_bytes: int = Field(default=50 * MB, gt=0, description="larger files are skipped unread")
    # Zip containers (docx, pptx): checked from the zip directory before any entry is inflated.
    max_expanded_bytes: int = Field(default=100 * MB, gt=0, description="limit on an archive's expanded size")
    max_compression_ratio: float = Field(default=100.0, gt=1, description="expanded / compressed size")
    # EchoMind sanitizes before chunking: indexed text then never holds the PII itself.
    redact_pii: bool = Field(default=False, description="replace PII with [REDACTED_KIND] at ingest")
    # Document-type detection, in EchoMind's order SENSITIVE → FAQ → BOOK → USER.
    sensitive_pii_density: float = Field(default=0.015, ge=0, le=1)
    faq_min_questions: int = Field(default=2, ge=1)
    faq_many_questions: int = Field(default=3, ge=1)
    faq_min_question_ratio: float = Field(default=0.10, ge=0, le=1)
    faq_heading_question_ratio: float = Field(default=0.4, ge=0, le=1,
                                              description="share of marked headings that are questions")
    faq_marker_window: int = Field(default=2000, ge=0, description="chars searched for 'FAQ'")
    book_min_chars: int = Field(default=8000, ge=0)
    book_min_paragraph_breaks: int = Field(default=5, ge=0)
    book_min_headings: int = Field(default=2, ge=0)
    book_many_paragraph_breaks: int = Field(default=20, ge=0)
    book_many_breaks_min_chars: int = Field(default=20_000, ge=0)
    book_long_line_chars: float = Field(default=80, ge=0)
    book_long_lines_min_chars: int = Field(default=15_000, ge=0)
    # Redaction level: MEDIUM when density is above this but nothing was redacted.
    medium_pii_density: float = Field(default=0.005, ge=0, le=1)
