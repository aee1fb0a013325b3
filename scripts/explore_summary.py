#!/usr/bin/env python3
"""Summarizes the explorations of scripts/explore_gpu.sh: one Markdown row per layer.

For each layer it reads the stores DIR/layerL-random.db and DIR/layerL-genetic.db (or, where
there is none, the JSON exports DIR/layerL-random.json and DIR/layerL-genetic.json of
`liftc results --json`, whose wall time is from their first row to their last), and, when
present, DIR/layerL-replay.txt (what a search replayed against the random store printed:
`liftc explore examples/vgg16/convL.sr --search genetic --evals 300 --replay DIR/layerL-random.db
-q > DIR/layerL-replay.txt`) and reports:
  - the random run: evaluations by status, wall time (first run start to last run end,
    over every resumed run), the fastest validated point (time, memory, strategy, point);
  - the genetic run: its evaluations, wall time and fastest point, and after how many of its
    evaluations the best so far came within 5% of the random run's best (the
    "evaluations to 5%" measure); for the replayed search, the count `liftc explore --replay`
    printed (against the random store's best) and how many of its proposals the store held
    (a proposal the store lacks is told to the search as a failure).
Evaluations are counted in store order (the order the search proposed them); one served
from the store counts as one evaluation.

Usage: explore_summary.py DIR LAYER... [--within 0.05] [--json FILE]
       explore_summary.py DIR LAYER --best-flags
With --best-flags it prints, for the fastest validated point of the layer's random and
genetic stores, one tab-separated line: strategy, alternative, the `liftc run` flags of the
point (--params, --local, --unroll, --mad), time in ms, memory in bytes (scripts/bench_explored.sh).
"""
import argparse
import datetime
import json
import math
import os
import re
import sqlite3
import sys

VALID = ("ok", "cut")  # a cut point was validated and timed once


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def read_store(path):
    """The evaluations (in id order) and the wall seconds of every run in a store."""
    if not os.path.exists(path):
        return None
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT id, status, time_ms, memory_bytes, strategy, alternative, point, created FROM evaluations ORDER BY id"
    ).fetchall()
    runs = db.execute("SELECT r.id, r.started, MAX(e.finished) FROM runs r LEFT JOIN run_ends e ON e.run = r.id GROUP BY r.id").fetchall()
    last = {run: created for run, created in db.execute("SELECT run, MAX(created) FROM evaluations GROUP BY run")}
    wall = 0.0
    for run, started, finished in runs:
        end = finished or last.get(run)  # a run cut off by the command limit has no end row
        if end:
            wall += (parse_time(end) - parse_time(started)).total_seconds()
    evaluations = [
        dict(id=r[0], status=r[1], time_ms=r[2], memory=r[3], strategy=r[4], alternative=r[5], point=parse_point(r[6]))
        for r in rows
    ]
    return dict(evaluations=evaluations, wall_s=wall)


def read_export(path):
    """The evaluations of a JSON export (`liftc results --db URL --json FILE`: the rows of a
    PostgreSQL store, as scripts/bench_conv_shape.sh --explore-gpus writes them) in id order;
    its wall seconds from its first row's time to its last's (an export has no runs)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = sorted(json.load(f), key=lambda r: r["id"])
    evaluations = [
        dict(id=r["id"], status=r["status"], time_ms=r["time_ms"], memory=r["memory_bytes"], strategy=r["strategy"],
             alternative=r["alternative"], point={k: str(v) for k, v in r["point"].items()})
        for r in rows
    ]
    wall = (parse_time(rows[-1]["created"]) - parse_time(rows[0]["created"])).total_seconds() if rows else 0.0
    return dict(evaluations=evaluations, wall_s=wall)


def read_layer(directory, layer, search):
    """The store DIR/layerL-SEARCH.db, else the export DIR/layerL-SEARCH.json, else None."""
    base = os.path.join(directory, f"layer{layer}-{search}")
    store = read_store(base + ".db")
    return store if store is not None else read_export(base + ".json")


def parse_point(text):
    """A stored point, `name=value,...`, as a dict."""
    return dict(item.split("=", 1) for item in text.split(",") if "=" in item)


def fastest(evaluations):
    best = None
    for e in evaluations:
        if e["status"] in VALID and e["time_ms"] is not None and (best is None or e["time_ms"] < best["time_ms"]):
            best = e
    return best


def evaluations_to_within(evaluations, target_ms):
    """1-based count of evaluations after which the best so far is <= target_ms, or None."""
    best = math.inf
    for i, e in enumerate(evaluations, 1):
        if e["status"] in VALID and e["time_ms"] is not None:
            best = min(best, e["time_ms"])
        if best <= target_ms:
            return i
    return None


def read_replay(path):
    """What `liftc explore --replay` printed: replayed, not in the store, evaluations to 5% (or None)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    replayed = re.search(r"replayed (\d+) candidate\(s\) from .*?; (\d+) not in the store", text)
    within = re.search(r"^within \d+% of the store's best \(.*?\) after (\d+) evaluation", text, re.M)
    if not replayed:
        return None
    return dict(replayed=int(replayed.group(1)), missing=int(replayed.group(2)),
                to_within=int(within.group(1)) if within else None)


