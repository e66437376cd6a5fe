"""A hung LLM against a slow one: the real pipeline asks loopback servers that speak HTTP.

A server that accepts the connection and never sends a byte is hung: the
answer must fall back to the offline one, with a note saying so, long before
the answer's deadline (``PAPERTRAIL_LLM_TIMEOUT``, 120 s by default) and
within 30 s with the default settings. A server that streams its tokens
slowly, each within the first-token time, keeps the whole deadline and its
answer is used.
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from papertrail.settings import Settings
from tests.pdfs import simple_pdf
from tests.scenarios.test_security import build_pipeline

FACT = "The Kestrel bridge opened in 1998 after four years of work."
QUESTION = "When did the Kestrel bridge open?"


@contextmanager
def silent_server():
    """Accepts connections, reads nothing, answers nothing (a wedged model server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", held
    finally:
        done.set()
        listener.close()
        for conn in held:
            conn.close()


@contextmanager
def streaming_server(tokens: list[str], every: float):
    """An OpenAI-compatible server streaming ``tokens`` as server-sent events, one each
    ``every`` seconds (a slow CPU model that is working)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for token in tokens:
                time.sleep(every)
                chunk = '{"model": "slow-cpu", "choices": [{"delta": {"content": %s}}]}'
                self._event(chunk % _json_string(token))
            self._event('{"model": "slow-cpu", "choices": [], "usage": {"total_tokens": 42}}')
            self._event("[DONE]")

        def _event(self, data: str) -> None:
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _json_string(text: str) -> str:
    import json

    return json.dumps(text)


def _ask(settings: Settings):
    pipeline = build_pipeline(settings)
    try:
        pipeline.ingest("c", "bridge.pdf", simple_pdf([FACT]))
        started = time.monotonic()
        answer = pipeline.ask("c", QUESTION, render=False)
        return answer, time.monotonic() - started
    finally:
        pipeline.close()


def test_a_server_that_never_answers_falls_back_within_30_s_by_default(tmp_path):
    assert Settings().llm_timeout >= 60  # the answer's deadline is not what ends the wait
    with silent_server() as (url, held):
        settings = Settings(
            data_dir=tmp_path / "data", ocr=False, llm_base_url=url + "/v1", llm_model="m"
        )
        answer, seconds = _ask(settings)
    assert held, "the pipeline never reached the server"
    assert seconds < 30, f"{seconds:.1f} s before the offline answer"
    assert answer.mode == "extractive" and "1998" in answer.text
    [note] = [n for n in answer.notes if "hung" in n]
    assert "PAPERTRAIL_LLM_FIRST_TOKEN_TIMEOUT" in note and "extractive" in note


def test_groq_that_sends_nothing_is_hung_too(tmp_path):
    with silent_server() as (url, held):
        settings = Settings(
            data_dir=tmp_path / "data",
            ocr=False,
            groq_api_key="gsk_test",
            groq_base_url=url,
            llm_first_token_timeout=2,
            llm_retries=0,
        )
        answer, seconds = _ask(settings)
    assert held and seconds < 10
    assert answer.mode == "extractive" and any("looks hung" in n for n in answer.notes)


def test_a_model_that_streams_slowly_keeps_its_deadline_and_its_answer_is_used(tmp_path):
    # 8 tokens 0.5 s apart: 4 s in all, four times the first-token time; each arrives in time
    tokens = ["The Kestrel ", "bridge ", "opened ", "in ", "1998 ", "[1]", ".", ""]
    with streaming_server(tokens, every=0.5) as url:
        settings = Settings(
            data_dir=tmp_path / "data",
            ocr=False,
            llm_base_url=url,
            llm_model="slow-cpu",
            llm_first_token_timeout=1,
            llm_timeout=30,
        )
        answer, seconds = _ask(settings)
    assert seconds >= 3.5  # it did wait for the whole stream
    assert answer.mode == "slow-cpu" and answer.notes == ()
    assert "1998" in answer.text
