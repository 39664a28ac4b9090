"""Prints the bytes a pmolap workload accesses (structures with any count above 0)."""
import json
import sys

w = json.load(open(sys.argv[1]))
print(sum(s["bytes"] for s in w["structures"] if sum(s["counts"].values()) > 0))
