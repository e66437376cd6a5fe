"""The load benchmark's documents: one small wind-farm report per channel, with Q&A.

Each channel gets a different two-page PDF about one site, so answers can be
checked for the right fact and never mix channels.
"""

from __future__ import annotations

import pymupdf

SITES = ["Aldergrove", "Brightwater", "Cinderford", "Dunmore", "Elmstead", "Fernhill",
         "Glenrock", "Hollowmere", "Ivybridge", "Juniper Bay", "Kingsreach"]  # fmt: skip
FACTS = [  # (question, sentence with {site} and {n}, expected text with {n})
    ("How many turbines does the {site} wind farm have?",
     "The {site} wind farm has {n} turbines on the northern ridge.", "{n} turbines"),
    ("When did the {site} wind farm open?",
     "The {site} wind farm opened in {year} after two years of construction.", "{year}"),
    ("What does the {site} wind farm cost to run each year?",
     "Running the {site} wind farm costs {n}.5 million euros each year.", "{n}.5 million"),
    ("How many people work at the {site} wind farm?",
     "A staff of {staff} engineers works at the {site} wind farm.", "{staff} engineers"),
    ("How often are the {site} gearboxes inspected?",
     "The {site} gearboxes are inspected every {months} months.", "{months} months"),
]  # fmt: skip


def channel_pdf(site: str, k: int) -> tuple[bytes, list[tuple[str, str]]]:
    """A two-page report about one wind farm; its (question, expected answer) pairs."""
    values = {"site": site, "n": 20 + 7 * k, "year": 1995 + k, "staff": 40 + 3 * k,
              "months": 6 + k}  # fmt: skip
    sentences = [f.format(**values) for _, f, _ in FACTS]
    filler = (f"The {site} site lies on open moorland. Access roads were rebuilt in the spring. "
              "Noise is monitored at the three nearest farms. ") * 4  # fmt: skip
    doc = pymupdf.open()
    for text in (
        f"{site} wind farm annual report. {filler}" + " ".join(sentences[:3]),
        filler + " ".join(sentences[3:]),
    ):
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=11, fontname="helv")
    qa = [(q.format(**values), e.format(**values)) for q, _, e in FACTS]
    return doc.tobytes(), qa
