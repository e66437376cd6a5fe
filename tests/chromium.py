"""A headless Chromium for the web page tests, driven by Selenium (never fetching a driver).

Debian's ``chromium`` and ``chromium-driver`` (``make test`` installs them when
missing). ``chromium`` yields a driver with its own profile in ``profile``;
``narrow`` and ``dark`` emulate a phone's width and the system's dark mode
through the DevTools protocol, as the browser would report them to the page.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT = 60  # seconds: generous, the machine is shared


@contextmanager
def chromium(profile: Path, size: tuple[int, int] = (1280, 900)):
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
        f"--window-size={size[0]},{size[1]}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, condition, timeout=WAIT):
    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: condition(d))


def narrow(driver, width: int = 390, height: int = 844) -> None:
    """Lay the page out as a phone of ``width`` CSS pixels would (an iPhone's 390)."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def dark(driver, on: bool = True) -> None:
    """Tell the page the system prefers a dark colour scheme (or stop saying so)."""
    features = [{"name": "prefers-color-scheme", "value": "dark" if on else "light"}]
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})
