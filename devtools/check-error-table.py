#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Check that the bad-input table of the programmer's guide and the rows of
pcpu_bad_input_autotest are the same rows, in the same order, with the
same errors; and that the rows the guide names as logging nothing ("so do
the rows that are no input error") are the test's QROW() rows.

    devtools/check-error-table.py [SRCDIR]

Reads doc/guides/prog_guide/pcpu_mempool_lib.rst (the list-table "Bad
inputs" in the "Errors" section) and app/test/test_pcpu_bad_input.c (the
ROW() and QROW() entries). Exit 0 when they match, 1 with the differences otherwise.
"""

import os
import re
import sys


def doc_rows(path):
    text = open(path).read()
    m = re.search(r"^\.\. list-table:: Bad inputs.*?\n(.*?)(?=^\S)", text,
                  re.M | re.S)
    if not m:
        sys.exit("check-error-table: no 'Bad inputs' table in %s" % path)
    rows = []
    cells = []
    for line in m.group(1).splitlines():
        if line.startswith("   * - "):
            if cells:
                rows.append(cells)
            cells = [line[7:].strip()]
        elif line.startswith("     - "):
            cells.append(line[7:].strip())
    if cells:
        rows.append(cells)
    out = []
    for r in rows[1:]:  # header row first
        rid = r[0].strip("`")
        err = r[-1]
        out.append((rid, "0" if err == "none" else err))
    return out


def test_rows(path):
    src = open(path).read()
    return [(rid, err) for rid, _, err in
            re.findall(r'\bQ?ROW\("([a-z0-9-]+)",\s*(\w+),\s*(\w+),', src)]


def doc_quiet_rows(path):
    text = " ".join(open(path).read().split())
    m = re.search(r"so do the rows that are no input error, as above: "
                  r"(.*?)\. ", text)
    if not m:
        sys.exit("check-error-table: no list of rows that log nothing in %s"
                 % path)
    return sorted(re.findall(r"``([a-z0-9-]+)``", m.group(1)))


def test_quiet_rows(path):
    return sorted(re.findall(r'\bQROW\("([a-z0-9-]+)",', open(path).read()))


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    guide = os.path.join(top, "doc/guides/prog_guide/pcpu_mempool_lib.rst")
    src = os.path.join(top, "app/test/test_pcpu_bad_input.c")
    doc = doc_rows(guide)
    test = test_rows(src)
    if doc == test:
        quiet_doc, quiet_test = doc_quiet_rows(guide), test_quiet_rows(src)
        if quiet_doc != quiet_test:
            print("check-error-table: rows that log nothing: guide %s, "
                  "test (QROW) %s" % (quiet_doc, quiet_test))
            return 1
        print("check-error-table: %d rows, guide and test agree (%d log "
              "nothing)" % (len(doc), len(quiet_doc)))
        return 0
    print("check-error-table: the guide's table and pcpu_bad_input_autotest "
          "differ:")
    for i in range(max(len(doc), len(test))):
        d = doc[i] if i < len(doc) else None
        t = test[i] if i < len(test) else None
        if d != t:
            print("  row %d: guide %s, test %s" % (i + 1, d, t))
    return 1


if __name__ == "__main__":
    sys.exit(main())
