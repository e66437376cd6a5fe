"""Finding and downloading a mention's files, against the FakeSlack file host."""

import pymupdf
import pytest
from slack_sdk import WebClient

from adapters.slack.files import SlackDownloader, gather, is_pdf
from papertrail.errors import PaperTrailError
from tests.fake_slack import FakeSlack


def make_pdf(text: str = "hello") -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    return doc.tobytes()


@pytest.fixture
def fake():
    with FakeSlack() as fake:
        yield fake


def downloader(fake: FakeSlack, max_bytes: int = 1_000_000, token: str | None = None):
    return SlackDownloader(token or fake.token, max_bytes=max_bytes, timeout=5)


def file_gets(fake: FakeSlack):
    return [c for c in fake.calls if c.method.startswith("GET /files")]


def test_download_sends_the_token_and_returns_the_pdf(fake):
    data = make_pdf()
    assert downloader(fake).download(fake.add_file("a.pdf", data)) == data
    (get,) = file_gets(fake)
    assert get.headers["authorization"] == f"Bearer {fake.token}"


@pytest.mark.parametrize("how", ["sign-in page", "wrong token"])
def test_an_html_sign_in_page_names_the_missing_scope(fake, how):
    file = fake.add_file("a.pdf", make_pdf())
    fake.sign_in_page_for_files = how == "sign-in page"
    token = "xoxb-other" if how == "wrong token" else None
    with pytest.raises(PaperTrailError) as err:
        downloader(fake, token=token).download(file)
    assert err.value.code == "missing_scope"
    assert "files:read" in err.value.message and "reinstall" in err.value.message


def test_bytes_without_the_pdf_signature_are_refused(fake):
    with pytest.raises(PaperTrailError) as err:
        downloader(fake).download(fake.add_file("a.pdf", b"GIF89a......"))
    assert err.value.code == "not_pdf" and "a.pdf is not a PDF" in err.value.message


def test_size_limit_from_metadata_skips_the_download(fake):
    file = fake.add_file("big.pdf", make_pdf(), size=5_000_000)
    with pytest.raises(PaperTrailError) as err:
        downloader(fake, max_bytes=1_000_000).download(file)
    assert err.value.code == "too_large" and "5.0 MB" in err.value.message
    assert file_gets(fake) == []


def test_size_limit_holds_when_the_metadata_understates_it(fake):
    data = make_pdf("x" * 3000)
    file = fake.add_file("big.pdf", data, size=10)
    with pytest.raises(PaperTrailError) as err:
        downloader(fake, max_bytes=len(data) - 1).download(file)
    assert err.value.code == "too_large"


def test_same_host_redirect_keeps_the_token(fake):
    data = make_pdf()
    file = fake.add_file("a.pdf", data)
    fake.redirect_files_to = fake.base
    assert downloader(fake).download(file) == data
    first, moved = file_gets(fake)
    assert moved.method.startswith("GET /files-moved/")
    assert moved.headers["authorization"] == f"Bearer {fake.token}"


def test_cross_host_redirect_drops_the_token(fake):
    file = fake.add_file("a.pdf", make_pdf())
    fake.redirect_files_to = f"http://localhost:{fake.port}"  # another host name, same server
    with pytest.raises(PaperTrailError) as err:
        downloader(fake).download(file)
    assert err.value.code == "missing_scope"  # the other host served the sign-in page
    first, moved = file_gets(fake)
    assert first.headers["authorization"] == f"Bearer {fake.token}"
    assert moved.headers["host"].startswith("localhost") and "authorization" not in moved.headers


def test_http_errors_become_a_user_message(fake):
    file = fake.add_file("a.pdf", make_pdf())
    file["url_private_download"] = fake.base + "/files-pri/T1-F9999/download/gone.pdf"
    with pytest.raises(PaperTrailError) as err:
        downloader(fake).download(file)
    assert err.value.code == "download" and "HTTP 404" in err.value.message


def test_is_pdf_by_type_mimetype_or_name():
    assert is_pdf({"filetype": "pdf"}) and is_pdf({"mimetype": "application/pdf"})
    assert is_pdf({"name": "Report.PDF"}) and not is_pdf({"name": "a.docx", "filetype": "docx"})


def test_gather_orders_own_then_thread_then_history_and_filters_old_non_pdfs(fake):
    client = WebClient(token=fake.token, base_url=fake.api_url)
    old = fake.add_file("old.pdf", make_pdf())
    picture = fake.add_file("cat.png", b"\x89PNG", mimetype="image/png")
    gone = dict(fake.add_file("deleted.pdf", make_pdf()), mode="tombstone")
    fake.user_post("C1", "old stuff", files=[old, picture, gone])
    first = fake.add_file("first.pdf", make_pdf())
    parent = fake.user_post("C1", "thread start", files=[first])
    second = fake.add_file("second.pdf", make_pdf())
    fake.user_post("C1", "more", files=[second], thread_ts=parent["ts"])
    own = fake.add_file("notes.docx", b"PK", mimetype="application/msword")
    post = fake.user_post("C1", "<@UBOT> q", files=[own], thread_ts=parent["ts"])

    found = gather(client, downloader(fake), fake.app_mention(post))

    listed = [(a.name, a.source) for a in found.attachments]
    assert listed == [
        ("notes.docx", "message"),  # the question's own file, even if not a PDF
        ("second.pdf", "thread"),  # newest thread file first
        ("first.pdf", "thread"),
        ("old.pdf", "history"),  # the thread parent's file is not listed twice
    ]
    assert found.notes == ()
    assert found.attachments[1].size == second["size"] and found.attachments[1].key == second["id"]
    assert found.attachments[1].fetch().startswith(b"%PDF")


def test_gather_reports_a_missing_history_scope_and_keeps_own_files(fake):
    client = WebClient(token=fake.token, base_url=fake.api_url)
    fake.errors["conversations.history"] = {"error": "missing_scope", "needed": "channels:history"}
    file = fake.add_file("a.pdf", make_pdf())
    post = fake.user_post("C1", "<@UBOT> q", files=[file])

    found = gather(client, downloader(fake), fake.app_mention(post, with_files=True))

    assert [a.name for a in found.attachments] == ["a.pdf"]
    (note,) = found.notes
    assert "`channels:history`" in note and "reinstall" in note


def test_history_limit_bounds_the_search(fake):
    client = WebClient(token=fake.token, base_url=fake.api_url)
    fake.user_post("C1", "ancient", files=[fake.add_file("ancient.pdf", make_pdf())])
    for i in range(5):
        fake.user_post("C1", f"chatter {i}")
    post = fake.user_post("C1", "<@UBOT> q")

    assert (
        gather(client, downloader(fake), fake.app_mention(post), history_limit=5).attachments == ()
    )
    found = gather(client, downloader(fake), fake.app_mention(post), history_limit=6)
    assert [a.name for a in found.attachments] == ["ancient.pdf"]
