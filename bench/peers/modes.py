"""The host's memory-bandwidth state beside pmolap's effective bandwidth.

Alternates `pmolap membench` (2 threads, sequential read) with the sample queries of a
peers run that read fact data (`pmolap sql`, same store), ITERS times, and writes one row
per round: membench before, the sample's median GiB/s, membench after. On a VM whose vCPUs
move between one CCD and two, membench reads ~30 or ~44 GiB/s minute to minute, and the
share the issue 15 bandwidth target asks for depends on which (docs/runs/README.md).

    python3 bench/peers/modes.py --peers results/peers-sf10.json --data WORK/sf10/store \\
        --iters 8 --out results/modes.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find(doc, key):
    """The first value of `key` anywhere in a JSON document."""
    if isinstance(doc, dict):
        if key in doc:
            return doc[key]
        doc = list(doc.values())
    if isinstance(doc, list):
        for v in doc:
            r = find(v, key)
            if r is not None:
                return r
    return None


def run_json(cmd, tmp):
    """Runs a pmolap command writing `--json tmp`; the document."""
    r = subprocess.run(cmd + ["--json", tmp], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"modes: {' '.join(cmd[:3])} failed: {r.stderr.strip().splitlines()[-1:]}")
    with open(tmp) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", required=True, help="a peers JSON (bench/peers/run.sh --out)")
    ap.add_argument("--data", required=True, help="the store the peers run used")
    ap.add_argument("--pmolap", default=os.path.join(ROOT, "target/release/pmolap"))
    ap.add_argument("--iters", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.peers) as f:
        peers = json.load(f)
    sql = [q["sql"].strip().rstrip(";") + ";" for q in peers["groups"]["sample"]["queries"]
           if q["fact_bytes"] > 0]
    if not sql or a.iters < 1:
        sys.exit("modes: no sample query reads fact data, or --iters < 1")
    pm, t = a.pmolap, str(a.threads)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "r.json")
        membench = lambda: find(run_json([pm, "membench", "--operation", "read", "--access-size",
                                          "4K", "--threads", t, "--tier", "dram", "--duration",
                                          "2.0", "--quiet"], tmp), "read_gib_s_median")
        for i in range(a.iters):
            before = membench()
            doc = run_json([pm, "sql", "--data", a.data, "--threads", t, "--reps", "3", "--quiet",
                            "\n".join(sql)], tmp)
            gib = [q["fact_bytes"] / (q["median_ms"] * 1e-3) / 2**30 for q in doc["queries"]
                   if q["fact_bytes"] > 0]
            after = membench()
            row = {"membench_before_gib_s": before, "sample_median_gib_s": statistics.median(gib),
                   "membench_after_gib_s": after}
            rows.append(row)
            print(f"round {i + 1}: membench {before:.1f}, sample median {row['sample_median_gib_s']:.2f}"
                  f" GiB/s, membench {after:.1f}", flush=True)
    out = {"kind": "bandwidth-modes", "config": vars(a), "machine": peers.get("machine"),
           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": rows}
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
