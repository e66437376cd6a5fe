"""The web channel's HTTP surface: uploads, questions, the library, isolation, bad requests.

Driven over real HTTP (urllib) against the real aiohttp app, a real
``ChatService`` and a real pipeline (hash embedder, in-memory Chroma).
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import urllib.error
import urllib.request
from urllib.parse import quote, urlparse

import pytest

from papertrail.cli.sample import sample_report
from tests.web_server import serving, web_service


class Browser:
    """One visitor: a cookie jar and the page's own header on every POST."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(self, workspace: str) -> None:
        with self.opener.open(f"{self.base}/w/{workspace}") as res:
            assert res.status == 200 and b"<title>PaperTrail</title>" in res.read()

    def request(self, path, body: bytes | None = None, headers=None, *, page_header=True):
        headers = dict(headers or {})
        if page_header:
            headers["X-PaperTrail"] = "1"
        req = urllib.request.Request(self.base + path, data=body, headers=headers)
        try:
            with self.opener.open(req) as res:
                return res.status, res.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def stream(self, path, body: bytes, headers) -> tuple[list[str], dict]:
        status, raw = self.request(path, body, headers)
        assert status == 200, raw
        lines = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        progress = [line["progress"] for line in lines if "progress" in line]
        replies = [line["reply"] for line in lines if "reply" in line]
        assert len(replies) == 1 and "reply" in lines[-1]
        return progress, replies[0]

    def upload(self, ws: str, name: str, data: bytes, kind="application/pdf"):
        headers = {"X-File-Name": quote(name), "Content-Type": kind}
        return self.stream(f"/w/{ws}/upload", data, headers)

    def ask(self, ws: str, text: str, conversation: str = "c1") -> dict:
        body = json.dumps({"text": text, "conversation": conversation}).encode()
        return self.stream(f"/w/{ws}/ask", body, {"Content-Type": "application/json"})[1]

    def library(self, ws: str) -> list[dict]:
        status, raw = self.request(f"/w/{ws}/library", page_header=False)
        assert status == 200
        return json.loads(raw)["documents"]

    def forget(self, ws: str, name: str) -> tuple[int, dict]:
        body = json.dumps({"name": name}).encode()
        status, raw = self.request(f"/w/{ws}/forget", body, {"Content-Type": "application/json"})
        return status, json.loads(raw)


@pytest.fixture
def base(tmp_path):
    with serving(web_service(tmp_path), max_pdf_bytes=2_000_000) as url:
        yield url


def test_upload_ask_follow_up_and_the_marked_page(base):
    alice = Browser(base)
    alice.open("team")
    progress, reply = alice.upload("team", "report.pdf", sample_report())
    assert any("Indexing report.pdf" in p for p in progress)
    assert reply["kind"] == "list" and "Indexed report.pdf" in reply["text"]
    assert [d["name"] for d in alice.library("team")] == ["report.pdf"]

    answer = alice.ask("team", "What was the net income?")
    assert answer["kind"] == "answer" and "1,577,000" in answer["text"]
    source = answer["sources"][0]
    assert source["document"] == "report.pdf" and "Net income" in source["evidence"]
    assert "verified" in answer["footer"]
    status, png = alice.request(source["image"]["url"], page_header=False)
    assert status == 200 and png.startswith(b"\x89PNG")
    # the same image URL under another workspace finds nothing
    other = source["image"]["url"].replace("/w/team/", "/w/elsewhere/")
    assert alice.request(other, page_header=False)[0] == 404

    follow_up = alice.ask("team", "And the dividend?")
    assert follow_up["kind"] == "answer" and follow_up["sources"]


def test_workspaces_never_see_each_others_documents(base):
    alice, bob = Browser(base), Browser(base)
    alice.open("alpha")
    bob.open("beta")
    alice.upload("alpha", "report.pdf", sample_report())
    assert bob.library("beta") == []
    reply = bob.ask("beta", "What was the net income?")
    assert reply["kind"] == "error" and "1,577,000" not in json.dumps(reply)
    assert "don't see a PDF" in reply["text"]


def test_only_the_browser_that_shared_a_file_can_forget_it(base):
    alice, bob = Browser(base), Browser(base)
    alice.open("team")
    bob.open("team")
    alice.upload("team", "report.pdf", sample_report())
    status, reply = bob.forget("team", "report.pdf")
    assert reply["kind"] == "error" and "Only the person who shared" in reply["text"]
    assert [d["name"] for d in alice.library("team")] == ["report.pdf"]
    status, reply = alice.forget("team", "report.pdf")
    assert status == 200 and reply["kind"] == "forget" and alice.library("team") == []


def test_refused_uploads_get_the_chat_wording(base):
    alice = Browser(base)
    alice.open("team")
    _, reply = alice.upload("team", "notes.txt", b"just text", kind="text/plain")
    assert reply["kind"] == "error" and "notes.txt is not a PDF" in reply["text"]
    _, reply = alice.upload("team", "broken.pdf", b"%PDF-1.7 this is not really a pdf")
    assert reply["kind"] == "error" and reply["text"]
    assert alice.library("team") == []


