"""Where a run of text is cut into table rows or readable pieces.

Shared by the verifier, which judges a claim against sentences and rows
(``verify/evidence.py``), and the offline answerer, which quotes them
(``answer/quotable.py``): both must cut a table run the same way. Only the
thresholds and the row boundary live here; the cutting is each caller's.
"""

from __future__ import annotations

import re

MAX_CHARS = 400  # longer units are cut at spaces: a judged or quoted span stays readable
TABLE_NUMBERS = 6  # a "sentence" with this many numbers, and
TABLE_SHARE = 0.3  # this share of its words numbers, is a table run: cut into rows
ROW_START = re.compile(r"(?<=[\d)%\u2014-])\s+(?=[A-Z][a-z])")  # "... 3,033 Basic earnings"
