"""End-to-end: the assistant view, streaming, suggested questions and feedback on Slack.

The real Bolt app over loopback HTTP against ``FakeSlack`` (which speaks the
assistant thread methods, ``chat.*Stream`` and ``block_actions``), with the
real ``ChatService`` and pipeline (hash embedder, in-memory Chroma).
"""

from __future__ import annotations

import io
import json
import re
from contextlib import contextmanager, redirect_stdout
from types import SimpleNamespace

from adapters.chat.replies import UNSUPPORTED
from adapters.chat.service import ChatService
from papertrail.settings import Settings
from tests.fake_slack import FakeSlack, buttons, shown_text
from tests.fakes import ScriptedGenerator, gated_pipeline, slack_bot
from tests.pdfs import table_pdf

SECRET = "assistant-secret"
LLM = "llama-test-70b"


@contextmanager
def running(tmp_path, *, generator=None, streaming=True):
    fake = FakeSlack()
    fake.streaming = streaming
    settings = Settings(data_dir=tmp_path / "data", ocr=False, max_pdf_mb=1.0)
    pipeline = gated_pipeline(settings, generator=generator)
    service = ChatService(pipeline, settings, suggest=True)
    bot = slack_bot(fake, service, SECRET, progress_interval=0.0)
    try:
        yield SimpleNamespace(fake=fake, events=bot.events, service=service, settings=settings)
    finally:
        bot.close()
        fake.close()


def _answers(fake, channel, thread, n):
    """The bot's first ``n`` finished replies in a thread (not progress, not notices)."""

    def done():
        found = [
            m
            for m in fake.bot_messages(channel, thread)
            if not m["text"].startswith((":hourglass", "❓")) and not m.get("streaming")
        ]
        return found if len(found) >= n else None

    return fake.wait_for(done, timeout=30)


def test_a_pdf_dropped_in_an_assistant_thread_shows_statuses_then_answerable_prompts(tmp_path):
    with running(tmp_path) as s:
        fake = s.fake
        started = fake.start_assistant_thread("D1")
        thread = started["assistant_thread"]["thread_ts"]
        s.events.send(started)
        greeting = fake.wait_for(lambda: fake.prompts.get(("D1", thread)))
        assert [p["message"] for p in greeting] == ["help", "list"]

        pdf = fake.add_file("statement.pdf", table_pdf())
        drop = fake.user_post("D1", "", files=[pdf], thread_ts=thread)
        s.events.send(fake.message_event(drop, channel_type="im"))
        first = _answers(fake, "D1", thread, 1)[0]
        assert "Indexed statement.pdf" in shown_text(first)

        statuses = fake.statuses[("D1", thread)]
        assert any(re.search(r"statement\.pdf — \d+/\d+ pages", s) for s in statuses), statuses
        # progress went to the status line, not into messages
        assert not [m for m in fake.bot_messages("D1") if m["text"].startswith(":hourglass")]

        prompts = fake.wait_for(lambda: fake.prompts.get(("D1", thread)) != greeting and
                                fake.prompts[("D1", thread)])  # fmt: skip
        questions = [p["message"] for p in prompts]
        assert 2 <= len(questions) <= 3, questions
        for i, question in enumerate(questions, start=2):  # a click sends the prompt's message
            asked = fake.user_post("D1", question, thread_ts=thread)
            s.events.send(fake.message_event(asked, channel_type="im"))
            answer = _answers(fake, "D1", thread, i)[-1]
            text = shown_text(answer)
            assert "Sources" in text and "Ungrounded" not in text, (question, text)
            assert re.search(r"[1-9]\d* (citations? )?verified", text), text
        assert fake.titles[("D1", thread)] == questions[0]


