#!/usr/bin/env python3
"""Reads a PNG with the standard library alone (zlib; 8-bit RGB or RGBA,
not interlaced, as cairo writes them) and prints its size, or the colour of
pixels: png_pixel.py FILE [X,Y ...] -> "W H" then one "R G B" per pixel;
with X,Y=R,G,B it checks the colour instead (each channel within 2, for
cairo's rounding) and exits 1 on a mismatch, naming it.
An independent reader for the picture tests: it shares no code with cairo."""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


if __name__ == "__main__":
    w, h, ch, rows = read_png(sys.argv[1])
    print(w, h)
    wrong = 0
    for spec in sys.argv[2:]:
        where, _, want = spec.partition("=")
        x, y = (int(float(v)) for v in where.split(","))
        got = list(rows[y][x * ch:x * ch + 3])
        if not want:
            print(*got)
        elif any(abs(g - int(v)) > 2 for g, v in zip(got, want.split(","))):
            print(f"pixel {x},{y}: {got}, expected {want}")
            wrong += 1
    sys.exit(1 if wrong else 0)
