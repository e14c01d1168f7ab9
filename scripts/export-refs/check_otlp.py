"""Checks exported OTLP JSON files: each must parse as LogsData with
opentelemetry-proto's own message and protobuf's json_format (unknown
fields refused). Prints `ok FILE RECORDS` per file; exits 1 otherwise."""
import sys

from google.protobuf import json_format
from opentelemetry.proto.logs.v1.logs_pb2 import LogsData

bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            logs = json_format.Parse(f.read(), LogsData())
        n = sum(len(s.log_records) for r in logs.resource_logs for s in r.scope_logs)
        if n == 0:
            raise ValueError("no log records")
        print(f"ok {path} {n}")
    except Exception as e:  # noqa: BLE001 - any failure is the verdict
        print(f"{path}: {type(e).__name__}: {e}")
        bad += 1
sys.exit(1 if bad else 0)
