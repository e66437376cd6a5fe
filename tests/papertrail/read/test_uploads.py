"""One answer to "is this a PDF" and one size limit, worded once."""

import pytest

from papertrail.errors import PaperTrailError
from papertrail.read.uploads import check_size, has_pdf_signature, looks_like_pdf, too_large


@pytest.mark.parametrize(
    ("name", "mimetype", "expected"),
    [
        ("Report.PDF", "", True),
        ("scan", "application/pdf", True),
        ("scan", "Application/PDF; charset=binary", True),  # parameters, any case
        ("notes.docx", "application/msword", False),
        ("pdf", "", False),
    ],
)
def test_looks_like_pdf_by_name_or_media_type(name, mimetype, expected):
    assert looks_like_pdf(name, mimetype) is expected


def test_signature_may_follow_junk_within_the_first_kib():
    assert has_pdf_signature(b"\x00" * 1000 + b"%PDF-1.7")
    assert not has_pdf_signature(b"\x00" * 1024 + b"%PDF-1.7")
    assert not has_pdf_signature(b"GIF89a")


def test_check_size_refuses_only_what_is_over_the_limit():
    check_size("a.pdf", 1000, 1000)
    check_size("a.pdf", None, 1000)  # size unknown: the download checks again
    check_size("a.pdf", 10**9, 0)  # 0 = no limit
    with pytest.raises(PaperTrailError) as err:
        check_size("a.pdf", 2_500_000, 1_000_000)
    assert err.value.code == "too_large"
    assert err.value.message.startswith("a.pdf is 2.5 MB; the limit is 1 MB")
    assert "PAPERTRAIL_MAX_PDF_MB" in err.value.message


def test_a_cut_off_download_does_not_claim_a_size():
    message = too_large("big.pdf", None, 500_000).message
    assert message.startswith("big.pdf is more than 0.5 MB; the limit is 0.5 MB")
