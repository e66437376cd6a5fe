"""SIGTERM never ends a PaperTrail process in a native abort: exit 0, every time.

Each kind of process (``python -m bot web``, ``slack`` in HTTP mode against
FakeSlack, ``discord`` against FakeDiscord, ``local``, and the CLI's
``ingest`` and ``ask``) is started with the real model and stopped with
SIGTERM at three moments: while it starts and warms the model up, once it is
ready, and while it indexes a PDF (or, for ``ask``, answers). Three run at
once beside a busy-looping process, so both cores are loaded, as when the
abort was seen: interpreter teardown beside a thread still inside ONNX
Runtime ("terminate called without an active exception", exit 134) hit about
one stop in three. ``PAPERTRAIL_STOP_ROUNDS`` (default 1) repeats the whole
set; each round is 15 stops.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests import pdfs
from tests.discord_workers import TOKEN
from tests.fake_discord import BOT_ID, CHANNELS, FakeDiscord
from tests.fake_slack import EventSender, FakeSlack
from tests.services import free_port

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("PAPERTRAIL_STOP_ROUNDS", "1"))
SECRET = "stop-test-signing-secret"
BAD = ("terminate called", "Fatal Python error", "Traceback")
READY_SECONDS = 180  # under load, a start with the real model


class Run:
    """One process, its output collected in a file, and the moment it is stopped."""

    def __init__(self, folder: Path, argv: list[str], env: dict[str, str]) -> None:
        self.folder = folder
        self.log = folder / "out.log"
        base = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERTRAIL", "SLACK"))}
        base = {k: v for k, v in base.items() if not k.startswith(("DISCORD", "GROQ"))}
        base |= {"PYTHONPATH": str(ROOT), "PAPERTRAIL_DATA_DIR": str(folder / "data")}
        base |= {"PAPERTRAIL_LOG_LEVEL": "INFO", "PAPERTRAIL_OCR": "false"}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, *argv], env=base | env, cwd=folder, stdout=out, stderr=out,
                stdin=subprocess.PIPE,
            )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = READY_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            assert self.proc.poll() is None, f"exited {self.proc.returncode}: {self.output()}"
            assert time.monotonic() < deadline, f"no {text!r} in: {self.output()[-2000:]}"
            time.sleep(0.05)

    def catches_sigterm(self) -> None:
        """Wait until the process has its SIGTERM handler: Python's own start comes before."""
        deadline = time.monotonic() + READY_SECONDS
        while True:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
            caught = int(
                next(x for x in status.splitlines() if x.startswith("SigCgt:")).split()[1], 16
            )
            if caught & (1 << (signal.SIGTERM - 1)):
                return
            assert time.monotonic() < deadline, "no SIGTERM handler"
            time.sleep(0.02)

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(10)
        return code, self.output()


