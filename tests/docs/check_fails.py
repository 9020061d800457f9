#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""readme_figures.py --check refuses a README whose measured section differs from bench/results/.

Copies the README to a temporary folder, alters one generated number, and expects exit 1 with a diff;
the unaltered copy must pass, a results folder without the files must fail (rows not generated), and
the sign test must match scipy.stats.binomtest's exact two-sided values.
"""

import os
import re
import subprocess
import sys
import tempfile


def check(script, readme, *extra):
    return subprocess.run([sys.executable, script, "--check", "--readme", readme, *extra], capture_output=True, text=True)


def main():
    script, readme = sys.argv[1], sys.argv[2]
    text = open(readme, encoding="utf-8").read()
    begin = text.index("<!-- measured:begin -->")
    end = text.index("<!-- measured:end -->")
    section = text[begin:end]
    m = re.search(r"\b(\d+)\.(\d) TFLOP/s", section)
    assert m, "no TFLOP/s figure in the measured section"
    altered_number = f"{m.group(1)}.{(int(m.group(2)) + 1) % 10} TFLOP/s"
    altered = text[: begin + m.start()] + altered_number + text[begin + m.end() :]
    with tempfile.TemporaryDirectory() as tmp:
        same, changed = os.path.join(tmp, "same.md"), os.path.join(tmp, "changed.md")
        open(same, "w", encoding="utf-8").write(text)
        open(changed, "w", encoding="utf-8").write(altered)
        ok = check(script, same)
        bad = check(script, changed)
        empty = os.path.join(tmp, "no-results")
        os.mkdir(empty)
        gone = check(script, same, "--results", empty)
    failures = []
    if ok.returncode != 0:
        failures.append(f"unaltered copy: exit {ok.returncode}\n{ok.stdout}{ok.stderr}")
    if bad.returncode != 1:
        failures.append(f"altered copy ({m.group(0)} -> {altered_number}): exit {bad.returncode}, expected 1")
    elif altered_number not in bad.stdout or m.group(0) not in bad.stdout:
        failures.append("altered copy: the diff does not show the altered figure\n" + bad.stdout)

    if gone.returncode != 1 or "row not generated" not in gone.stderr:
        failures.append(f"no result files: exit {gone.returncode}, expected 1 naming the rows\n{gone.stderr}")

    sys.path.insert(0, os.path.dirname(script))
    import readme_figures as rf

    # Exact two-sided binomial p at 1/2 (scipy.stats.binomtest(k, n).pvalue).
    for k, n, p in ((17, 20, 0.0025768), (18, 20, 0.0004025), (23, 40, 0.4296), (10, 10, 0.001953), (11, 20, 0.8238)):
        if abs(rf.sign_test_p(k, n) - p) > 1e-4 * max(p, 1e-3):
            failures.append(f"sign_test_p({k}, {n}) = {rf.sign_test_p(k, n)}, expected {p}")
    if rf.lean_caveat(17, 20) != "17 of 20 one way (sign test p = 0.0026)" or rf.lean_caveat(23, 40) != "":
        failures.append(f"lean_caveat: {rf.lean_caveat(17, 20)!r}, {rf.lean_caveat(23, 40)!r}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
