"""OCR of page images with RapidOCR (ONNX models shipped in the wheel), orientation included.

``RapidOcrEngine.read(png)`` returns the page's text lines in reading order,
each with its box in pixels of the image it was given, which is the seam
``pdf.read_pdf`` calls for pages without a text layer. Scans whose content is
turned by 90, 180 or 270 degrees are handled: the shape of the detected text
boxes and a quick reading of a few of them both ways up give the turn, the
lines are recognised upright, and their boxes are the ones found on the
original image, so highlights land on the words. Text boxes are found by
RapidOCR's detector run on OpenVINO where it loads (``ocr_detect.py``: a
third less memory at the ingest's peak), lines read by its recogniser on
ONNX Runtime.
Measuring it (the CER against a reference text, ``python -m
papertrail.measure.ocr_cer``) lives in ``papertrail/measure/ocr_cer.py``. Left
out: deskewing by small angles, handwriting, vertical CJK columns, per-word
boxes and languages other than the model's (Chinese + Latin script).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pymupdf

from papertrail.offline import offline_env
from papertrail.read.layout import TextBlock, TextLine, reading_order
from papertrail.types import Rect

DET_SIDE = 1600  # px: longest side of the copy text boxes are detected on ...
DET_PIXELS = 2.0e6  # ... and its most pixels: ~120 MB per million (OpenVINO bf16; ORT ~200)
PROBE_LINES = 6  # longest text boxes recognised per candidate orientation
SURE = 0.9  # mean confidence of the probe lines that settles the orientation at once
PROBE_RATIO = 12  # length / thickness of the piece of each line recognised while probing
MIN_SCORE = 0.5  # recognition confidence below which a line is dropped (RapidOCR default)
WORKERS = max(1, min(4, os.cpu_count() or 1))  # threads recognising lines at once
MAX_SIDE = 4000  # px: larger page images are shrunk first (memory; print stays legible)
DEFAULT_DPI = 200.0  # assumed when the PNG does not say (pdf.py renders at 200 dpi)

_lock = threading.Lock()
_engine: RapidOcrEngine | None = None


def available() -> bool:
    """True when rapidocr_onnxruntime is installed (without importing it: that takes ~1 s)."""
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def get_ocr() -> RapidOcrEngine | None:
    """The process-wide engine, or None when RapidOCR is not installed.

    Cheap: the models load on the first ``read``, so PDFs with a text layer
    never pay for them.
    """
    global _engine
    if not available():
        return None
    with _lock:
        if _engine is None:
            _engine = RapidOcrEngine()
        return _engine


class RapidOcrEngine:
    """Reads lines of text from page images; models loaded once, lazily.

    Thread-safe: one page is read at a time (RapidOCR's detector keeps per-call
    state on itself, and one page already keeps every core busy).
    """

    def __init__(self, *, orientation: bool = True) -> None:
        self.orientation = orientation
        self._ocr = None
        self.detector = ""  # what runs text detection, once loaded: "openvino bf16", ...
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        # long-lived threads: fresh ones per page would each grow their own malloc arena
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="papertrail-ocr")

    def read(self, png: bytes) -> list[tuple[str, Rect]]:
        """Lines of ``png`` in reading order, boxes in pixels of ``png`` as given."""
        return [(text, rect) for text, rect, _ in self.read_scored(png)[1]]

    def read_scored(self, png: bytes) -> tuple[int, list[tuple[str, Rect, float]]]:
        """(quarter turns applied to read it, lines with boxes and confidence)."""
        img, dpi = decode(png)
        h, w = img.shape[:2]
        shrink = min(1.0, MAX_SIDE / max(h, w))
        if shrink < 1.0:  # e.g. a 30-inch poster page at 200 dpi: 6000 x 6000 px
            img = _resize(img, shrink)
        with self._run_lock:
            try:
                turns, lines = self._read(img, dpi * shrink)
            finally:
                _trim()
        if shrink < 1.0:
            lines = [(t, _scaled(r, 1 / shrink, w, h), s) for t, r, s in lines]
        return turns, lines

    def _read(self, img: np.ndarray, dpi: float) -> tuple[int, list[tuple[str, Rect, float]]]:
        h, w = img.shape[:2]
        boxes = self.detect(img)
        turns = self.find_turns(img, boxes) if self.orientation else 0
        upright = np.ascontiguousarray(np.rot90(img, turns))
        up_boxes = [_order(rotate(b, turns, w, h)) for b in boxes]
        read = self.recognise(self._model().get_crop_img_list(upright, up_boxes))
        todo = []
        unit = 72.0 / dpi  # pixels -> points, the unit layout's thresholds are written in
        for box, up, (text, score, *_) in zip(boxes, up_boxes, read, strict=True):
            text = " ".join(str(text).split())
            if not text or float(score) < MIN_SCORE:
                continue
            rect = Rect(*box.min(axis=0).tolist(), *box.max(axis=0).tolist())
            upbox = (*up.min(axis=0) * unit, *up.max(axis=0) * unit)
            line = TextLine(text, upbox, rect, size=float(score))  # size carries the score
            todo.append(TextBlock([line]))
        lines = [ln for block in reading_order(todo) for ln in block.lines]
        return turns, [(ln.text, ln.rect, ln.size) for ln in lines]

    def recognise(self, crops: list[np.ndarray]) -> list[tuple]:
        """(text, confidence) of each line crop, the crops shared among WORKERS threads.

        ONNX Runtime's own threading (with its spin-waiting) made a page 1.5-2x
        slower on a busy 2-core machine than one thread per session run; so
        each run is single-threaded and the lines are spread over threads
        instead (the session is thread-safe and releases the GIL).
        """
        if not crops:
            return []
        rec = self._model().text_rec
        by_length = sorted(range(len(crops)), key=lambda i: -crops[i].shape[1] / crops[i].shape[0])
        shares = [by_length[k::WORKERS] for k in range(WORKERS)]  # dealt out: even loads
        out: list[tuple] = [("", 0.0)] * len(crops)
        runs = self._pool.map(lambda idx: (idx, rec([crops[i] for i in idx])[0]), shares)
        for idx, read in runs:
            for i, r in zip(idx, read, strict=True):
                out[i] = r
        return out

    def detect(self, img: np.ndarray) -> list[np.ndarray]:
        """Text boxes (4 x 2 float32 corner points, pixels of ``img``), found on a smaller copy.

        Detection time and memory grow with the image area; a letter page at
        1600 x 1236 px keeps 9-pt print detectable (1024 px lost lines of
        turned pages) while recognition still reads the full-resolution crops.
        """
        h, w = img.shape[:2]
        scale = min(1.0, DET_SIDE / max(h, w), (DET_PIXELS / (h * w)) ** 0.5)
        small = img if scale == 1.0 else _resize(img, scale)
        found, _ = self._model()(small, use_cls=False, use_rec=False)
        del small
        _trim()  # the detector's feature maps go back to the OS before lines are read
        return [np.asarray(b, dtype=np.float32) / np.float32(scale) for b in found or ()]

    def find_turns(self, img: np.ndarray, boxes: list[np.ndarray]) -> int:
        """Quarter turns counter-clockwise (``np.rot90``) that make ``img``'s text upright.

        The boxes' shape says whether lines run across (0 or 2 turns) or down
        the page (1 or 3); a piece of each of the longest few is then
        recognised both ways up and the reading with the most confident
        characters wins (confidence x characters). On the scans we tried the
        right way scored 0.79-0.99 per line and the wrong way 0.1-0.75, so a
        confident first reading is accepted without trying the other.
        """
        spans = []  # (length along the line, is_vertical, x0, y0, x1, y1)
        for pts in boxes:
            x0, y0 = pts.min(axis=0)
            x1, y1 = pts.max(axis=0)
            bw, bh = x1 - x0, y1 - y0
            if max(bw, bh) >= 2 * min(bw, bh):  # a line, not a blob or single glyph
                spans.append((max(bw, bh), bh > bw, int(x0), int(y0), int(x1) + 1, int(y1) + 1))
        if not spans:
            return 0
        down = sum(s[0] for s in spans if s[1])
        across = sum(s[0] for s in spans if not s[1])
        vertical = down > across
        best = sorted((s for s in spans if s[1] == vertical), reverse=True)[:PROBE_LINES]
        crops = [_middle(img[y0:y1, x0:x1], vertical) for _, _, x0, y0, x1, y1 in best]
        scores = {}
        for turns in (1, 3) if vertical else (0, 2):
            turned = [np.ascontiguousarray(np.rot90(c, turns)) for c in crops]
            read = self.recognise(turned)
            scores[turns] = sum(float(s) * len(t.strip()) for t, s, *_ in read)
            if np.mean([float(s) for _, s, *_ in read]) >= SURE:
                break  # upside-down lines read at 0.1-0.75: no need to try them
        return max(scores, key=scores.get)

    def _model(self):
        if self._ocr is None:
            with self._load_lock:
                if self._ocr is None:
                    offline_env()  # before onnxruntime is imported
                    from rapidocr_onnxruntime import RapidOCR

                    from papertrail.read.ocr_detect import detector_for

                    ocr = RapidOCR(intra_op_num_threads=1)  # see recognise()
                    ocr.text_rec.rec_batch_num = 1  # lines of unequal length: padding costs
                    self.detector = detector_for(ocr)  # OpenVINO: two thirds of the memory, faster
                    ocr.text_cls = None  # never used (use_cls=False): its session goes
                    self._ocr = ocr
        return self._ocr


def decode(png: bytes) -> tuple[np.ndarray, float]:
    """PNG/JPEG bytes -> (BGR uint8 array, dpi from the file or DEFAULT_DPI).

    One decode, by PyMuPDF (which reads the resolution too), then RGB -> BGR.
    """
    try:
        pix = pymupdf.Pixmap(png)
    except Exception as exc:
        raise ValueError("not an image MuPDF can decode") from exc
    if pix.alpha:
        pix = pymupdf.Pixmap(pix, 0)  # drop alpha
    if pix.colorspace is None or pix.colorspace.n != 3:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    # MuPDF reports 96 dpi for a PNG without a pHYs chunk: such a file states nothing
    says = not png.startswith(b"\x89PNG") or b"pHYs" in png[: png.find(b"IDAT")]
    dpi = float(pix.xres) if says and pix.xres else DEFAULT_DPI
    return np.ascontiguousarray(rgb[:, :, 2::-1]), dpi


def rotate(pts: np.ndarray, turns: int, w: int, h: int) -> np.ndarray:
    """Points (x, y) in an image of w x h px -> the same points in ``np.rot90(img, turns)``."""
    x, y = pts[:, 0], pts[:, 1]
    turns %= 4
    if turns == 1:  # counter-clockwise: the right edge becomes the top
        out = (y, w - x)
    elif turns == 2:
        out = (w - x, h - y)
    elif turns == 3:
        out = (h - y, x)
    else:
        out = (x, y)
    return np.stack(out, axis=1).astype(np.float32)


def _scaled(r: Rect, k: float, w: int, h: int) -> Rect:
    return Rect(r.x0 * k, r.y0 * k, min(w, r.x1 * k), min(h, r.y1 * k))


def _trim() -> None:
    """Hand freed memory back to the OS (glibc keeps it after big, oddly sized tensors)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _order(pts: np.ndarray) -> np.ndarray:
    """Corners as top-left, top-right, bottom-right, bottom-left (what the cropper expects)."""
    total, diff = pts.sum(axis=1), pts[:, 1] - pts[:, 0]
    return pts[[np.argmin(total), np.argmin(diff), np.argmax(total), np.argmax(diff)]]


def _middle(crop: np.ndarray, vertical: bool) -> np.ndarray:
    """The middle of a line crop, at most PROBE_RATIO times as long as it is thick.

    Recognition time grows with a line's length, and a dozen characters are
    plenty to tell which way up it is.
    """
    h, w = crop.shape[:2]
    if vertical:
        keep = min(h, PROBE_RATIO * w)
        return crop[(h - keep) // 2 : (h + keep) // 2]
    keep = min(w, PROBE_RATIO * h)
    return crop[:, (w - keep) // 2 : (w + keep) // 2]


def _resize(img: np.ndarray, scale: float) -> np.ndarray:
    import cv2

    size = (max(1, round(img.shape[1] * scale)), max(1, round(img.shape[0] * scale)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)
