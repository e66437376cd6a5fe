"""``python -m bot web`` as a real process: serves the page and /healthz, stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_python_m_bot_web_serves_the_page_and_stops_cleanly(tmp_path):
    port = _free_port()
    env = {**os.environ, "PAPERTRAIL_DATA_DIR": str(tmp_path / "data"), "GROQ_API_KEY": ""}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "--env-file", os.devnull, "web", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2) as res:
                    assert b'"web"' in res.read()
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.monotonic() < deadline, "the web channel did not start"
                time.sleep(0.3)
        with urllib.request.urlopen(base + "/w/team", timeout=5) as res:
            assert b"<title>PaperTrail</title>" in res.read()
            assert "papertrail_user=" in res.headers["Set-Cookie"]
        with urllib.request.urlopen(base + "/static/page.js", timeout=5) as res:
            assert b"X-PaperTrail" in res.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out.decode()
    assert f"http://127.0.0.1:{port}/" in out.decode()