def test_an_llm_answer_is_streamed_and_ends_verified(tmp_path):
    draft = (
        "Net revenue was $1,577 million in 2023 [1]. "
        "The company employs 9,000 engineers on Mars [1]."
    )
    with running(tmp_path, generator=ScriptedGenerator(draft, mode=LLM)) as s:
        fake = s.fake
        started = fake.start_assistant_thread("D1")
        thread = started["assistant_thread"]["thread_ts"]
        pdf = fake.add_file("statement.pdf", table_pdf())
        ask = fake.user_post("D1", "What was net revenue in 2023?", files=[pdf], thread_ts=thread)
        s.events.send(fake.message_event(ask, channel_type="im"))
        answer = fake.wait_for(
            lambda: [m for m in fake.bot_messages("D1", thread) if m.get("streamed")]
        )[0]
        log = answer["stream_log"]
        assert len(log) >= 2  # sentence by sentence
        shown = ""
        for piece in log:  # at no moment is the failed sentence on screen without its mark
            shown += piece
            if "Mars" in shown:
                assert "Mars" in shown and UNSUPPORTED.strip() in shown.split("Mars", 1)[1]
        assert "1,577" in answer["text"]
        assert "Sources" in shown_text(answer) and "citation verified" in shown_text(answer)
        assert [b["type"] for b in answer["blocks"]][-1] == "context_actions"  # 👍/👎
        assert fake.statuses[("D1", thread)]  # statuses while it worked


def test_without_streaming_the_answer_is_posted(tmp_path):
    generator = ScriptedGenerator("Net revenue was $1,577 million [1].", mode=LLM)
    with running(tmp_path, generator=generator, streaming=False) as s:
        fake = s.fake
        pdf = fake.add_file("statement.pdf", table_pdf())
        ask = fake.user_post("C1", "<@UBOT> What was net revenue?", files=[pdf])
        s.events.send(fake.app_mention(ask, with_files=True))
        answer = _answers(fake, "C1", ask["ts"], 1)[0]
        assert "1,577" in shown_text(answer) and not answer.get("streamed")
        assert fake.calls_to("chat.startStream")  # tried once, refused, then posted


def test_a_thumbs_down_is_stored_once_per_user_and_exported_for_eval(tmp_path, monkeypatch):
    from papertrail.cli.main import main

    monkeypatch.setenv("PAPERTRAIL_DATA_DIR", str(tmp_path / "data"))  # the bot's
    monkeypatch.chdir(tmp_path)  # no .env of the developer's

    with running(tmp_path) as s:
        fake = s.fake
        pdf = fake.add_file("statement.pdf", table_pdf())
        ask = fake.user_post("C1", "<@UBOT> What was the net revenue?", files=[pdf])
        s.events.send(fake.app_mention(ask, with_files=True))
        answer = _answers(fake, "C1", ask["ts"], 1)[0]
        (feedback,) = [b for b in buttons(answer) if b["type"] == "feedback_buttons"]
        down = {"type": "feedback_buttons", "action_id": feedback["action_id"],
                "value": feedback["negative_button"]["value"]}  # fmt: skip
        up = dict(down, value=feedback["positive_button"]["value"])
        for payload in (
            fake.block_actions(answer, "C1", down, user="U1"),
            fake.block_actions(answer, "C1", down, user="U1"),  # twice: still one vote
            fake.block_actions(answer, "C1", up, user="U2"),
        ):
            assert s.events.action(payload)[0] == 200
        fake.wait_for(lambda: len(fake.responses) == 3)
        assert "already" in fake.responses[1]["text"]
        # a vote on this answer from another channel is not counted
        elsewhere = dict(fake.block_actions(answer, "C2", down, user="U3"))
        assert s.events.action(elsewhere)[0] == 200
        fake.wait_for(lambda: len(fake.responses) == 4)
        assert "no longer" in fake.responses[3]["text"]

        out = io.StringIO()
        with redirect_stdout(out):
            code = main(["feedback", "export", "--channel", "slack:T1:C1"], pipeline=None)
        assert code == 0
        (case,) = [json.loads(line) for line in out.getvalue().splitlines()]
        assert case["meta"]["votes"] == {"up": 1, "down": 1}
        assert case["question"] == "What was the net revenue?" and case["answer"] == ""
        cases = tmp_path / "cases.jsonl"
        cases.write_text(out.getvalue())

        pairs = io.StringIO()
        with redirect_stdout(pairs):
            main(["feedback", "export", "--channel", "slack:T1:C1", "--format", "verifier"])
        assert all(not json.loads(p)["supported"] for p in pairs.getvalue().splitlines())

        # papertrail eval reads the cases back (retrieval, on the test pipeline)
        from papertrail.measure.evaluate import load_items

        (item,) = load_items(cases)
        assert item.doc.is_file() and item.question == case["question"]
        monkeypatch.setenv("PAPERTRAIL_EVAL_DIR", str(tmp_path / "eval"))
        result = tmp_path / "eval.json"
        with redirect_stdout(io.StringIO()):
            code = main(["eval", str(cases), "--json", str(result)], pipeline=s.service.pipeline)
        (record,) = json.loads(result.read_text())["items"]
        assert code == 0 and record["question"] == case["question"] and "error" not in record
        assert record["top"]  # the stored PDF was indexed and searched

        # forgetting the document forgets its feedback
        s.service.forget_files([pdf["id"]])
        out = io.StringIO()
        with redirect_stdout(out):
            main(["feedback", "export", "--channel", "slack:T1:C1"])
        assert out.getvalue() == ""


