#!/usr/bin/env python3
"""Checks a picture of `rankmap plot` from its SVG file alone (the standard
library's XML parser; no code shared with rankmap), against values the
test worked out by hand. Prints one line per failed check, exits 1 if any.

  check_svg.py FILE.svg text WORD...        each WORD is the whole text of a
                                            <text> element (searchable text)
  check_svg.py FILE.svg hottest NAME BYTES  a link titled "NAME: BYTES" is
                                            drawn, and a ring of class
                                            "hottest" naming it sits on its
                                            middle
  check_svg.py FILE.svg links N             N link strokes (class "link")
  check_svg.py FILE.svg title CLASS TITLE   a CLASS element titled TITLE
  check_svg.py FILE.svg count CLASS N       N elements of class CLASS
  check_svg.py FILE.svg ticks K             at least K labelled colour-bar
                                            ticks: the labels JSON lists are
                                            given after K (--json's
                                            scale.labels), each a <text>
"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def load(path):
    root = ET.parse(path).getroot()
    shapes = []
    for e in root.iter():
        tag = e.tag.replace(NS, "")
        title = e.find(NS + "title")
        shapes.append((tag, e.get("class", ""), title.text if title is not None else "", e))
    return root, shapes


def main():
    path, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    root, shapes = load(path)
    texts = [e.text or "" for tag, _, _, e in shapes if tag == "text"]
    problems = []
    if any(tag in ("symbol", "path", "use") for tag, _, _, _ in shapes):
        problems.append("glyph outlines (<symbol>, <path> or <use>): text must stay text")
    if what == "text":
        problems += [f"no <text> reads '{w}'" for w in args if w not in texts]
    elif what == "hottest":
        name, size = args
        lines = [e for tag, cls, title, e in shapes if cls == "link" and title == f"{name}: {size}"]
        rings = [e for tag, cls, title, e in shapes if cls == "hottest" and title.endswith(f": {name}, {size}")]
        if not lines:
            problems.append(f"no link titled '{name}: {size}'")
        if len(rings) != 1:
            problems.append(f"{len(rings)} rings name '{name}, {size}', expected 1")
        if lines and len(rings) == 1:
            ring = rings[0]
            cx, cy = float(ring.get("cx")), float(ring.get("cy"))
            on = [l for l in lines
                  if abs((float(l.get("x1")) + float(l.get("x2"))) / 2 - cx) < 0.02
                  and abs((float(l.get("y1")) + float(l.get("y2"))) / 2 - cy) < 0.02]
            if not on:
                problems.append(f"the ring at ({cx}, {cy}) is not on the middle of '{name}'")
    elif what == "links":
        n = sum(1 for _, cls, _, _ in shapes if cls == "link")
        if n != int(args[0]):
            problems.append(f"{n} link strokes, expected {args[0]}")
    elif what == "title":
        cls, want = args
        if not any(c == cls and t == want for _, c, t, _ in shapes):
            near = [t for _, c, t, _ in shapes if c == cls][:3]
            problems.append(f"no {cls} titled '{want}' (some are: {near})")
    elif what == "count":
        cls, want = args
        n = sum(1 for _, c, _, _ in shapes if c == cls)
        if n != int(want):
            problems.append(f"{n} of class {cls}, expected {want}")
    elif what == "ticks":
        least, labels = int(args[0]), args[1:]
        if len(labels) < least:
            problems.append(f"{len(labels)} ticks, expected at least {least}")
        problems += [f"tick '{l}' is not a <text>" for l in labels if l not in texts]
    else:
        problems.append(f"unknown check '{what}'")
    for p in problems:
        print(f"{path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
