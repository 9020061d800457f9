#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes tests/data/fp8/e4m3_rounding.json: fp8 e4m3 values and roundings recomputed from the
format's definition alone (no numpy, no ml_dtypes), for kernels/cpu/kv_fp8.h.

e4m3: 1 sign bit, 4 exponent bits of bias 7, 3 mantissa bits; exponent field 0 holds the
subnormals m x 2^-9; S.1111.111 is NaN; no infinities, so the largest value is 1.75 x 2^8 = 448.
Every value is built as an exact fraction; a float32 input (exact as a fraction too) rounds to
the nearest value, a tie to the value whose code is even (round-to-nearest-even), anything
beyond 448 saturates to 448 with its sign (as CUDA's __nv_cvt_float_to_fp8 with __NV_SATFINITE
does); a zero keeps its sign; NaN stays NaN (the test checks only that the code decodes to NaN).

Inputs, as float32 bit patterns: every finite code's value; every midpoint between neighbouring
values and the float32 numbers one ulp either side of it; the saturation region; the underflow
region around 2^-10; zeros, infinities, NaN, float32 subnormals; and 3000 values drawn
log-uniformly over [2^-13, 2^10] with random signs (random.Random(20261201)). Both signs of each.
Run: /usr/bin/python3 scripts/gen_e4m3_fixtures.py"""
import json
import math
import os
import random
import struct
import sys
from fractions import Fraction

MAX = Fraction(448)


def code_value(code):
    """The exact value of a code, or None for NaN."""
    sign = -1 if code & 0x80 else 1
    e, m = (code >> 3) & 0xF, code & 7
    if e == 0xF and m == 7:
        return None
    if e == 0:
        return sign * Fraction(m, 2**9)
    return sign * (1 + Fraction(m, 8)) * Fraction(2) ** (e - 7)


POSITIVE = [(code_value(c), c) for c in range(0x80) if code_value(c) is not None]  # ascending


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def expected_code(bits):
    """The e4m3 code of the float32 with these bits, or 'nan'."""
    x = f32_from_bits(bits)
    if math.isnan(x):
        return "nan"
    sign = 0x80 if bits >> 31 else 0
    if math.isinf(x):
        return sign | 0x7E
    a = abs(Fraction(x))
    if a >= MAX:
        return sign | 0x7E
    below = max((v, c) for v, c in POSITIVE if v <= a)
    above = min((v, c) for v, c in POSITIVE if v >= a)
    if below[0] == above[0]:
        return sign | below[1]
    d_below, d_above = a - below[0], above[0] - a
    if d_below < d_above:
        return sign | below[1]
    if d_above < d_below:
        return sign | above[1]
    return sign | (below[1] if below[1] % 2 == 0 else above[1])


inputs = set()


def add(x):
    b = f32_bits(x)
    inputs.add(b)
    inputs.add(b ^ 0x80000000)


def add_bits(b):
    inputs.add(b)
    inputs.add(b ^ 0x80000000)


for v, _ in POSITIVE:
    add(float(v))
for (lo, _), (hi, _) in zip(POSITIVE, POSITIVE[1:]):
    mid = (lo + hi) / 2
    b = f32_bits(float(mid))
    assert Fraction(f32_from_bits(b)) == mid  # midpoints are exact in float32
    for d in (-1, 0, 1):
        add_bits(b + d)
for x in (448.0, 448.5, 450.0, 455.99, 456.0, 460.0, 463.99, 464.0, 464.01, 480.0, 500.0, 1e4, 3.4e38):
    add(x)
add_bits(f32_bits(464.0) - 1)
add_bits(f32_bits(464.0) + 1)
add_bits(0x7F7FFFFF)  # largest float32
add_bits(0x7F800000)  # infinity
add_bits(0x7FC00000)  # NaN
add_bits(0x7F800001)  # signalling NaN pattern
add_bits(0)  # zero (and -0 with it)
add_bits(1)  # smallest float32 subnormal
add_bits(0x007FFFFF)  # largest float32 subnormal
for k in range(-14, -5):
    for m in (1.0, 1.25, 1.5, 1.75):
        add(m * 2.0**k)
tenth = f32_bits(2.0**-10)
for d in (-2, -1, 0, 1, 2):
    add_bits(tenth + d)
rng = random.Random(20261201)
for _ in range(3000):
    x = 2.0 ** rng.uniform(-13, 10)
    add(x if rng.random() < 0.5 else -x)

cases = [[b, expected_code(b)] for b in sorted(inputs)]
values = []
for c in range(256):
    v = code_value(c)
    if v is None:
        values.append(None)
        continue
    values.append(f32_bits(float(v)) | (0x80000000 if c & 0x80 else 0))  # 0x80 is -0
    assert Fraction(f32_from_bits(values[-1])) == v

out = {
    "generator": "scripts/gen_e4m3_fixtures.py",
    "python": sys.version.split()[0],
    "format": "e4m3: bias 7, 3 mantissa bits, no infinities, NaN S.1111.111, max 448, subnormals m x 2^-9",
    "rounding": "nearest, ties to even code, saturating to +-448 (satfinite), zero keeps its sign",
    "values_f32_bits": values,
    "cases_are": "[float32 bits, e4m3 code or \"nan\"], one a line below",
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fp8", "e4m3_rounding.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    f.write(json.dumps(out, indent=1)[:-2] + ",\n \"cases\": [\n")  # the header's fields, then a case a line
    f.write(",\n".join(json.dumps(c) for c in cases) + "\n ]\n}\n")
print(f"{len(cases)} cases -> {os.path.normpath(path)}")
