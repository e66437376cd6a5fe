"""The web channel in a real headless Chromium, driven by Selenium as a person would use it.

Debian's ``chromium`` and ``chromium-driver`` (``make test`` installs them when
missing, as it does redis-server). The page is served by the real aiohttp app
on a real ``ChatService`` and pipeline (hash embedder), from a thread.
"""

from __future__ import annotations

import os
import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from papertrail.cli.sample import sample_report
from tests.web_server import serving, web_service

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT = 60  # seconds: generous, the machine is shared


@pytest.fixture
def browser(tmp_path):
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium must never fetch a driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver, condition, timeout=WAIT):
    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: condition(d))


def _replies(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".msg.bot:not(:has(.progress))")


def _ask(driver, question: str, count: int):
    box = driver.find_element(By.ID, "question")
    box.send_keys(question)
    driver.find_element(By.CSS_SELECTOR, "form#ask button[type=submit]").click()
    _wait(driver, lambda d: len(_replies(d)) >= count)
    return _replies(driver)[count - 1]


def test_upload_ask_see_the_marked_page_follow_up_refusal_and_isolation(browser, tmp_path):
    report = tmp_path / "report.pdf"
    report.write_bytes(sample_report())
    notes = tmp_path / "notes.txt"
    notes.write_text("not a pdf")
    with serving(web_service(tmp_path / "data")) as base:
        browser.get(f"{base}/w/team")
        assert browser.find_element(By.ID, "workspace").text == "team"
        browser.find_element(By.ID, "file").send_keys(str(report))
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#library li[data-name]"))
        assert "Indexed report.pdf" in browser.find_element(By.ID, "uploads").text

        answer = _ask(browser, "What was the net income?", 1)
        assert "1,577,000" in answer.find_element(By.CSS_SELECTOR, ".text").text
        assert "citation verified" in answer.find_element(By.CSS_SELECTOR, ".footer").text
        source = answer.find_element(By.CSS_SELECTOR, ".source")
        assert "report.pdf, page" in source.text and "Net income" in source.text
        image = source.find_element(By.TAG_NAME, "img")
        loaded = "return arguments[0].complete && arguments[0].naturalWidth"
        _wait(browser, lambda d: d.execute_script(loaded, image) > 0)
        image.click()  # enlarges in the lightbox
        _wait(browser, lambda d: d.find_element(By.ID, "lightbox").is_displayed())
        browser.find_element(By.ID, "lightbox").click()

        follow_up = _ask(browser, "And the dividend?", 2)
        assert follow_up.find_elements(By.CSS_SELECTOR, ".source")
        assert "dividend" in follow_up.text.lower()

        browser.find_element(By.ID, "file").send_keys(str(notes))
        _wait(browser, lambda d: "is not a PDF" in d.find_element(By.ID, "uploads").text)

        browser.get(f"{base}/w/elsewhere")
        _wait(browser, lambda d: d.find_element(By.ID, "library-empty").text)
        assert not browser.find_elements(By.CSS_SELECTOR, "#library li")
        refused = _ask(browser, "What was the net income?", 1)
        assert "1,577,000" not in refused.text and "don't see a PDF" in refused.text
