"""Security scenarios on Discord: a real discord.py client, service and pipeline against
FakeDiscord.

A PDF that tries to inject instructions, an LLM (the loopback FakeOpenAI) that
obeys it, real-looking secrets with every library logging at DEBUG, and
attachments with hostile names. Assertions are on the REST calls the fake
received (content, embeds, file names, ``allowed_mentions``) and on the log.
The shared pieces are in tests/scenarios/test_security.py.
"""

from __future__ import annotations

import asyncio
import json
import re
from contextlib import ExitStack

import pytest

from adapters.chat.service import ChatService
from adapters.discord.client import build_client
from papertrail.settings import Settings
from papertrail.text.names import safe_filename
from tests.fake_discord import BOT_ID, CHANNELS, Call, FakeDiscord
from tests.fake_discord_runner import BotThread
from tests.fake_openai import FakeOpenAI, completion
from tests.pdfs import simple_pdf
from tests.scenarios.test_security import (
    FACT,
    INJECTION_PAGES,
    INJECTION_QUESTION,
    OBEYING_ANSWER,
    POWER_QUESTION,
    SAFE_NAME,
    UNSUPPORTED,
    assert_no_secret,
    build_pipeline,
    debug_logs,
    files_under,
    llm_settings,
    secret_config,
)

GENERAL, RANDOM = CHANNELS["general"], CHANNELS["random"]
SENT = r"/channels/\d+/messages(/\d+)?|/webhooks/\d+/[\w-]+(/messages/@original)?"


