"""The web page as a new user meets it, in a real headless Chromium: what the library says
of each document, wording with no "mention", a conversation that survives a reload in its
own workspace only, Forget that asks first, the keyboard, a phone's width, dark mode, and
copying an answer with its citations.

Served by the real aiohttp app on a real ``ChatService`` and pipeline (hash embedder).
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from papertrail.cli.sample import sample_report
from tests import pdfs
from tests.chromium import chromium, dark, narrow, wait
from tests.web_server import serving, web_service

QUESTION = "What was the net income?"


@pytest.fixture
def site(tmp_path):
    (tmp_path / "report.pdf").write_bytes(sample_report())
    (tmp_path / "paper.pdf").write_bytes(pdfs.paper_pdf())
    with serving(web_service(tmp_path / "data")) as base:
        yield base, tmp_path


def _upload(driver, path, name: str) -> None:
    driver.find_element(By.ID, "file").send_keys(str(path))
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#library li[data-name="{name}"]'))
    wait(driver, lambda d: f"Indexed {name}" in d.find_element(By.ID, "uploads").text)


def _replies(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#messages .msg.bot:not(:has(.progress))")


def _ask(driver, question: str):
    count = len(_replies(driver)) + 1
    driver.find_element(By.ID, "question").send_keys(question, Keys.ENTER)
    wait(driver, lambda d: len(_replies(d)) >= count)
    return _replies(driver)[count - 1]


def test_the_library_says_what_each_document_is_and_nobody_is_told_to_mention(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile") as driver:
        driver.get(f"{base}/w/team")
        empty = wait(driver, lambda d: d.find_element(By.ID, "library-empty").text)
        assert "Upload a PDF and ask me about it" in empty
        _upload(driver, files / "paper.pdf", "paper.pdf")
        item = driver.find_element(By.CSS_SELECTOR, '#library li[data-name="paper.pdf"]')
        # title · kind · period, as `list` prints it (a paper has a title only)
        assert item.find_element(By.CSS_SELECTOR, ".about").text == pdfs.PAPER_TITLE
        assert "4 pages" in item.text
        uploads = driver.find_element(By.ID, "uploads").text
        assert "Indexed paper.pdf. Ask me a question about it." in uploads
        driver.find_element(By.ID, "question").send_keys("help", Keys.ENTER)
        wait(driver, lambda d: _replies(d))
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "mention" not in page.lower(), page


def test_forget_asks_first_and_clears_the_indexed_line(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile") as driver:
        driver.get(f"{base}/w/team")
        _upload(driver, files / "report.pdf", "report.pdf")
        item = driver.find_element(By.CSS_SELECTOR, '#library li[data-name="report.pdf"]')
        item.find_element(By.CSS_SELECTOR, "button.forget").click()
        confirm = item.find_element(By.CSS_SELECTOR, ".confirm")
        assert "Forget report.pdf?" in confirm.text
        confirm.find_element(By.XPATH, ".//button[text()='Cancel']").click()
        assert not item.find_elements(By.CSS_SELECTOR, ".confirm")
        driver.refresh()  # nothing was forgotten: it is still there after a reload
        item = wait(
            driver, lambda d: d.find_element(By.CSS_SELECTOR, '#library li[data-name="report.pdf"]')
        )
        driver.get(f"{base}/w/team")
        _upload(driver, files / "report.pdf", "report.pdf")  # the line to clear, again
        item = driver.find_element(By.CSS_SELECTOR, '#library li[data-name="report.pdf"]')
        item.find_element(By.CSS_SELECTOR, "button.forget").click()
        item.find_element(By.CSS_SELECTOR, ".confirm button.danger").click()
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#library li"))
        wait(driver, lambda d: "Forgot report.pdf." in d.find_element(By.ID, "messages").text)
        assert "Indexed report.pdf" not in driver.find_element(By.ID, "uploads").text
        _upload(driver, files / "report.pdf", "report.pdf")
        _ask(driver, "forget report.pdf")  # typed as a command: the same clean-up
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#library li"))
        wait(driver, lambda d: "Indexed" not in d.find_element(By.ID, "uploads").text)


def test_a_reload_keeps_the_conversation_of_its_workspace_only(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile") as driver:
        driver.get(f"{base}/w/team")
        _upload(driver, files / "report.pdf", "report.pdf")
        first = _ask(driver, QUESTION)
        assert "1,577,000" in first.text
        driver.refresh()
        kept = wait(driver, lambda d: _replies(d))
        assert "1,577,000" in kept[0].find_element(By.CSS_SELECTOR, ".text").text
        assert "report.pdf, page" in kept[0].find_element(By.CSS_SELECTOR, ".source").text
        assert QUESTION in driver.find_element(By.CSS_SELECTOR, ".msg.you").text
        follow_up = _ask(driver, "And the dividend?")  # still the same conversation
        assert "Read as:" in follow_up.find_element(By.CSS_SELECTOR, ".footer").text

        driver.get(f"{base}/w/elsewhere")  # the same browser, another workspace
        wait(driver, lambda d: d.find_element(By.ID, "library-empty").text)
        assert not driver.find_elements(By.CSS_SELECTOR, "#messages .msg")
        assert "1,577,000" not in driver.find_element(By.TAG_NAME, "body").text

        driver.get(f"{base}/w/team")
        wait(driver, lambda d: len(_replies(d)) == 2)
        driver.find_element(By.ID, "new-conversation").click()
        driver.refresh()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#library li"))
        assert not driver.find_elements(By.CSS_SELECTOR, "#messages .msg")


def test_the_keyboard_opens_the_picker_and_escape_closes_the_picture(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile") as driver:
        driver.get(f"{base}/w/team")
        wait(driver, lambda d: d.find_element(By.ID, "library-empty").text)
        # the picker is the file input's click: count them instead of opening a dialog
        driver.execute_script(
            "window.picked = 0; document.getElementById('file')"
            ".addEventListener('click', (e) => { window.picked++; e.preventDefault(); });"
        )
        drop = driver.find_element(By.ID, "drop")
        assert drop.get_attribute("tabindex") == "0"
        drop.send_keys(Keys.ENTER)
        drop.send_keys(Keys.SPACE)
        assert driver.execute_script("return window.picked") == 2
        assert driver.execute_script("return window.scrollY") == 0  # Space did not scroll

        _upload(driver, files / "report.pdf", "report.pdf")
        answer = _ask(driver, QUESTION)
        image = answer.find_element(By.CSS_SELECTOR, ".source img")
        wait(driver, lambda d: d.execute_script("return arguments[0].naturalWidth", image) > 0)
        image.click()
        lightbox = driver.find_element(By.ID, "lightbox")
        wait(driver, lambda d: lightbox.is_displayed())
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait(driver, lambda d: not lightbox.is_displayed())
        image.send_keys(Keys.ENTER)  # the picture itself takes the keyboard too
        wait(driver, lambda d: lightbox.is_displayed())
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait(driver, lambda d: not lightbox.is_displayed())


def test_a_phone_width_has_no_overflow_and_dark_mode_is_dark(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile", size=(390, 844)) as driver:
        narrow(driver)
        driver.get(f"{base}/w/team")
        _upload(driver, files / "report.pdf", "report.pdf")
        _ask(driver, QUESTION)
        width = driver.execute_script("return document.documentElement.clientWidth")
        assert width == 390
        overflow = "return document.documentElement.scrollWidth"
        assert driver.execute_script(overflow) <= width
        for part in ("#question", "form#ask button[type=submit]", "#new-conversation", "#drop"):
            box = driver.find_element(By.CSS_SELECTOR, part).rect
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (part, box)
        driver.save_screenshot(str(tmp_path / "narrow.png"))

        def colours():
            return driver.execute_script(
                "const s = getComputedStyle(document.body);return [s.backgroundColor, s.color];"
            )

        light = colours()
        dark(driver)
        night = colours()
        driver.save_screenshot(str(tmp_path / "dark.png"))
        assert _luminance(light[0]) > 0.8 and _luminance(light[1]) < 0.3
        assert _luminance(night[0]) < 0.15 and _luminance(night[1]) > 0.7
        assert driver.execute_script(overflow) <= width


def _luminance(css: str) -> float:
    """0 (black) to 1 (white), from an ``rgb(r, g, b)`` colour."""
    r, g, b = (int(x) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_an_answer_is_copied_with_its_citations(site, tmp_path):
    base, files = site
    with chromium(tmp_path / "profile") as driver:
        driver.get(f"{base}/w/team")
        _upload(driver, files / "report.pdf", "report.pdf")
        answer = _ask(driver, QUESTION)
        driver.execute_script(  # the clipboard as the page sees it, readable by the test
            "window.copied = null; Object.defineProperty(navigator, 'clipboard', {value:"
            " {writeText: (t) => { window.copied = t; return Promise.resolve(); }}});"
        )
        button = answer.find_element(By.CSS_SELECTOR, "button.copy")
        button.click()
        wait(driver, lambda d: "Copied" in button.text)
        copied = driver.execute_script("return window.copied")
        text = answer.find_element(By.CSS_SELECTOR, ".text").text
        assert copied.startswith(text) and "1,577,000" in copied
        assert "Sources:\n[1] report.pdf, page " in copied and "Net income" in copied
        assert "citation verified" in copied