def counts(evaluations):
    out = {}
    for e in evaluations:
        out[e["status"]] = out.get(e["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(out.items()))


def describe(e):
    if e is None:
        return "-"
    point = ",".join(f"{k}={v}" for k, v in sorted(e["point"].items()))
    return f"{e['time_ms']:.4f} ms, {e['memory'] / 1e6:.1f} MB ({e['strategy']} #{e['alternative']} {point})"


def run_flags(point):
    """The `liftc run` flags of a stored point: local_0..2 are the main kernel's work-group
    size, PART_local_0..2 another kernel's (--kernel-local PART=..., where 0 is the runtime's
    choice), unroll and mad switches, every other name a tuning parameter."""
    own = {}  # PART -> {dimension: size}
    params = {}
    for k, v in point.items():
        m = re.fullmatch(r"(\w+)_local_([0-2])", k)
        if m:
            own.setdefault(m.group(1), {})[int(m.group(2))] = v
        elif not k.startswith("local_") and k not in ("unroll", "mad"):
            params[k] = v
    flags = []
    if params:
        flags.append("--params " + ",".join(f"{k}={v}" for k, v in sorted(params.items())))
    local = [point[f"local_{d}"] for d in range(3) if f"local_{d}" in point]
    if local:
        flags.append("--local " + ",".join(local))
    for part, sizes in sorted(own.items()):
        if sizes.get(0, "0") != "0":
            flags.append(f"--kernel-local {part}=" + ",".join(sizes[d] for d in sorted(sizes)))
    if point.get("unroll") == "1":
        flags.append("--unroll")
    if point.get("mad") == "1":
        flags.append("--mad")
    return " ".join(flags)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("layers", nargs="+")
    parser.add_argument("--within", type=float, default=0.05)
    parser.add_argument("--json", help="also write the summary as JSON to this file")
    parser.add_argument("--best-flags", action="store_true", help="print the fastest point of one layer as liftc run flags")
    args = parser.parse_args()
    if args.best_flags:
        found = []
        for s in ("random", "genetic"):
            store = read_layer(args.dir, args.layers[0], s)
            if store:
                found += store["evaluations"]
        best = fastest(found)
        if best is None:
            print(f"explore_summary.py: no validated point for layer {args.layers[0]} in {args.dir}", file=sys.stderr)
            return 1
        print("\t".join([best["strategy"], str(best["alternative"]), run_flags(best["point"]),
                        f"{best['time_ms']:.4f}", str(best["memory"])]))
        return 0
    summary = []
    print("| layer | random: evaluations | random: wall s | random: fastest | genetic: evaluations | genetic: wall s |"
          f" genetic: fastest | genetic: evaluations to {args.within:.0%} | replay: evaluations to {args.within:.0%} |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for layer in args.layers:
        stores = {s: read_layer(args.dir, layer, s) for s in ("random", "genetic")}
        random = stores["random"]
        if random is None:
            print(f"| {layer} | no store | | | | | | | |")
            continue
        best = fastest(random["evaluations"])
        target = best["time_ms"] * (1 + args.within) if best else None
        row = dict(layer=layer, random=dict(evaluations=len(random["evaluations"]), wall_s=random["wall_s"],
                                            statuses=counts(random["evaluations"]), fastest=best))
        cells = [layer, f"{len(random['evaluations'])} ({counts(random['evaluations'])})", f"{random['wall_s']:.0f}",
                 describe(best)]
        store = stores["genetic"]
        if store is None:
            cells += ["-", "-", "-", "-"]
        else:
            to = evaluations_to_within(store["evaluations"], target) if target else None
            to_text = f"{to} of {len(store['evaluations'])}" if to else f"not within {len(store['evaluations'])}"
            row["genetic"] = dict(evaluations=len(store["evaluations"]), wall_s=store["wall_s"],
                                  fastest=fastest(store["evaluations"]), to_within=to)
            cells += [f"{len(store['evaluations'])} ({counts(store['evaluations'])})", f"{store['wall_s']:.0f}",
                      describe(fastest(store["evaluations"])), to_text]
        replay = read_replay(os.path.join(args.dir, f"layer{layer}-replay.txt"))
        row["replay"] = replay
        if replay is None:
            cells.append("-")
        else:
            n = replay["replayed"]
            held = f"{n - replay['missing']} of {n} in the store"
            cells.append(f"{replay['to_within']} of {n} ({held})" if replay["to_within"] else f"not within {n} ({held})")
        print("| " + " | ".join(str(c) for c in cells) + " |")
        summary.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
