"""What an rprof roofline SVG drew, read back: its texts with their boxes, its frame, its
series with their placement data.

A text's box is computed as rprof's label placer computes it (profiler/report/label_placement.h:
the SVG draws every text in a monospace font with text-anchor start): the box starts at x,
reaches ASCENT_EM * font-size above the baseline y, is LINE_EM * font-size tall and
CHAR_WIDTH_EM * font-size wide per character.
"""

import xml.etree.ElementTree as ET

CHAR_WIDTH_EM = 0.6
ASCENT_EM = 1.0
LINE_EM = 1.25
# Coordinates are written with two decimals: boxes that touch may seem to overlap by that much.
TOLERANCE = 0.02


def local(tag):
    return tag.rsplit("}", 1)[-1]


def text_of(element):
    """A <text>'s own characters, without those of a <title> inside it."""
    parts = [element.text or ""]
    for child in element:
        if local(child.tag) != "title":
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return "".join(parts)


def parse(svg_text):
    return ET.fromstring(svg_text)


def texts(root):
    """[(class, text, box)] for every <text>; box = (x, y, w, h) with y downwards."""
    out = []
    for e in root.iter():
        if local(e.tag) != "text":
            continue
        text = text_of(e)
        font = float(e.get("font-size"))
        x, baseline = float(e.get("x")), float(e.get("y"))
        anchor = e.get("text-anchor", "start")
        assert anchor == "start", f"text {text!r} is anchored {anchor}"
        box = (x, baseline - ASCENT_EM * font, len(text) * CHAR_WIDTH_EM * font, LINE_EM * font)
        out.append((e.get("class", ""), text, box))
    return out


def overlaps(a, b):
    return (a[0] < b[0] + b[2] - TOLERANCE and b[0] < a[0] + a[2] - TOLERANCE
            and a[1] < b[1] + b[3] - TOLERANCE and b[1] < a[1] + a[3] - TOLERANCE)


def inside(inner, outer):
    return (inner[0] >= outer[0] - TOLERANCE and inner[1] >= outer[1] - TOLERANCE
            and inner[0] + inner[2] <= outer[0] + outer[2] + TOLERANCE
            and inner[1] + inner[3] <= outer[1] + outer[3] + TOLERANCE)


def frame(root):
    for e in root.iter():
        if local(e.tag) == "rect" and e.get("id") == "frame":
            return tuple(float(e.get(k)) for k in ("x", "y", "width", "height"))
    raise AssertionError("no <rect id='frame'> in the SVG")


def overlapping_texts(root):
    """Every pair of texts whose boxes overlap: [(text, text)]."""
    all_texts = texts(root)
    bad = []
    for i, (_, ta, a) in enumerate(all_texts):
        for _, tb, b in all_texts[i + 1:]:
            if overlaps(a, b):
                bad.append((ta, tb))
    return bad


PLOT_LABELS = ("run-label", "roof-label", "edge-label", "arrow-label")


def labels_outside_frame(root):
    f = frame(root)
    return [t for cls, t, box in texts(root) if cls in PLOT_LABELS and not inside(box, f)]


def series(root):
    """Every <g class='series'>'s data-* attributes, with its points' as 'points'."""
    out = []
    for e in root.iter():
        if local(e.tag) == "g" and "series" in e.get("class", "").split():
            item = {k[5:]: v for k, v in e.attrib.items() if k.startswith("data-")}
            item["points"] = [{k[5:]: v for k, v in p.attrib.items() if k.startswith("data-")}
                              for p in e.iter() if local(p.tag) == "path"
                              and p.get("class") == "point"]
            out.append(item)
    return out


def leaders_off_their_label(root):
    """Leader lines (a label placed away from its point) whose end is not on the box of the
    label of the same run: [run]."""
    boxes = {}
    for e in root.iter():
        if local(e.tag) == "text" and e.get("class") == "run-label" and e.get("data-run"):
            font = float(e.get("font-size"))
            x, baseline = float(e.get("x")), float(e.get("y"))
            boxes[e.get("data-run")] = (x, baseline - ASCENT_EM * font,
                                        len(text_of(e)) * CHAR_WIDTH_EM * font, LINE_EM * font)
    bad = []
    for e in root.iter():
        if local(e.tag) == "line" and e.get("class") == "leader":
            run = e.get("data-run")
            end = (float(e.get("x2")), float(e.get("y2")), 0, 0)
            if run not in boxes or not inside(end, boxes[run]):
                bad.append(run)
    return bad


def roof_lines(root):
    """[(ceiling, (x1, y1, x2, y2))] for every <line class='roof'>."""
    return [(e.get("data-ceiling"), tuple(float(e.get(k)) for k in ("x1", "y1", "x2", "y2")))
            for e in root.iter() if local(e.tag) == "line" and e.get("class") == "roof"]


def crosses(segment, box):
    """Whether the segment passes through the box shrunk by TOLERANCE (Liang-Barsky)."""
    x0, y0, x1, y1 = segment
    bx, by = box[0] + TOLERANCE, box[1] + TOLERANCE
    br, bb = box[0] + box[2] - TOLERANCE, box[1] + box[3] - TOLERANCE
    t0, t1 = 0.0, 1.0
    dx, dy = x1 - x0, y1 - y0
    for p, q in ((-dx, x0 - bx), (dx, br - x0), (-dy, y0 - by), (dy, bb - y0)):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    return t0 < t1


def labels_on_roof_lines(root):
    """Every label on the plot whose box a roof line passes through: [(text, ceiling)]."""
    lines = roof_lines(root)
    return [(t, ceiling) for cls, t, box in texts(root) if cls in PLOT_LABELS
            for ceiling, segment in lines if crosses(segment, box)]
