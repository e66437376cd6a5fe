"""Finds a mention's PDFs in Slack and downloads them safely.

``gather`` lists the files a question may be about, in the order the service
expects: the message's own files, then earlier files in its thread
(``conversations.replies``), then recent channel history
(``conversations.history``, bounded). Only the message's own files may be
non-PDFs (so the service can say why it cannot read them); older files are
filtered to PDFs. ``SlackDownloader.download`` fetches ``url_private_download``
with the bot token, never sends that token to another host on a redirect,
enforces the size limit before and during the download, and recognises the
HTML sign-in page Slack serves when the ``files:read`` scope is missing (told
apart from an HTML page uploaded as ".pdf" by asking ``files.info``).
Posting replies is left to ``adapters/slack/reply.py``.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from adapters.chat.replies import HISTORY_FALLBACK
from adapters.chat.service import Attachment
from adapters.slack.format import explain_api_error
from papertrail.errors import PaperTrailError
from papertrail.read.uploads import check_size, has_pdf_signature, looks_like_pdf, too_large
from papertrail.text.names import safe_filename

log = logging.getLogger(__name__)

HISTORY_LIMIT = HISTORY_FALLBACK  # channel messages searched for PDFs shared earlier
THREAD_LIMIT = 200  # thread replies searched (one page of conversations.replies)
_GONE = ("tombstone", "hidden_by_limit")  # deleted, or hidden by the free plan's limit


def is_pdf(file: dict) -> bool:
    name = str(file.get("name") or file.get("title") or "").lower()
    return file.get("filetype") == "pdf" or looks_like_pdf(name, file.get("mimetype") or "")


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class _SameOriginAuth(urllib.request.HTTPRedirectHandler):
    """Re-sends the bot token on a redirect only to the origin it was meant for."""

    def __init__(self, authorization: str, origin: tuple[str, str]) -> None:
        self.authorization = authorization
        self.origin = origin

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        # The token is an unredirected header, so urllib drops it; put it back
        # only when the redirect stays on the same scheme and host.
        if new is not None and _origin(newurl) == self.origin:
            new.add_unredirected_header("Authorization", self.authorization)
        elif new is not None:
            log.info("download redirected to another host; not sending the bot token there")
        return new


class SlackDownloader:
    """Downloads Slack-hosted files with the bot token."""

    def __init__(
        self, token: str, *, max_bytes: int, timeout: float = 60.0, client: WebClient | None = None
    ) -> None:
        self._authorization = f"Bearer {token}"
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.client = client  # asks files.info whether an HTML answer means a missing scope

    def download(self, file: dict) -> bytes:
        """The file's bytes, checked to be a PDF; raises PaperTrailError with the fix."""
        raw = file.get("name") or file.get("title")  # the uploader's: shown only sanitised
        name = safe_filename(str(raw), suffix="") if raw else "the file"
        size = file.get("size")
        check_size(name, size if isinstance(size, int) else None, self.max_bytes)
        url = file.get("url_private_download") or file.get("url_private")
        if not url:
            raise PaperTrailError(
                f"Slack gave me no download link for {name}. Upload it again as a file.",
                code="download",
            )
        request = urllib.request.Request(url, headers={"User-Agent": "PaperTrail"})
        request.add_unredirected_header("Authorization", self._authorization)
        opener = urllib.request.build_opener(_SameOriginAuth(self._authorization, _origin(url)))
        try:
            with opener.open(request, timeout=self.timeout) as response:
                content_type = response.headers.get_content_type()
                data = response.read(self.max_bytes + 1)
        except urllib.error.HTTPError as err:
            raise PaperTrailError(
                f"I could not download {name}: Slack answered HTTP {err.code}. "
                "Check that the file still exists and that the app has the files:read scope.",
                code="download",
            ) from None
        except (urllib.error.URLError, OSError) as err:
            log.warning("download of %s failed: %s", file.get("id"), err)
            raise PaperTrailError(
                f"I could not download {name}: the connection to Slack failed. Please try again.",
                code="download",
            ) from None
        if len(data) > self.max_bytes:
            raise too_large(name, None, self.max_bytes)  # cut off: the true size is unknown
        if not has_pdf_signature(data):
            html_page = content_type == "text/html" or data.lstrip()[:1] == b"<"
            if html_page and self._scope_missing(str(file.get("id", ""))):
                raise PaperTrailError(
                    f"I could not download {name}: Slack sent a sign-in page instead of the "
                    "file, which means the app lacks the files:read scope. An admin should "
                    "add files:read under OAuth & Permissions and reinstall the app.",
                    code="missing_scope",
                )
            raise PaperTrailError(
                f"{name} is not a PDF. I can only read PDF files: export it as PDF and upload "
                "it again.",
                code="not_pdf",
            )
        return data

    def _scope_missing(self, file_id: str) -> bool:
        """Whether an HTML answer was Slack's sign-in page rather than the file itself.

        ``files.info`` needs the same ``files:read`` scope: when it succeeds the
        scope is there, and the upload is an HTML page named like a PDF.
        """
        if self.client is None or not file_id:
            return True
        try:
            self.client.files_info(file=file_id)
            return False
        except SlackApiError as err:
            return err.response.get("error") in ("missing_scope", "not_allowed_token_type")


