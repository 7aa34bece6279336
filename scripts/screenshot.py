#!/usr/bin/env python3
"""Render a terminal screen captured with colours (`tmux capture-pane -e -p`) to a PNG.

Usage:
    .tools/venv-shots/bin/python scripts/screenshot.py CAPTURE OUT.png [--columns 80]

CAPTURE is the text tmux printed (`-` for stdin): SGR sequences (bold, dim, italic, underline,
reverse, the 16, 256 and true colours) are drawn, other escapes dropped, everything else is
text. Wide characters (CJK, most emoji) take two cells, as in the terminal; a character DejaVu
Sans Mono lacks is drawn with DejaVu Sans. Needs Pillow (PyPI) and the DejaVu fonts (Debian:
fonts-dejavu-core); `scripts/screenshots` installs both and redoes every picture in docs/img.
"""

import argparse
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT_SIZE = 15
PADDING = 14
BACKGROUND = (30, 30, 36)
FOREGROUND = (220, 220, 214)
# The 16 colours of a dark terminal theme (normal, then bright).
PALETTE = [
    (40, 42, 54), (230, 90, 90), (120, 200, 120), (230, 200, 100),
    (100, 150, 230), (200, 120, 210), (90, 200, 210), (210, 210, 210),
    (110, 110, 120), (255, 120, 120), (150, 230, 150), (250, 225, 130),
    (140, 180, 255), (230, 150, 240), (130, 230, 240), (255, 255, 255),
]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESCAPE = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z])")


def colour_256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    level = 8 + (n - 232) * 10
    return (level, level, level)


class Pen:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def apply(self, params):
        codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
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
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 7:
                self.reverse = True
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = PALETTE[c - 30]
            elif 90 <= c <= 97:
                self.fg = PALETTE[c - 90 + 8]
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = PALETTE[c - 40]
            elif 100 <= c <= 107:
                self.bg = PALETTE[c - 100 + 8]
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    colour = colour_256(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    colour = tuple(codes[i + 2:i + 5])
                    i += 4
                else:
                    colour = None
                if c == 38:
                    self.fg = colour
                else:
                    self.bg = colour
            i += 1

    def colours(self):
        fg = self.fg or FOREGROUND
        bg = self.bg or BACKGROUND
        if self.dim:
            fg = tuple((f + b) // 2 for f, b in zip(fg, bg))
        if self.reverse:
            fg, bg = bg, fg
        return fg, bg


def cells(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def render(text, columns):
    fonts = {
        (False, False): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono.ttf", FONT_SIZE),
        (True, False): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-Bold.ttf", FONT_SIZE),
        (False, True): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-Oblique.ttf", FONT_SIZE),
        (True, True): ImageFont.truetype(f"{FONT_DIR}/DejaVuSansMono-BoldOblique.ttf", FONT_SIZE),
    }
    regular = fonts[(False, False)]
    fallback = ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", FONT_SIZE)
    missing = bytes(regular.getmask("\U0010fffd"))

    def font_for(ch, bold, italic):
        font = fonts[(bold, italic)]
        if ord(ch) > 127 and bytes(font.getmask(ch)) == missing:
            return fallback
        return font

    cell_w = round(regular.getlength("M"))
    ascent, descent = regular.getmetrics()
    cell_h = ascent + descent + 3
    lines = text.rstrip("\n").split("\n")
    # Trailing rows with nothing to see (colour resets only), and what tmux writes in a pane
    # whose command has ended.
    visible = lambda line: OTHER_ESCAPE.sub("", SGR.sub("", line)).strip()
    lines = [line for line in lines if not visible(line).startswith("Pane is dead")]
    while lines and not visible(lines[-1]):
        lines.pop()
    image = Image.new(
        "RGB",
        (columns * cell_w + 2 * PADDING, max(len(lines), 1) * cell_h + 2 * PADDING),
        BACKGROUND,
    )
    draw = ImageDraw.Draw(image)
    pen = Pen()
    for row, line in enumerate(lines):
        pen.reset()
        x = 0
        y = PADDING + row * cell_h
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                pen.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER_ESCAPE.match(line, pos)
            if m:
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            width = cells(ch)
            if width == 0 or x >= columns:
                continue
            fg, bg = pen.colours()
            left = PADDING + x * cell_w
            if bg != BACKGROUND:
                draw.rectangle([left, y, left + width * cell_w - 1, y + cell_h - 1], fill=bg)
            if ch != " ":
                draw.text((left, y + 1), ch, font=font_for(ch, pen.bold, pen.italic), fill=fg)
            if pen.underline:
                draw.line([left, y + cell_h - 2, left + width * cell_w - 1, y + cell_h - 2], fill=fg)
            x += width
    return image


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("capture", help="the output of tmux capture-pane -e -p, or - for stdin")
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("--columns", type=int, default=80, help="the terminal's width")
    args = parser.parse_args()
    if args.capture == "-":
        text = sys.stdin.read()
    else:
        with open(args.capture, encoding="utf-8", errors="replace") as f:
            text = f.read()
    render(text, args.columns).save(args.out)


if __name__ == "__main__":
    main()
