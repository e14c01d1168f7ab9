"""Sentry envelope framing and Relay's normaliser, shared by the checks.

An envelope is a JSON header line, then items: a JSON item header line
(with `length`), exactly `length` payload bytes, and a newline (optional
after the last item). The event is fed to `sentry_relay.StoreNormalizer`,
Relay's own store normalisation, which must report no errors (`errors`,
`_meta`) and keep every field we sent.
"""
import json

import sentry_relay


class EnvelopeError(Exception):
    pass


def parse(data: bytes):
    """(header, [(item_header, payload bytes)]); raises EnvelopeError."""
    nl = data.find(b"\n")
    if nl < 0:
        raise EnvelopeError("no envelope header line")
    header = json.loads(data[:nl])
    if not isinstance(header, dict) or "event_id" not in header:
        raise EnvelopeError(f"envelope header without event_id: {header!r}")
    pos, items = nl + 1, []
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            raise EnvelopeError(f"item header at byte {pos} has no newline")
        item = json.loads(data[pos:nl])
        if "type" not in item or "length" not in item:
            raise EnvelopeError(f"item header without type or length: {item!r}")
        start, end = nl + 1, nl + 1 + item["length"]
        if end > len(data):
            raise EnvelopeError(f"item {item['type']} says {item['length']} bytes, {len(data) - start} left")
        items.append((item, data[start:end]))
        pos = end
        if pos < len(data):
            if data[pos:pos + 1] != b"\n":
                raise EnvelopeError(f"no newline after item {item['type']} at byte {pos}")
            pos += 1
    return header, items


def leaves(value, path=()):
    """(path as a tuple of keys and indexes, value) for each leaf."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value


def lookup(value, path):
    cur = value
    for part in path:
        if isinstance(part, int):
            if not isinstance(cur, list) or part >= len(cur):
                return KeyError
        elif not isinstance(cur, dict) or part not in cur:
            return KeyError
        cur = cur[part]
    return cur


def check_event(event: dict):
    """Problems Relay's normaliser has with `event` (empty: none)."""
    out = sentry_relay.StoreNormalizer().normalize_event(dict(event))
    problems = []
    if out.get("errors"):
        problems.append(f"normaliser errors: {out['errors']}")
    if out.get("_meta"):
        problems.append(f"normaliser changed fields: {json.dumps(out['_meta'])[:2000]}")
    # Relay writes tags as [key, value] pairs, and moves server_name into
    # them (its store normalisation): found there, it was kept.
    tags = dict(out.get("tags") or [])
    for path, v in leaves(event):
        if path[0] == "tags":
            got = tags.get(path[1], KeyError)
        elif path == ("server_name",):
            got = tags.get("server_name", KeyError)
        else:
            got = lookup(out, path)
        name = ".".join(str(p) for p in path)
        if got is KeyError:
            problems.append(f"field dropped: {name}")
        elif got != v and not (isinstance(v, (int, float)) and isinstance(got, (int, float)) and abs(got - v) < 1e-3):
            problems.append(f"field changed: {name}: {v!r} -> {got!r}")
    return problems, out


def check_envelope(data: bytes):
    """Problems with an envelope file's bytes (empty: none)."""
    try:
        header, items = parse(data)
    except (EnvelopeError, ValueError) as e:
        return [f"framing: {e}"], None
    events = [json.loads(p) for (h, p) in items if h["type"] == "event"]
    if len(events) != 1:
        return [f"{len(events)} event items, want 1"], None
    event = events[0]
    problems = []
    if event.get("event_id") != header["event_id"]:
        problems.append("event_id differs from the envelope header's")
    attachments = [(h, p) for (h, p) in items if h["type"] == "attachment"]
    if len(attachments) != 1:
        problems.append(f"{len(attachments)} attachments, want the report")
    else:
        report = json.loads(attachments[0][1])
        if report.get("schema") != "faultline.report":
            problems.append("the attachment is not a Faultline report")
    more, _ = check_event(event)
    return problems + more, event
