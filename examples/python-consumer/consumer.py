#!/usr/bin/env python3
"""Reads verified results from the Redis stream that @faceverify/sinks/redis writes, and
handles each result once.

Each stream entry has two fields: `id`, the event id (the same for every copy of one
result), and `message`, the result as JSON. The stream holds each result once while the
sink remembers its id, but a consumer still sees an entry again when it stopped after
handling it and before acknowledging it (XACK). So the event id is recorded in the same
database transaction as the result's effect: a copy whose id is already there is skipped.

Here the database is SQLite and the effect is a row per user; in your app, it is your
database and your own tables.

    python3 consumer.py --redis redis://127.0.0.1:6379 --stream faceverify:results
"""

import argparse
import json
import signal
import sqlite3
import sys

import redis


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379", help="Redis URL")
    parser.add_argument("--stream", default="faceverify:results", help="the sink's stream key")
    parser.add_argument("--group", default="backend", help="consumer group")
    parser.add_argument("--consumer", default="consumer-1", help="this consumer's name")
    parser.add_argument("--db", default="results.sqlite3", help="SQLite database file")
    parser.add_argument(
        "--once", action="store_true", help="stop when the stream has nothing new (for tests)"
    )
    return parser.parse_args()


def open_database(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS handled_events (event_id TEXT PRIMARY KEY)")
    db.execute(
        "CREATE TABLE IF NOT EXISTS verifications ("
        " external_user_id TEXT PRIMARY KEY, status TEXT NOT NULL, event_id TEXT NOT NULL)"
    )
    return db


def handle(db, event_id, message):
    """Applies one result, once: returns False when this event id was handled before."""
    with db:  # one transaction: the id and the effect commit together
        inserted = db.execute(
            "INSERT OR IGNORE INTO handled_events (event_id) VALUES (?)", (event_id,)
        ).rowcount
        if inserted == 0:
            return False
        data = message["data"]
        db.execute(
            "INSERT INTO verifications (external_user_id, status, event_id) VALUES (?, ?, ?)"
            " ON CONFLICT (external_user_id) DO UPDATE"
            " SET status = excluded.status, event_id = excluded.event_id",
            (data["external_user_id"], data["status"], event_id),
        )
    return True


def ensure_group(client, stream, group):
    try:
        client.xgroup_create(stream, group, id="0", mkstream=True)
    except redis.ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


def main():
    args = parse_args()
    client = redis.Redis.from_url(args.redis, decode_responses=True)
    db = open_database(args.db)
    ensure_group(client, args.stream, args.group)
    # First the entries this consumer read before and never acknowledged (it stopped), then
    # new ones.
    position = "0"
    while True:
        replies = client.xreadgroup(
            args.group,
            args.consumer,
            {args.stream: position},
            count=100,
            block=None if args.once else 5000,
        )
        entries = replies[0][1] if replies else []
        if position == "0" and not entries:
            position = ">"
            continue
        if not entries and args.once:
            return
        for entry_id, fields in entries:
            if not fields:  # trimmed from the stream while pending: nothing left to read
                client.xack(args.stream, args.group, entry_id)
                continue
            message = json.loads(fields["message"])
            if handle(db, fields["id"], message):
                print(f"{message['data']['status']} {message['data']['external_user_id']} {fields['id']}")
            else:
                print(f"duplicate skipped {fields['id']}")
            sys.stdout.flush()
            client.xack(args.stream, args.group, entry_id)


if __name__ == "__main__":
    # SIGTERM (a service manager stopping it) ends it as Ctrl+C does, quietly. A stop between
    # handling an entry and acknowledging it is safe: the entry is read again at the next
    # start, and skipped by its id.
    try:
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        main()
    except KeyboardInterrupt:
        sys.exit(0)
