#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares two folders of screenshots (scripts/screenshots.sh) pixel for pixel: a refactoring that
is meant to change nothing must leave every view identical. The status bar (its bottom 20 px: the
machine's CPU name) is left out with --mask-status-bar. Prints one line per view: identical, or the
box of the pixels that differ and how many; exit 1 when any differs. Needs python3-pil (Debian).
Usage: scripts/compare_screenshots.py [--mask-status-bar] REFERENCE_DIR NEW_DIR"""
import os
import sys

from PIL import Image, ImageChops

args = [a for a in sys.argv[1:] if not a.startswith("--")]
mask = "--mask-status-bar" in sys.argv
if len(args) != 2:
    sys.exit(__doc__.splitlines()[-1])
reference, new = args
differ = 0
for name in sorted(n for n in os.listdir(reference) if n.endswith(".png")):
    path = os.path.join(new, name)
    if not os.path.exists(path):
        print(f"{name}: missing in {new}")
        differ += 1
        continue
    a = Image.open(os.path.join(reference, name)).convert("RGB")
    b = Image.open(path).convert("RGB")
    if a.size != b.size:
        print(f"{name}: size {a.size} -> {b.size}")
        differ += 1
        continue
    if mask:
        a, b = a.crop((0, 0, a.width, a.height - 20)), b.crop((0, 0, b.width, b.height - 20))
    diff = ImageChops.difference(a, b)
    box = diff.getbbox()
    if box is None:
        print(f"{name}: identical")
    else:
        pixels = sum(1 for p in diff.getdata() if p != (0, 0, 0))
        print(f"{name}: {pixels} pixels differ in {box}")
        differ += 1
sys.exit(1 if differ else 0)
