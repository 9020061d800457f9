#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates the README's measured section from the files under bench/results/.

The rows and paragraphs are declared in bench/readme_rows.py (how to add one: docs/readme-figures.md).
Each row reads its figures from committed result files through a Sources object, which records every
file read, so the row names its files by construction. The section lies between the marker comments
`<!-- measured:begin -->` and `<!-- measured:end -->` in README.md.

  readme_figures.py            print the generated section
  readme_figures.py --write    rewrite the section in README.md
  readme_figures.py --check    exit 1 with a diff when README.md and the files disagree

Standard library only: CI runs it with Debian's python3.
"""

import argparse
import csv
import difflib
import io
import json
import math
import os
import re
import sys
import textwrap

BEGIN = "<!-- measured:begin -->"
END = "<!-- measured:end -->"
WRAP = 100


class MissingFigure(Exception):
    """A row's file or value is not where the row says: the row cannot be generated."""


class Sources:
    """Reads result files relative to bench/results/ and remembers which ones a row used."""

    def __init__(self, results_dir):
        self.results_dir = results_dir
        self.used = []

    def path(self, rel):
        full = os.path.join(self.results_dir, rel)
        if not os.path.exists(full):
            raise MissingFigure(f"bench/results/{rel} does not exist")
        if rel not in self.used:
            self.used.append(rel)
        return full

    def text(self, rel):
        with open(self.path(rel), encoding="utf-8") as f:
            return f.read()

    def json(self, rel):
        return json.loads(self.text(rel))

    def csv(self, rel):
        return list(csv.DictReader(io.StringIO(self.text(rel))))

    def grep(self, rel, pattern, group=1):
        """The first match of a regular expression in a text file (its group), or MissingFigure."""
        m = re.search(pattern, self.text(rel), re.MULTILINE)
        if not m:
            raise MissingFigure(f"bench/results/{rel}: no match for {pattern!r}")
        return m.group(group)

    def bench(self, rel, what):
        """The JSON of a log's `BENCH {"what": what, ...}` line (the GPU programs' machine-readable output)."""
        for line in self.text(rel).splitlines():
            if line.startswith("BENCH "):
                record = json.loads(line[len("BENCH "):])
                if record.get("what") == what:
                    return record
        raise MissingFigure(f"bench/results/{rel}: no BENCH line with what = {what!r}")

    def number(self, rel, pattern, group=1):
        return float(self.grep(rel, pattern, group))


class Row:
    def __init__(self, what, figure, paragraph):
        self.what = what
        self.figure = figure
        self.paragraph = paragraph


class Rows:
    """The spec's registry: `@rows.table("what")` for a table row, `@rows.paragraph` for prose under it.

    The decorated function takes a Sources and returns the figure's text; its order is the README's.
    """

    def __init__(self):
        self.items = []

    def table(self, what):
        def add(figure):
            self.items.append(Row(what, figure, paragraph=False))
            return figure

        return add

    def paragraph(self, figure):
        self.items.append(Row(figure.__name__, figure, paragraph=True))
        return figure


def sign_test_p(k, n):
    """Two-sided exact binomial test of k successes in n trials at p = 1/2."""
    if n == 0:
        return 1.0
    tail = min(k, n - k)
    p = 2.0 * sum(math.comb(n, i) for i in range(tail + 1)) / 2.0**n
    return min(1.0, p)


def lean_caveat(k, n, alpha=0.05):
    """'k of n one way (sign test p = ...)' when the deltas' signs are unbalanced, else ''."""
    most = max(k, n - k)
    p = sign_test_p(most, n)
    if p < alpha:
        return f"{most} of {n} one way (sign test p = {p:.2g})"
    return ""


def source_note(used):
    names = ", ".join(f"`bench/results/{u}`" for u in used)
    return f"(source: {names})"


def render(rows, results_dir):
    """The section's markdown from the row spec, and the rows that could not be generated."""
    table = ["| what | figure |", "| --- | --- |"]
    paragraphs = []
    missing = []
    for row in rows:
        src = Sources(results_dir)
        try:
            body = row.figure(src).strip()
        except MissingFigure as e:
            missing.append((row.what, str(e)))
            continue
        except (KeyError, IndexError, ValueError, TypeError) as e:
            missing.append((row.what, f"{type(e).__name__}: {e} (a file's shape is not what the row reads)"))
            continue
        if row.paragraph:
            text = f"{body} {source_note(src.used)}"
            paragraphs.append(
                textwrap.fill(text, WRAP, break_long_words=False, break_on_hyphens=False)
            )
        else:
            if "|" in body:
                raise ValueError(f"row {row.what!r}: a figure may not contain '|'")
            table.append(f"| {row.what} | {body} {source_note(src.used)} |")
    out = "\n".join(table) + "\n"
    for p in paragraphs:
        out += "\n" + p + "\n"
    return out, missing


def split_readme(text):
    b = text.find(BEGIN)
    e = text.find(END)
    if b < 0 or e < 0 or e < b:
        raise SystemExit(f"README.md lacks the markers {BEGIN} ... {END}")
    head = text[: b + len(BEGIN)] + "\n"
    return head, text[b + len(BEGIN) : e].strip("\n") + "\n", text[e:]


def load_rows(spec_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_rows", spec_path)
    module = importlib.util.module_from_spec(spec)
    # The spec imports this module by name; hand it this instance so MissingFigure is one class.
    sys.modules.setdefault("readme_figures", sys.modules[__name__])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    spec.loader.exec_module(module)
    return module.rows.items


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the section in the README")
    mode.add_argument("--check", action="store_true", help="exit 1 when the README disagrees")
    ap.add_argument("--readme", default=os.path.join(root, "README.md"))
    ap.add_argument("--results", default=os.path.join(root, "bench", "results"))
    ap.add_argument("--rows", default=os.path.join(root, "bench", "readme_rows.py"))
    args = ap.parse_args(argv)

    generated, missing = render(load_rows(args.rows), args.results)
    for what, why in missing:
        print(f"readme_figures: row not generated ({what}): {why}", file=sys.stderr)
    if not (args.write or args.check):
        sys.stdout.write(generated)
        return 1 if missing else 0

    with open(args.readme, encoding="utf-8") as f:
        text = f.read()
    head, current, tail = split_readme(text)
    if args.write:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write(head + generated + tail)
        return 1 if missing else 0
    if current == generated and not missing:
        return 0
    diff = difflib.unified_diff(
        current.splitlines(True), generated.splitlines(True), "README.md (typed)", "generated from bench/results"
    )
    sys.stdout.writelines(diff)
    print("readme_figures: README.md's measured section disagrees with bench/results/;"
          " run scripts/readme_figures.py --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
