"""Checks on a screenshot of what a person would see (run by the e2e tests).

    screen_check.py selected-row PNG [X0 Y0 X1 Y1] [--absent]
        A selected row is drawn: with a rectangle (the row's, in PNG pixels),
        at least 40% of its pixels are the selection colour; without one, at
        least 12 pixel rows of the image hold a run of 300 or more pixels of
        it (a table row selected edge to edge). --absent: fewer than 6 such
        pixel rows (nothing selected).
    screen_check.py heatmap PNG [--absent]
        A heatmap is drawn: at least 20 distinct saturated colours each cover
        200 pixels or more (cells of a colormap; the theme has about five
        saturated colours and text is anti-aliased over few pixels each).
        --absent: fewer than 12.

The selection colour is the theme's ImGuiCol_Header (0.22, 0.35, 0.56, 0.90)
over the window background: RGB (54, 83, 133), within 8 per channel.
Prints what it measured; exits 0 when the check holds, 1 when not, 2 on bad
arguments or an unreadable image.
"""
import sys

from PIL import Image

SELECTION = (54, 83, 133)
TOLERANCE = 8


def is_selection(c):
    return all(abs(a - b) <= TOLERANCE for a, b in zip(c, SELECTION))


def selected_fraction(px, x0, y0, x1, y1):
    total = hits = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            total += 1
            hits += is_selection(px[x, y])
    return hits / total if total else 0.0


def selected_bands(px, w, h):
    rows = 0
    for y in range(h):
        run = best = 0
        for x in range(w):
            run = run + 1 if is_selection(px[x, y]) else 0
            best = max(best, run)
        rows += best >= 300
    return rows


def saturated_blocks(px, w, h):
    counts = {}
    for y in range(h):
        for x in range(w):
            r, g, b = px[x, y]
            if max(r, g, b) - min(r, g, b) > 50 and not is_selection((r, g, b)):
                counts[(r, g, b)] = counts.get((r, g, b), 0) + 1
    return sum(1 for n in counts.values() if n >= 200)


def main(argv):
    absent = "--absent" in argv
    args = [a for a in argv if a != "--absent"]
    if len(args) < 2 or args[0] not in ("selected-row", "heatmap"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        im = Image.open(args[1]).convert("RGB")
    except OSError as e:
        print(f"screen_check: cannot read {args[1]}: {e}", file=sys.stderr)
        return 2
    w, h = im.size
    px = im.load()
    if args[0] == "heatmap":
        n = saturated_blocks(px, w, h)
        ok = n < 12 if absent else n >= 20
        print(f"{args[1]}: {n} saturated colours over 200+ pixels each (heatmap {'absent' if absent else 'drawn'}: {ok})")
    elif len(args) == 6:
        x0, y0, x1, y1 = (int(round(float(v))) for v in args[2:6])
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        f = selected_fraction(px, x0, y0, x1, y1)
        ok = f < 0.1 if absent else f >= 0.4
        print(f"{args[1]}: {f:.0%} of row [{x0},{y0},{x1},{y1}] in the selection colour (ok: {ok})")
    else:
        n = selected_bands(px, w, h)
        ok = n < 6 if absent else n >= 12
        print(f"{args[1]}: {n} pixel rows with a 300 px selection band (ok: {ok})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