def _http(port: int, method: str, path: str, body: bytes = b"", headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    return conn, conn.getresponse()


def _healthy(port: int) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            conn, res = _http(port, "GET", "/healthz")
            res.read()
            conn.close()
            if res.status == 200:
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, "no /healthz"
        time.sleep(0.1)


def _pdf(folder: Path) -> Path:
    path = folder / "report.pdf"
    pages = [f"Page {n}: the Kestrel bridge carried {n * 137} cars on day {n}." for n in range(60)]
    path.write_bytes(pdfs.simple_pdf(pages))
    return path


# -- the process kinds: start, bring to the moment, stop ------------------------------


def web(folder: Path, moment: str, fakes) -> Run:
    port = free_port()
    run = Run(folder, ["-m", "bot", "--env-file", os.devnull, "web", "--port", str(port)], {})
    if moment == "warm-up":
        run.wait_for("starting web")
        return run
    _healthy(port)
    if moment == "indexing":
        conn, res = _http(port, "GET", "/w/stop")
        res.read()
        cookie = res.getheader("Set-Cookie").split(";")[0]
        headers = {"X-PaperTrail": "1", "Cookie": cookie, "X-File-Name": "report.pdf"}
        conn, res = _http(port, "POST", "/w/stop/upload", _pdf(folder).read_bytes(), headers)
        json.loads(res.readline())  # the first progress line: indexing has begun
        run.keep = conn  # the browser is still there when the server stops
    return run


def slack(folder: Path, moment: str, fakes) -> Run:
    port = free_port()
    env = {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_SIGNING_SECRET": SECRET}
    env["SLACK_API_URL"] = fakes["slack"].api_url
    run = Run(folder, ["-m", "bot", "--env-file", os.devnull, "slack", "--port", str(port)], env)
    if moment == "warm-up":
        run.wait_for("starting slack")
        return run
    _healthy(port)
    if moment == "indexing":
        fake = fakes["slack"]
        file = fake.add_file("report.pdf", _pdf(folder).read_bytes())
        msg = fake.user_post("C1", "<@UBOT> how many cars?", files=[file])
        EventSender(f"http://127.0.0.1:{port}/slack/events", SECRET).send(
            fake.app_mention(msg, with_files=True)
        )
        fetched = f"GET /files-pri/T1-{file['id']}/"
        fake.wait_for(lambda: any(c.method.startswith(fetched) for c in fake.calls), 60)
    return run


def discord(folder: Path, moment: str, fakes) -> Run:
    fake: FakeDiscord = fakes["discord"]
    health = free_port()
    env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_URL": fake.api_url}
    env |= {"DISCORD_GATEWAY_URL": fake.gateway_url, "PAPERTRAIL_HEALTH_PORT": str(health)}
    run = Run(folder, ["-m", "bot", "--env-file", os.devnull, "discord"], env)
    if moment == "warm-up":
        run.wait_for("starting discord")
        return run
    run.wait_for("Discord: logged in")
    if moment == "indexing":
        with fakes["discord-lock"]:  # one bot on the fake at a time gets the message
            att = fake.attachment("report.pdf", _pdf(folder).read_bytes())
            hits = len(fake.cdn_hits)
            fake.send(CHANNELS["general"], f"<@{BOT_ID}> how many cars?", attachments=[att])
            fake.wait_for(lambda: len(fake.cdn_hits) > hits, 60)
    return run


def local(folder: Path, moment: str, fakes) -> Run:
    argv = ["-m", "bot", "--env-file", os.devnull, "local"]
    if moment == "indexing":
        argv += ["--pdf", str(_pdf(folder)), "--ask", "How many cars on day 7?"]
    run = Run(folder, argv, {})
    run.wait_for("starting local")
    if moment == "indexing":
        run.catches_sigterm()
        time.sleep(random.uniform(0.5, 3.0))
    return run


def ingest(folder: Path, moment: str, fakes) -> Run:
    pdf = _pdf(folder)
    run = Run(folder, ["-m", "papertrail.cli", "--env-file", os.devnull, "ingest", str(pdf)], {})
    run.catches_sigterm()
    time.sleep(random.uniform(0.3, 4.0) if moment == "indexing" else random.uniform(0, 0.5))
    return run


def ask(folder: Path, moment: str, fakes) -> Run:
    pdf = _pdf(folder)
    cli = ["-m", "papertrail.cli", "--env-file", os.devnull]
    if moment == "indexing":  # a second ask: the PDF is indexed, the question is answered
        first = Run(folder, [*cli, "ingest", str(pdf)], {})
        assert first.proc.wait(300) == 0, first.output()
    run = Run(folder, [*cli, "ask", str(pdf), "How many cars on day 7?"], {})
    run.catches_sigterm()
    time.sleep(random.uniform(0.2, 3.0))
    return run


KINDS = {"web": web, "slack": slack, "discord": discord, "local": local}
KINDS |= {"ingest": ingest, "ask": ask}
MOMENTS = {name: ("warm-up", "ready", "indexing") for name in ("web", "slack", "discord")}
MOMENTS |= {"local": ("warm-up", "indexing"), "ingest": ("warm-up", "indexing")}
MOMENTS |= {"ask": ("warm-up", "indexing")}


def test_every_kind_of_process_stops_with_exit_0_under_load(tmp_path):
    plan = [(kind, moment) for _ in range(ROUNDS) for kind in KINDS for moment in MOMENTS[kind]]
    random.shuffle(plan)
    with ExitStack() as stack:
        fakes = {
            "slack": stack.enter_context(FakeSlack()),
            "discord": stack.enter_context(FakeDiscord()),
            "discord-lock": threading.Lock(),
        }
        burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        stack.callback(burner.wait)
        stack.callback(burner.kill)

        def one(n: int) -> tuple[str, str, int, str]:
            kind, moment = plan[n]
            folder = tmp_path / f"{n:02d}-{kind}-{moment}"
            folder.mkdir()
            run = KINDS[kind](folder, moment, fakes)
            code, out = run.stop()
            return kind, moment, code, out

        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(one, range(len(plan))))
    failed = [
        f"{kind} stopped at {moment}: exit {code}\n{out[-1500:]}"
        for kind, moment, code, out in results
        if code != 0 or any(bad in out for bad in BAD)
    ]
    assert not failed, "\n\n".join(failed)
    assert len(results) == 15 * ROUNDS