class TokenBotThread(BotThread):
    """``BotThread`` logging in with ``token`` instead of its placeholder."""

    def __init__(self, client, fake: FakeDiscord, token: str) -> None:
        super().__init__(client, fake)
        self.token = token

    def _main(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            client = asyncio.create_task(self.client.start(self.token))
            stop = asyncio.create_task(self._stop.wait())
            await asyncio.wait({client, stop}, return_when=asyncio.FIRST_COMPLETED)
            await self.client.close()
            stop.cancel()
            await client

        try:
            asyncio.run(main())
        except BaseException as e:  # surfaced by __exit__
            self.error = e


@pytest.fixture
def rig():
    """``rig(settings, token=...)`` connects a real client to a FakeDiscord; both stop after."""
    stack = ExitStack()

    def start(settings: Settings, token: str = "fake-token"):
        pipeline = build_pipeline(settings)
        client = build_client(
            ChatService(pipeline), guild_ready_timeout=0.05, progress_interval=0.05
        )
        fake = stack.enter_context(FakeDiscord())
        stack.enter_context(TokenBotThread(client, fake, token))
        return fake, pipeline

    start.stop = stack.close  # stops the client and the fake early; teardown is then a no-op
    with stack:
        yield start


def ask(fake: FakeDiscord, text: str, needle: str, *, attachments=()) -> dict:
    """Ask in #general; the bot's message that contains ``needle``."""
    fake.send(GENERAL, f"<@{BOT_ID}> {text}", attachments=list(attachments))
    found = fake.answered(GENERAL, needle, timeout=20)
    return next(m for m in found if needle in m["content"])


def sent(fake: FakeDiscord) -> list[Call]:
    return fake.calls_to("POST", SENT) + fake.calls_to("PATCH", SENT)


def shown(fake: FakeDiscord) -> str:
    """Everything the bot sent: content, embeds and the names of uploaded files."""
    parts = []
    for call in sent(fake):
        parts.append(json.dumps(call.json or {}, ensure_ascii=False))
        parts += [f.filename or "" for f in call.files]
    return "\n".join(parts)


def assert_cannot_ping(fake: FakeDiscord) -> None:
    """Every message and edit forbids @everyone/@here, roles and users (the reply ping aside),
    and went to #general only."""
    calls = sent(fake)
    assert calls
    for call in calls:
        allowed = call.json["allowed_mentions"]
        assert allowed["parse"] == [], call
        assert not allowed.get("users") and not allowed.get("roles"), call
        assert set(allowed) <= {"parse", "users", "roles", "replied_user"}, call
        channel = re.match(r"/channels/(\d+)", call.path)
        assert channel is None or int(channel[1]) == GENERAL, call.path
    assert fake.bot_messages(RANDOM) == []


def test_injection_quoted_offline_cannot_ping_or_post_elsewhere(rig, tmp_path):
    fake, _ = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    pdf = fake.attachment("notes.pdf", simple_pdf(INJECTION_PAGES))
    msg = ask(fake, INJECTION_QUESTION, "Mode: extractive", attachments=[pdf])

    assert "@everyone" in msg["content"]  # quoted from the PDF: shown, but it cannot ping
    assert_cannot_ping(fake)


def test_an_llm_obeying_the_injection_pings_no_one_and_loses_its_false_citation(rig, tmp_path):
    with FakeOpenAI() as server:
        server.script(completion(OBEYING_ANSWER))
        fake, _ = rig(llm_settings(tmp_path / "data", server.url))
        pdf = fake.attachment("notes.pdf", simple_pdf(INJECTION_PAGES))
        msg = ask(fake, POWER_QUESTION, "Mode: llama", attachments=[pdf])

    assert "Ignore previous instructions" in server.requests[0].prompt
    content = msg["content"]
    assert "2.4 megawatts at its rated wind speed [1]" in content
    assert UNSUPPORTED in content and f"{UNSUPPORTED} [" not in content
    assert "1 citation verified · 1 removed" in content
    assert [e["title"] for e in msg["embeds"]] == ["[1] notes.pdf, page 1"]
    for live in ("@everyone", "@here", "<@", "<!"):  # <#C999> may stay: a link, not a ping
        assert live not in shown(fake)
    assert_cannot_ping(fake)


def test_secrets_reach_neither_the_logs_nor_discord(rig, tmp_path):
    with FakeOpenAI() as server, ExitStack() as stack:
        server.script(completion(f"{FACT[:-1]} [1]."))
        cfg = secret_config(tmp_path / "data", GROQ_BASE_URL=server.url)
        logs = stack.enter_context(debug_logs(cfg.secrets()))
        fake, _ = rig(cfg.settings, token=cfg.discord_token)
        pdf = fake.attachment("notes.pdf", simple_pdf(INJECTION_PAGES))
        ask(fake, POWER_QUESTION, "Mode: llama", attachments=[pdf])
        identify = fake.identify
        rig.stop()  # inside the capture: the client's shutdown logs count too
        text = logs.getvalue()

    assert identify["token"] == cfg.discord_token  # the client really used it
    for seen in ("discord.client", "discord.gateway", "discord.http", "groq", "adapters.discord"):
        assert seen in text, seen
    assert_no_secret(text, "the log")
    assert_no_secret(shown(fake), "Discord messages")
    for call in sent(fake):
        for f in call.files:
            assert_no_secret(f.data.decode("latin-1"), "an uploaded image")


def test_a_reply_to_another_channels_message_neither_answers_from_nor_imports_its_pdf(
    rig, tmp_path
):
    fake, pipeline = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    secret = simple_pdf(["The vault combination of the Kestrel site is 4417."])
    shared = fake.send(
        RANDOM, "for #random only", attachments=[fake.attachment("vault.pdf", secret)]
    )
    fake.wait_for(lambda: fake.reactions(RANDOM, shared)[-1:] == ["+✅"], 20)
    hits = len(fake.cdn_hits)

    # delivered as Discord does: message_reference to #random, referenced_message resolved
    fake.send(GENERAL, f"<@{BOT_ID}> What is the vault combination?", reply_to=shared)
    [reply] = fake.answered(GENERAL, "PDF", timeout=20)
    assert "I don't see a PDF here yet" in reply["content"]
    assert "4417" not in shown(fake) and "vault.pdf" not in shown(fake)
    assert pipeline.documents(f"discord:{GENERAL}") == []  # nothing entered #general's library
    assert len(fake.cdn_hits) == hits  # its PDF was not even downloaded for #general
    fake.send(GENERAL, f"<@{BOT_ID}> list")
    fake.answered(GENERAL, "No documents are indexed")


HOSTILE = "../../@everyone <@&1100000000000000099> **evil** ~~x~~ `y` ||z|| [l](http:evil).pdf"
MARKUP = ("../", "@everyone", "<@", "**", "~~", "`", "||", "[l]", "](")


def hostile(fake: FakeDiscord, data: bytes, **kwargs) -> dict:
    """An attachment whose file name is hostile (served under a plain CDN path)."""
    att = fake.attachment("upload.pdf", data, **kwargs)
    return dict(att, filename=HOSTILE)


def test_a_hostile_attachment_name_is_sanitised_in_messages_and_on_disk(rig, tmp_path):
    data = tmp_path / "data"
    fake, pipeline = rig(Settings(data_dir=data, ocr=False))
    upload = hostile(fake, simple_pdf(INJECTION_PAGES))
    msg = ask(fake, POWER_QUESTION, "Mode:", attachments=[upload])

    [doc] = pipeline.documents(f"discord:{GENERAL}")
    assert SAFE_NAME.fullmatch(doc.name) and doc.name.endswith(".pdf")
    assert msg["embeds"][0]["title"] == f"[1] {doc.name}, page 1"
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.png", a["filename"]) for a in msg["attachments"])
    text = shown(fake)
    for bad in MARKUP:
        assert bad not in text, bad
    assert_cannot_ping(fake)
    for path in files_under(tmp_path):
        assert path.resolve().is_relative_to(data.resolve()), path
    assert [p.name for p in files_under(data / "files")] == [f"{doc.doc_id}.pdf"]


@pytest.mark.parametrize(
    ("size", "expected"),
    [(80_000_000, "is 80.0 MB; the limit is"), (None, "I could not download")],
    ids=["too-large", "download-fails"],
)
def test_a_hostile_name_in_an_error_reply_is_sanitised(rig, tmp_path, size, expected):
    fake, _ = rig(Settings(data_dir=tmp_path / "data", ocr=False))
    att = hostile(fake, b"%PDF-1.4 tiny", size=size)
    if size is None:
        att["url"] = f"{fake.base_url}/cdn/attachments/0/gone.pdf"  # the CDN answers 404
    msg = ask(fake, "summarise", "❌", attachments=[att])

    assert expected in msg["content"]
    assert safe_filename(HOSTILE, suffix="") in msg["content"]  # named, but sanitised
    text = shown(fake)
    for bad in MARKUP:
        assert bad not in text, bad
    assert_cannot_ping(fake)
