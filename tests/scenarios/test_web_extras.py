"""The web page's suggested-question chips and 👍/👎, in a real headless Chromium.

Same set-up as test_web_browser.py (its ``browser`` fixture), with the service
offering suggestions as the bots run it.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By

from papertrail.cli.sample import sample_report
from tests.scenarios.test_web_browser import _replies, _wait, browser  # noqa: F401 (fixture)
from tests.web_server import serving, web_service


def test_a_chip_asks_its_question_and_a_thumb_is_recorded_once(browser, tmp_path):  # noqa: F811
    report = tmp_path / "report.pdf"
    report.write_bytes(sample_report())
    service = web_service(tmp_path / "data")
    service.suggest = True
    with serving(service) as base:
        browser.get(f"{base}/w/team")
        browser.find_element(By.ID, "file").send_keys(str(report))
        chips = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#uploads .chip"))
        assert 2 <= len(chips) <= 3
        question = chips[0].text
        chips[0].click()
        _wait(browser, lambda d: len(_replies(d)) >= 1)
        answer = _replies(browser)[0]
        assert question in browser.find_element(By.ID, "messages").text  # shown as asked
        assert "citation" in answer.find_element(By.CSS_SELECTOR, ".footer").text
        down = answer.find_element(By.CSS_SELECTOR, ".feedback button[data-verdict=down]")
        down.click()
        note = answer.find_element(By.CSS_SELECTOR, ".feedback .note")
        _wait(browser, lambda d: "recorded" in note.text)
        down.click()
        _wait(browser, lambda d: "already" in note.text)
        assert down.get_attribute("aria-pressed") == "true"
        votes = service.feedback.votes("web:team")
        assert [v["verdict"] for v in votes] == ["down"]
