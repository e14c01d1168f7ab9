"""Checks exported Sentry envelopes: framing, and Relay's normaliser accepts
each event with no errors and no fields dropped. Prints `ok FILE` per file;
exits 1 after printing each problem."""
import sys

from envelope import check_envelope

bad = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        problems, _ = check_envelope(f.read())
    for p in problems:
        print(f"{path}: {p}")
    bad += bool(problems)
    if not problems:
        print(f"ok {path}")
sys.exit(1 if bad else 0)
