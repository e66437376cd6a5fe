import pytest

from papertrail.text.names import MAX_LEN, safe_filename


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd.pdf"),
        ("C:\\Users\\x\\y.pdf", "y.pdf"),
        ("<!channel> hi.pdf", "channel_ hi.pdf"),
        ("x\x00y\x1b.pdf", "xy.pdf"),
        ("", "document.pdf"),
        ("résumé 2024.PDF", "résumé 2024.PDF"),
        ("`rm -rf`.pdf", "rm -rf.pdf"),
    ],
)
def test_safe_filename(raw, expected):
    assert safe_filename(raw) == expected


def test_long_names_are_capped_and_keep_extension():
    name = safe_filename("a" * 500 + ".pdf")
    assert len(name) <= MAX_LEN and name.endswith(".pdf")


def test_other_suffix():
    assert safe_filename("1-p3-x.png", suffix=".png") == "1-p3-x.png"
    assert safe_filename("notes.txt", suffix="") == "notes.txt"
