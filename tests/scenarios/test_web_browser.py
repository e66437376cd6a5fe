"""The web channel in a real headless Chromium, driven by Selenium as a person would use it.

Debian's ``chromium`` and ``chromium-driver`` (``tests/chromium.py``). The page is
served by the real aiohttp app on a real ``ChatService`` and pipeline (hash embedder),
from a thread.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from papertrail.cli.sample import sample_report
from tests.chromium import chromium
from tests.chromium import wait as _wait
from tests.web_server import serving, web_service


@pytest.fixture
def browser(tmp_path):
    with chromium(tmp_path / "chromium-profile") as driver:
        yield driver


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