def test_a_body_over_the_limit_is_refused_before_it_is_read(base):
    alice = Browser(base)
    alice.open("team")
    status, raw = alice.request(
        "/w/team/upload", b"%PDF" + b"0" * 2_000_100, {"X-File-Name": "big.pdf"}
    )
    assert status == 413 and "larger than I can read" in json.loads(raw)["error"]
    # chunked, with no Content-Length: cut off as soon as it passes the limit
    host = urlparse(base)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
    cookie = "; ".join(f"{c.name}={c.value}" for c in alice.jar)
    conn.putrequest("POST", "/w/team/upload")
    for k, v in {"X-PaperTrail": "1", "Cookie": cookie, "Transfer-Encoding": "chunked"}.items():
        conn.putheader(k, v)
    conn.endheaders()
    chunk = b"0" * 500_000
    try:
        for _ in range(6):
            conn.send(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        conn.send(b"0\r\n\r\n")
    except OSError:
        pass  # the server may close the connection once it has refused the body
    res = conn.getresponse()
    assert res.status == 413
    conn.close()


@pytest.mark.parametrize(
    ("path", "body", "headers", "status"),
    [
        ("/w/team/ask", b"{not json", {"Content-Type": "application/json"}, 400),
        ("/w/team/ask", b"\xff\xfe\xfd", {"Content-Type": "application/json"}, 400),
        ("/w/team/ask", b"[1, 2]", {"Content-Type": "application/json"}, 400),
        ("/w/team/ask", b'{"text": ""}', {"Content-Type": "application/json"}, 400),
        ("/w/team/ask", b'{"text": "hi"}', {"Content-Type": "text/plain"}, 415),
        ("/w/team/ask", b"x" * 20_000, {"Content-Type": "application/json"}, 413),
        ("/w/team/forget", b'{"name": 3}', {"Content-Type": "application/json"}, 400),
        ("/w/bad%20name/ask", b'{"text": "hi"}', {"Content-Type": "application/json"}, 404),
    ],
)
def test_malformed_requests_get_a_4xx_with_a_message(base, path, body, headers, status):
    alice = Browser(base)
    alice.open("team")
    got, raw = alice.request(path, body, headers)
    assert got == status and json.loads(raw)["error"]


def test_requests_from_other_sites_or_unknown_browsers_are_refused(base):
    alice = Browser(base)
    alice.open("team")
    body, headers = b'{"text": "hi"}', {"Content-Type": "application/json"}
    assert alice.request("/w/team/ask", body, headers, page_header=False)[0] == 403
    stranger = Browser(base)  # never opened the page: no cookie
    assert stranger.request("/w/team/ask", body, headers)[0] == 403


def test_the_root_sends_each_visitor_to_a_new_workspace(base):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    places = set()
    for _ in range(2):
        with pytest.raises(urllib.error.HTTPError) as caught:
            opener.open(base + "/")
        assert caught.value.code == 302
        places.add(caught.value.headers["Location"])
    assert len(places) == 2 and all(p.startswith("/w/") for p in places)


def test_the_library_keeps_what_each_document_was_read_to_be(base):
    from tests import pdfs

    alice = Browser(base)
    alice.open("team")
    alice.upload("team", "paper.pdf", pdfs.paper_pdf())
    doc = alice.library("team")[0]
    assert doc["identity"]["title"] == pdfs.PAPER_TITLE  # an object, not a dataclass's repr
    assert doc["about"] == pdfs.PAPER_TITLE and doc["pages"] == 4


def test_indexing_progress_comes_page_by_page(tmp_path):
    from tests import pdfs

    service = web_service(tmp_path)
    service.intake.progress_interval = 0  # every line the pipeline reports, unthrottled
    service.pipeline.embed_batch = 4
    text = "The basin was surveyed at forty stations. " * 30
    pages = [f"Section {i}. {text}" for i in range(12)]
    with serving(service) as url:
        alice = Browser(url)
        alice.open("team")
        progress, reply = alice.upload("team", "long.pdf", pdfs.simple_pdf(pages))
    assert reply["kind"] == "list" and "Indexed long.pdf" in reply["text"]
    read = [p for p in progress if p.startswith("Reading long.pdf")]
    assert read == [f"Reading long.pdf — page {i} of 12" for i in range(1, 13)]
    done = [int(p.split("— ")[1].split("/")[0]) for p in progress if "/12 pages" in p]
    assert done == sorted(done) and done[-1] == 12 and len(set(done)) >= 4, progress
    assert progress.index(read[-1]) < progress.index(f"Indexing long.pdf — {done[0]}/12 pages")


def test_suggested_questions_and_one_vote_per_browser(tmp_path):
    service = web_service(tmp_path)
    service.suggest = True  # as the bots run it (bot/wiring.py)
    with serving(service, max_pdf_bytes=2_000_000) as url:
        alice, bob = Browser(url), Browser(url)
        alice.open("team")
        bob.open("team")
        _, reply = alice.upload("team", "report.pdf", sample_report())
        assert 2 <= len(reply["suggestions"]) <= 3
        for question in reply["suggestions"]:  # each one gets a verified answer
            answer = alice.ask("team", question)
            assert answer["kind"] == "answer" and answer["sources"], question
        answer = alice.ask("team", "What was the net income?")
        assert answer["answer_id"]

        def vote(who, ws, verdict, answer_id=answer["answer_id"]):
            body = json.dumps({"answer_id": answer_id, "verdict": verdict}).encode()
            status, raw = who.request(
                f"/w/{ws}/feedback", body, {"Content-Type": "application/json"}
            )
            return status, json.loads(raw) if status == 200 else raw

        assert vote(alice, "team", "down")[1]["outcome"] == "recorded"
        assert vote(alice, "team", "down")[1]["outcome"] == "same"  # once per browser
        assert vote(bob, "team", "up")[1]["outcome"] == "recorded"
        assert vote(bob, "elsewhere", "down")[1]["outcome"] == "unknown"  # not that workspace's
        assert vote(bob, "team", "meh")[0] == 400
        assert vote(bob, "team", "up", answer_id="<script>")[0] == 400
        votes = service.feedback.votes("web:team")
        assert sorted(v["verdict"] for v in votes) == ["down", "up"]
