#!/usr/bin/env python3
"""Turns a terminal capture (`tmux capture-pane -p -e`: text with SGR colour codes) into an HTML
page, one <span> per run of equal style, for a headless browser to screenshot.
Usage: ansi2html.py CAPTURE > page.html"""
import html
import re
import sys

# xterm's default palette for the 16 basic colours.
BASIC = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
         "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
FG, BG = "#d0d0d0", "#1c1c1c"


def color256(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    level = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (level, level, level)


def apply(style, params):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            style.clear()
        elif c == 1:
            style["bold"] = True
        elif c == 3:
            style["italic"] = True
        elif c == 4:
            style["underline"] = True
        elif c == 7:
            style["reverse"] = True
        elif c == 22:
            style.pop("bold", None)
        elif c == 23:
            style.pop("italic", None)
        elif c == 24:
            style.pop("underline", None)
        elif c == 27:
            style.pop("reverse", None)
        elif 30 <= c <= 37 or 90 <= c <= 97:
            style["fg"] = BASIC[c - 30 if c < 90 else c - 90 + 8]
        elif 40 <= c <= 47 or 100 <= c <= 107:
            style["bg"] = BASIC[c - 40 if c < 100 else c - 100 + 8]
        elif c == 39:
            style.pop("fg", None)
        elif c == 49:
            style.pop("bg", None)
        elif c in (38, 48) and i + 1 < len(codes):
            key = "fg" if c == 38 else "bg"
            if codes[i + 1] == 5 and i + 2 < len(codes):
                style[key] = color256(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                style[key] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                i += 4
        i += 1


def css(style):
    fg, bg = style.get("fg", FG), style.get("bg", BG)
    if style.get("reverse"):
        fg, bg = bg, fg
    rules = [f"color:{fg}", f"background:{bg}"]
    if style.get("bold"):
        rules.append("font-weight:bold")
    if style.get("italic"):
        rules.append("font-style:italic")
    if style.get("underline"):
        rules.append("text-decoration:underline")
    return ";".join(rules)


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    style, out = {}, []
    for part in re.split(r"(\x1b\[[0-9;]*m)", text):
        match = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if match:
            apply(style, match.group(1))
        elif part:
            out.append(f'<span style="{css(style)}">{html.escape(part)}</span>')
    print(f"""<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; background: {BG}; }}
pre {{ margin: 0; padding: 10px; font: 15px/1.25 'DejaVu Sans Mono', monospace; color: {FG}; }}
</style><pre>{''.join(out)}</pre>""")


main()
