"""The Slack scenario of issue 12, end to end, against the real ``python -m bot slack``.

Starts the loopback FakeSlack (tests/fake_slack.py) and the real bot as a
subprocess in HTTP mode pointed at it (``SLACK_API_URL``), offline (bundled
model, extractive answers), with a fresh data directory. Then, as a team
would: the Attention paper and a 10-K are shared with no mention; "How many
identical layers are in the encoder stack?" is asked; "And the decoder?" is
replied in that thread with no mention; 30 unrelated messages later a new
question is asked; ``/papertrail list`` is run; the paper is deleted
(``file_deleted``) and ``list`` and a question are run again. Prints what
happened and the measured times; exits 1 if a step's expectation fails. It
uses corpus PDFs (not in the repository), so it is a script, not a test.

    .venv/bin/python scripts/scenario_slack.py [--corpus ../shared/corpus]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fake_slack import EventSender, FakeSlack, final_messages, shown_text  # noqa: E402

SECRET = "scenario-signing-secret"
failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"  [{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        failures.append(what)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_bot(fake: FakeSlack, port: int, data: Path) -> subprocess.Popen:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "GROQ_", "PAPERTRAIL_"))
    }
    env.update(
        SLACK_BOT_TOKEN=fake.token,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url,
        PAPERTRAIL_DATA_DIR=str(data),
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        ORT_DISABLE_TELEMETRY="1",
    )
    log = open(data.parent / "bot.log", "w")  # noqa: SIM115 - lives as long as the bot
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "slack", "--port", str(port)],
        cwd=data.parent,  # no .env from the repository
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def wait_healthy(url: str, bot: subprocess.Popen, timeout: float = 120) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if bot.poll() is not None:
            raise SystemExit(f"the bot exited with {bot.returncode}; see bot.log")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return time.monotonic() - start
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the bot did not come up")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--ten-k", default="AMAZON_2017_10K.pdf")
    args = parser.parse_args()
    paper = args.corpus / "attention" / "attention-is-all-you-need.pdf"
    ten_k = args.corpus / "financebench" / "pdfs" / args.ten_k

    with FakeSlack() as fake, tempfile.TemporaryDirectory(prefix="pt-scenario-") as tmp:
        port = free_port()
        bot = start_bot(fake, port, Path(tmp) / "data")
        try:
            url = f"http://127.0.0.1:{port}"
            print(f"bot up in {wait_healthy(url, bot):.1f} s (python -m bot slack, HTTP mode)")
            events = EventSender(url + "/slack/events", SECRET)
            run(fake, events, paper, ten_k)
        finally:
            bot.terminate()
            bot.wait(30)
    print("\nall steps passed" if not failures else f"\n{len(failures)} step(s) failed")
    return 1 if failures else 0


def run(fake: FakeSlack, events: EventSender, paper: Path, ten_k: Path) -> None:
    ch = "C1"

    def drop(path: Path) -> tuple[dict, dict]:
        file = fake.add_file(path.name, path.read_bytes())
        post = fake.user_post(ch, "sharing this", files=[file])
        events.send(fake.message_event(post))
        events.send(fake.file_shared(file, ch))
        return file, post

    def ask(text: str, *, thread: str | None = None, mention: bool = True):
        post = fake.user_post(ch, text, thread_ts=thread)
        key = thread or post["ts"]
        seen = len(final_messages(fake, ch, key))  # counted before the question is sent
        images = len([u for u in fake.shared_files(ch) if u.thread_ts == key])
        start = time.monotonic()
        if mention:
            events.send(fake.app_mention(post))
        events.send(fake.message_event(post))
        fake.wait_for(lambda: len(final_messages(fake, ch, key)) > seen, timeout=60)
        answered = time.monotonic() - start
        with_image = float("nan")  # an answer without verified citations has no image
        if "*Sources*" in shown_text(final_messages(fake, ch, key)[-1]):
            more = lambda: len([u for u in fake.shared_files(ch) if u.thread_ts == key]) > images  # noqa: E731
            fake.wait_for(more, 60)
            with_image = time.monotonic() - start
        return post, final_messages(fake, ch, key)[-1], answered, with_image

    def command(text: str) -> str:
        count = len(fake.responses)
        status, _, seconds = events.command(text, channel=ch, response_url=fake.response_url())
        check(status == 200 and seconds < 3, f"/papertrail {text} acked in {seconds * 1000:.0f} ms")
        fake.wait_for(lambda: len(fake.responses) > count, timeout=60)
        return shown_text(fake.responses[-1])

    print("\n1. share the Attention paper and a 10-K, no mention")
    start = time.monotonic()
    paper_file, paper_post = drop(paper)
    _, ten_k_post = drop(ten_k)
    for post in (paper_post, ten_k_post):
        fake.wait_for(lambda p=post: "+white_check_mark" in fake.reactions(ch, p["ts"]), 600)
    print(f"  both indexed unasked in {time.monotonic() - start:.1f} s (reactions ⏳ -> ✅)")
    downloads = len([c for c in fake.calls if c.method.startswith("GET /files-pri/")])
    check(downloads == 2, f"each file downloaded once (file_share + file_shared): {downloads}")
    check(fake.bot_messages(ch) == [], "no message posted for a successful drop")

    print('\n2. "How many identical layers are in the encoder stack?"')
    question, answer, t_answer, t_image = ask(
        "<@UBOT> How many identical layers are in the encoder stack?"
    )
    print("  " + answer["text"].replace("\n", "\n  "))
    print(f"  answer after {t_answer:.2f} s, with its image after {t_image:.2f} s")
    blocks = [e["text"] for b in answer["blocks"] for e in b.get("elements", [])]
    sources = next((t for t in blocks if t.startswith("*Sources*")), "")
    print("  sources:\n    " + sources.replace("\n", "\n    "))
    quoted = [line for line in sources.splitlines() if line.startswith("“")]
    check(bool(quoted), "the evidence is quoted under the citations")
    check(t_image <= 5.0, "answered with its image within 5 s")
    check("6" in answer["text"], "the answer gives the 6 layers")

    print('\n3. "And the decoder?" in the thread, no mention')
    _, follow, t_answer, t_image = ask("And the decoder?", thread=question["ts"], mention=False)
    print("  " + follow["text"].replace("\n", "\n  "))
    read_as = [line for line in shown_text(follow).splitlines() if "Read as:" in line]
    print(f"  {read_as[0] if read_as else '(no Read as line)'}")
    print(f"  answer after {t_answer:.2f} s, with its image after {t_image:.2f} s")
    check("decoder" in follow["text"].lower() and "6" in follow["text"], "about the decoder's 6")

    print("\n4. 30 unrelated messages, then a new question")
    for n in range(30):
        events.send(fake.message_event(fake.user_post(ch, f"unrelated chatter {n}")))
    _, answer, t_answer, t_image = ask("<@UBOT> What were Amazon's total net sales in 2017?")
    print("  " + answer["text"].replace("\n", "\n  ")[:600])
    print(f"  answer after {t_answer:.2f} s, with its image after {t_image:.2f} s")
    check(ten_k.name in shown_text(answer), f"answered from the library, citing {ten_k.name}")

    print("\n5. /papertrail list")
    listing = command("list")
    print("  " + listing.replace("\n", "\n  "))
    check(paper.name in listing and ten_k.name in listing, "list names both files")

    print("\n6. the paper is deleted (file_deleted)")
    fake.delete_file(paper_file["id"])
    events.send(fake.file_deleted(paper_file))
    deadline = time.monotonic() + 30
    while paper.name in (listing := command("list")) and time.monotonic() < deadline:
        time.sleep(0.5)
    print("  " + listing.replace("\n", "\n  "))
    check(paper.name not in listing, "list no longer names the paper")
    _, answer, _, _ = ask("<@UBOT> How many identical layers are in the encoder stack?")
    print("  " + answer["text"].replace("\n", "\n  ")[:400])
    check(paper.name not in shown_text(answer), "nothing of the paper is cited")


if __name__ == "__main__":
    raise SystemExit(main())