def test_suggested_question_buttons_after_a_drop_in_a_channel_are_answered(tmp_path):
    with running(tmp_path) as s:
        fake = s.fake
        pdf = fake.add_file("statement.pdf", table_pdf())
        drop = fake.user_post("C1", "", files=[pdf])
        s.events.send(fake.message_event(drop))
        offered = _answers(fake, "C1", drop["ts"], 1)[0]
        clicks = [b for b in buttons(offered) if b["type"] == "button"]
        assert 2 <= len(clicks) <= 3
        for n, button in enumerate(clicks, start=2):
            assert s.events.action(fake.block_actions(offered, "C1", button, user="U7"))[0] == 200
            answer = _answers(fake, "C1", drop["ts"], n)[-1]
            text = shown_text(answer)
            assert "Sources" in text and "Ungrounded" not in text, text
        notes = [m for m in fake.bot_messages("C1", drop["ts"]) if m["text"].startswith("❓")]
        assert [n["text"][2:] for n in notes] == [b["value"] for b in clicks]


def test_in_a_channel_the_stream_replaces_the_progress_message(tmp_path):
    generator = ScriptedGenerator("Net revenue was $1,577 million in 2023 [1].", mode=LLM)
    with running(tmp_path, generator=generator) as s:
        fake = s.fake
        pdf = fake.add_file("statement.pdf", table_pdf())
        ask = fake.user_post("C1", "<@UBOT> What was net revenue?", files=[pdf])
        s.events.send(fake.app_mention(ask, with_files=True))
        streamed = fake.wait_for(
            lambda: [m for m in fake.bot_messages("C1", ask["ts"]) if m.get("streamed")]
        )[0]
        assert "1,577" in streamed["text"]
        (start,) = fake.calls_to("chat.startStream")
        assert start.params["recipient_user_id"] == "U1"  # streaming into a channel
        assert fake.calls_to("chat.delete")  # the progress message went once streaming began
        assert fake.bot_messages("C1", ask["ts"]) == [streamed]


def test_a_refused_status_never_blocks_the_answer(tmp_path):
    with running(tmp_path) as s:
        fake = s.fake
        root = fake.user_post("D2", "hello")  # a DM thread that is no assistant thread
        pdf = fake.add_file("statement.pdf", table_pdf())
        ask = fake.user_post("D2", "What is the net revenue?", files=[pdf], thread_ts=root["ts"])
        s.events.send(fake.message_event(ask, channel_type="im"))
        answer = _answers(fake, "D2", root["ts"], 1)[0]
        assert "1,577" in shown_text(answer)
        refused = [c for c in fake.calls if c.method.startswith("assistant.threads.")]
        assert len(refused) == 1  # invalid_thread_ts once, then progress went into messages
        assert fake.calls_to("chat.update") or fake.calls_to("chat.postMessage")

        fake.errors["assistant.threads.setStatus"] = {"error": "ratelimited"}
        started = fake.start_assistant_thread("D1")
        thread = started["assistant_thread"]["thread_ts"]
        ask = fake.user_post("D1", "What is the net revenue?", files=[pdf], thread_ts=thread)
        s.events.send(fake.message_event(ask, channel_type="im"))
        assert "1,577" in shown_text(_answers(fake, "D1", thread, 1)[0])
