#!/usr/bin/env python3
"""Renders a terminal screen captured with ANSI colours (`tmux capture-pane -e -p`) to a PNG.

Usage: ansi-to-png.py CAPTURE.txt OUT.png [--columns N]

Each character is drawn in a fixed cell with DejaVu Sans Mono (Debian: fonts-dejavu-core);
a character that font lacks is drawn with DejaVu Sans. Understands the SGR codes ratatui
and tmux emit: bold, dim, italic, underline, reverse, the 16 colours, 256 colours and RGB.
"""

import re
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONTS = Path("/usr/share/fonts/truetype/dejavu")
SIZE = 16
BACKGROUND = (24, 26, 33)
FOREGROUND = (220, 223, 228)
# The 16 colours (a One Dark-like palette, readable on the dark background).
PALETTE = [
    (40, 44, 52), (224, 108, 117), (152, 195, 121), (229, 192, 123),
    (97, 175, 239), (198, 120, 221), (86, 182, 194), (171, 178, 191),
    (92, 99, 112), (240, 128, 137), (172, 215, 141), (249, 212, 143),
    (117, 195, 255), (218, 140, 241), (106, 202, 214), (255, 255, 255),
]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def color256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    level = 8 + (n - 232) * 10
    return (level, level, level)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def apply(self, params):
        codes = [int(p) if p else 0 for p in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = PALETTE[c - 30]
            elif 90 <= c <= 97:
                self.fg = PALETTE[c - 90 + 8]
            elif 40 <= c <= 47:
                self.bg = PALETTE[c - 40]
            elif 100 <= c <= 107:
                self.bg = PALETTE[c - 100 + 8]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    value = color256(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    value = tuple(codes[i + 2:i + 5])
                    i += 4
                else:
                    value = None
                if c == 38:
                    self.fg = value
                else:
                    self.bg = value
            i += 1

    def colors(self):
        fg = self.fg or FOREGROUND
        bg = self.bg or BACKGROUND
        if self.reverse:
            fg, bg = bg, fg
        if self.dim:
            fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
        return fg, bg


def parse(text):
    """Lines of (char, fg, bg, bold, italic, underline) cells."""
    style = Style()
    lines = []
    for raw in text.split("\n"):
        cells = []
        pos = 0
        for m in SGR.finditer(raw):
            for ch in raw[pos:m.start()]:
                cells.append((ch, *style.colors(), style.bold, style.italic, style.underline))
            style.apply(m.group(1))
            pos = m.end()
        for ch in raw[pos:]:
            cells.append((ch, *style.colors(), style.bold, style.italic, style.underline))
        lines.append(cells)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def main():
    args = sys.argv[1:]
    columns = None
    if "--columns" in args:
        i = args.index("--columns")
        columns = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    capture, out = args
    lines = parse(Path(capture).read_text(encoding="utf-8", errors="replace"))
    fonts = {
        (False, False): ImageFont.truetype(str(FONTS / "DejaVuSansMono.ttf"), SIZE),
        (True, False): ImageFont.truetype(str(FONTS / "DejaVuSansMono-Bold.ttf"), SIZE),
        (False, True): ImageFont.truetype(str(FONTS / "DejaVuSansMono-Oblique.ttf"), SIZE),
        (True, True): ImageFont.truetype(str(FONTS / "DejaVuSansMono-BoldOblique.ttf"), SIZE),
    }
    fallback = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), SIZE)
    missing = bytes(fonts[(False, False)].getmask("\U0010fffd"))

    def font_for(ch, bold, italic):
        font = fonts[(bold, italic)]
        if ord(ch) > 127 and bytes(font.getmask(ch)) == missing:
            return fallback
        return font

    left, top, right, bottom = fonts[(False, False)].getbbox("M")
    cell_w = int(fonts[(False, False)].getlength("M"))
    ascent, descent = fonts[(False, False)].getmetrics()
    cell_h = ascent + descent + 2
    width = columns or max((len(l) for l in lines), default=1)
    pad = 12
    image = Image.new("RGB", (width * cell_w + 2 * pad, len(lines) * cell_h + 2 * pad), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for row, cells in enumerate(lines):
        y = pad + row * cell_h
        for col, (ch, fg, bg, bold, italic, underline) in enumerate(cells[:width]):
            x = pad + col * cell_w
            if bg != BACKGROUND:
                draw.rectangle([x, y, x + cell_w - 1, y + cell_h - 1], fill=bg)
            if ch != " ":
                draw.text((x, y + 1), ch, font=font_for(ch, bold, italic), fill=fg)
            if underline:
                draw.line([x, y + cell_h - 2, x + cell_w - 1, y + cell_h - 2], fill=fg)
    image.save(out)


if __name__ == "__main__":
    main()