@dataclass(frozen=True)
class Found:
    """What ``gather`` found: the attachments and user-facing notes on what failed."""

    attachments: tuple[Attachment, ...]
    notes: tuple[str, ...] = ()


class _Gatherer:
    def __init__(self, client: WebClient, downloader: SlackDownloader) -> None:
        self.client = client
        self.downloader = downloader
        self.seen: set[str] = set()  # file ids already listed
        self.notes: list[str] = []
        self.out: list[Attachment] = []

    def api(self, doing: str, method: str, **kwargs) -> dict | None:
        try:
            return getattr(self.client, method)(**kwargs).data
        except SlackApiError as err:
            error = str(err.response.get("error", "error"))
            needed = str(err.response.get("needed", ""))
            log.warning("%s failed: %s (needed: %s)", method, error, needed or "-")
            note = explain_api_error(error, doing, needed)
            if note not in self.notes:
                self.notes.append(note)
            return None

    def add(
        self, files: list[dict], source: str, pdf_only: bool, owner: str = "", post: str = ""
    ) -> None:
        for file in files:
            file_id = str(file.get("id", ""))
            if not file_id or file_id in self.seen or file.get("mode") in _GONE:
                continue
            if file.get("file_access") == "check_file_info" or not file.get("name"):
                info = self.api("read the file's details", "files_info", file=file_id)
                if not info or not info.get("file"):
                    continue
                file = info["file"]
            if pdf_only and not is_pdf(file):
                continue
            self.seen.add(file_id)
            self.out.append(
                Attachment(
                    name=str(file.get("name") or file.get("title") or file_id),
                    fetch=lambda f=file: self.downloader.download(f),
                    size=file.get("size") if isinstance(file.get("size"), int) else None,
                    mimetype=str(file.get("mimetype") or ""),
                    key=file_id,
                    source=source,
                    owner=owner,
                    post=post,
                )
            )


def gather(
    client: WebClient,
    downloader: SlackDownloader,
    event: dict,
    *,
    history_limit: int = HISTORY_LIMIT,
) -> Found:
    """The files a mention may refer to, newest first within thread and history."""
    g = _Gatherer(client, downloader)
    channel, ts = event["channel"], event["ts"]
    thread_ts = event.get("thread_ts") or ts
    own = list(event.get("files") or [])
    thread: list[dict] = []
    if thread_ts != ts:
        data = g.api(
            "read this thread",
            "conversations_replies",
            channel=channel,
            ts=thread_ts,
            limit=THREAD_LIMIT,
        )
        for message in (data or {}).get("messages", []):
            if message.get("ts") == ts:
                own = own or list(message.get("files") or [])
            elif float(message.get("ts", 0)) < float(ts):
                thread.append(message)
        thread.reverse()  # conversations.replies is oldest first; the latest upload wins
    history: list[dict] = []
    if history_limit > 0:
        data = g.api(
            "read the channel's recent messages",
            "conversations_history",
            channel=channel,
            latest=ts,  # history as it was when the question was asked
            inclusive=True,
            limit=history_limit + 1,  # + the message itself (when it is not in a thread)
        )
        for message in (data or {}).get("messages", []):  # newest first
            if message.get("ts") == ts:
                # The app_mention copy of a post may lack files[] (bolt-python#925).
                own = own or list(message.get("files") or [])
            else:
                history.append(message)
    g.add(own, "message", pdf_only=False)
    for source, messages in (("thread", thread), ("history", history)):
        for m in messages:
            files = list(m.get("files") or [])
            g.add(files, source, pdf_only=True, owner=m.get("user", ""), post=m.get("ts", ""))
    return Found(tuple(g.out), tuple(g.notes))


def share_attachments(
    client: WebClient, downloader: SlackDownloader, files: list[dict], *, owner: str, post: str
) -> Found:
    """The PDFs among ``files`` of one post, shared by ``owner`` (for indexing on drop)."""
    g = _Gatherer(client, downloader)
    g.add(files, "message", pdf_only=True, owner=owner, post=post)
    return Found(tuple(g.out), tuple(g.notes))
