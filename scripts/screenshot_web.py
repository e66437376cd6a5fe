"""Screenshot of the web channel answering a question, for the README (docs/web-page.png).

Starts the real ``python -m bot web`` (offline, bundled model) on a free
loopback port with a fresh data folder, uploads the sample report in headless
Chromium, asks a question and saves the page. Needs Debian's chromium and
chromium-driver (``make test`` installs them) and selenium (the dev extra).

    .venv/bin/python scripts/screenshot_web.py docs/web-page.png
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from papertrail.cli.sample import sample_report

QUESTION = "What was the net income?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(out: str) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="papertrail-shot-"))
    (tmp / "report.pdf").write_bytes(sample_report())
    port = free_port()
    env = {**os.environ, "PAPERTRAIL_DATA_DIR": str(tmp / "data"), "SE_OFFLINE": "true"}
    server = subprocess.Popen(
        [sys.executable, "-m", "bot", "web", "--port", str(port)], env=env, cwd=tmp
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,860",
                     "--disable-background-networking", "--no-first-run",
                     f"--user-data-dir={tmp / 'profile'}"):  # fmt: skip
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        wait = WebDriverWait(driver, 120)
        try:
            driver.get(f"{base}/w/northwind")
            driver.find_element(By.ID, "file").send_keys(str(tmp / "report.pdf"))
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#library li[data-name]"))
            driver.find_element(By.ID, "question").send_keys(QUESTION)
            driver.find_element(By.CSS_SELECTOR, "form#ask button[type=submit]").click()
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.bot .source img"))
            img = driver.find_element(By.CSS_SELECTOR, ".msg.bot .source img")
            wait.until(lambda d: d.execute_script("return arguments[0].naturalWidth", img) > 0)
            driver.save_screenshot(out)
        finally:
            driver.quit()
    finally:
        server.terminate()
        server.wait(30)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/web-page.png"))
