"""A sample PDF for the demo: a short annual report written for PaperTrail.

The text is original (a fictional tidal-energy cooperative), so the demo needs
no downloaded or third-party document. It has what real reports have: a
two-column page, a table of figures, numbers written several ways, and a
rotated appendix page. It is not a test fixture (tests build their own).
"""

from __future__ import annotations

import pymupdf

TITLE = "Northwind Tidal Cooperative — Annual Report 2025"

INTRO = (
    "Northwind Tidal Cooperative operates a tidal stream array in the Pentland Firth. "
    "The cooperative is owned by 4,312 member households and was founded in 2016. "
    "In 2025 the array generated 61.8 GWh of electricity, up from 48.2 GWh in 2024, "
    "because eleven new turbines entered service in March. The array now has 38 turbines "
    "with a combined capacity of 57 MW. Availability, the share of hours in which a turbine "
    "could generate, reached 93.4 percent."
)

LEFT = (
    "Operations. The turbines sit on the seabed at a depth of 35 to 45 metres. Each turbine "
    "has three blades with a rotor diameter of 18 metres and is rated at 1.5 MW. "
    "Maintenance crews recover one turbine at a time with the vessel Skerry Lass; a full "
    "service takes nine days. In 2025 the crews completed 27 planned services and 6 "
    "unplanned recoveries, the most common cause being a failed pitch bearing. "
    "Storm Eowyn in January stopped generation for four days, but no turbine was damaged."
)

RIGHT = (
    "Environment. Acoustic monitoring found no change in the number of harbour porpoise "
    "detections within two kilometres of the array compared with the 2016 baseline. "
    "Seabird surveys recorded 212 black guillemots on the nearby cliffs. The cooperative "
    "estimates that its 2025 output avoided 12,400 tonnes of carbon dioxide, based on the "
    "grid average emission factor of 0.2 kg per kWh published by the national operator."
)

FINANCE = (
    "Finance. Revenue rose to £9.27 million (2024: £7.05 million). Operating costs were "
    "£5.10 million, of which maintenance accounted for £2.3 million. Net income was "
    "£1,577,000, and members received a dividend of 4.5 percent on their shares. The "
    "cooperative repaid £2.0 million of its construction loan, leaving £14.6 million "
    "outstanding at year end."
)

TABLE = [
    ("Quarter", "Output (GWh)", "Availability", "Revenue (£m)"),
    ("Q1 2025", "13.9", "88.1%", "2.08"),
    ("Q2 2025", "16.2", "95.0%", "2.43"),
    ("Q3 2025", "15.7", "94.6%", "2.36"),
    ("Q4 2025", "16.0", "95.9%", "2.40"),
    ("Total", "61.8", "93.4%", "9.27"),
]

OUTLOOK = (
    "Outlook. The board plans to add six turbines in 2027, subject to a grid connection "
    "offer. The cooperative will ask members to approve a share issue of £3 million at the "
    "annual meeting on 14 May 2026. No dividend increase is planned for 2026."
)

APPENDIX = (
    "Appendix A. Turbine serial numbers NT-001 to NT-038 are registered with the "
    "Marine Directorate. The maintenance vessel Skerry Lass is chartered until 2029."
)


def sample_report() -> bytes:
    """Return the bytes of the four-page sample report."""
    doc = pymupdf.open()
    w, h = pymupdf.paper_size("a4")

    page = doc.new_page(width=w, height=h)
    page.insert_text((56, 70), TITLE, fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(56, 95, w - 56, 260), INTRO, fontsize=11)
    col = (w - 56 * 2 - 24) / 2
    page.insert_textbox(pymupdf.Rect(56, 270, 56 + col, h - 60), LEFT, fontsize=10.5)
    page.insert_textbox(pymupdf.Rect(56 + col + 24, 270, w - 56, h - 60), RIGHT, fontsize=10.5)

    page = doc.new_page(width=w, height=h)
    page.insert_textbox(pymupdf.Rect(56, 60, w - 56, 220), FINANCE, fontsize=11)
    page.insert_text((56, 250), "Table 1. Quarterly results, 2025", fontsize=11, fontname="hebo")
    y = 275
    xs = (56, 180, 300, 420)
    for row in TABLE:
        for x, cell in zip(xs, row, strict=True):
            page.insert_text((x, y), cell, fontsize=10.5)
        y += 20

    page = doc.new_page(width=w, height=h)
    page.insert_textbox(pymupdf.Rect(56, 60, w - 56, 220), OUTLOOK, fontsize=11)

    page = doc.new_page(width=w, height=h)
    page.insert_textbox(pymupdf.Rect(56, 60, w - 56, 200), APPENDIX, fontsize=11)
    page.set_rotation(90)  # a landscape appendix, as scanned reports often have
    data = doc.tobytes()
    doc.close()
    return data


QUESTIONS = (
    "How much electricity did the array generate in 2025?",
    "What was the net income?",
    "How many turbines does the array have, and what is their combined capacity?",
    "Who is the cooperative's chief executive?",
)
