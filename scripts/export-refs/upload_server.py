"""A Sentry and OTLP/HTTP endpoint on loopback for upload tests.

    upload_server.py LOG --key KEY [--fail-first N] [--lifetime S]

Prints its port on stdout, then serves 127.0.0.1 until --lifetime seconds
pass or its stdin closes. POST /api/<project>/envelope/ must carry
`X-Sentry-Auth: Sentry sentry_version=7, ..., sentry_key=KEY`, a well-framed
envelope and an event Relay's normaliser accepts; POST /v1/logs a LogsData
JSON body. The first N requests get 503 whatever they hold. Each request is
one JSON line in LOG: {"path", "status", "event_id" or "records", "problems"}.
"""
import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from envelope import check_envelope

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("--key", required=True)
ap.add_argument("--fail-first", type=int, default=0)
ap.add_argument("--lifetime", type=float, default=120)
args = ap.parse_args()
lock = threading.Lock()
seen = {"requests": 0}


def record(entry):
    with lock, open(args.log, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, entry):
        entry["status"] = status
        record(entry)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        entry = {"path": self.path, "problems": []}
        with lock:
            seen["requests"] += 1
            n = seen["requests"]
        if n <= args.fail_first:
            return self.answer(503, entry)
        if re.fullmatch(r"/api/[^/]+/envelope/", self.path):
            auth = self.headers.get("X-Sentry-Auth", "")
            fields = dict(p.strip().split("=", 1) for p in auth.removeprefix("Sentry ").split(",") if "=" in p)
            if not auth.startswith("Sentry ") or fields.get("sentry_key") != args.key or fields.get("sentry_version") != "7":
                entry["problems"].append(f"bad X-Sentry-Auth: {auth!r}")
                return self.answer(401, entry)
            if self.headers.get("Content-Type") != "application/x-sentry-envelope":
                entry["problems"].append(f"content type {self.headers.get('Content-Type')!r}")
            problems, event = check_envelope(body)
            entry["problems"] += problems
            entry["event_id"] = event and event.get("event_id")
            entry["fingerprint"] = event and event.get("fingerprint")
            entry["tags"] = event and event.get("tags")
            return self.answer(400 if entry["problems"] else 200, entry)
        if self.path == "/v1/logs":
            from google.protobuf import json_format
            from opentelemetry.proto.logs.v1.logs_pb2 import LogsData
            try:
                logs = json_format.Parse(body.decode(), LogsData())
                recs = [r for rl in logs.resource_logs for s in rl.scope_logs for r in s.log_records]
                entry["records"] = [{a.key: a.value.string_value for a in r.attributes} for r in recs]
            except Exception as e:  # noqa: BLE001
                entry["problems"].append(f"{type(e).__name__}: {e}")
            return self.answer(400 if entry["problems"] else 200, entry)
        entry["problems"].append("unknown path")
        return self.answer(404, entry)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
done = threading.Event()


def stdin_closed():
    sys.stdin.read()
    done.set()


threading.Thread(target=stdin_closed, daemon=True).start()
done.wait(args.lifetime)  # bounded: it stops by itself
server.shutdown()
