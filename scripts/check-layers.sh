#!/usr/bin/env bash
# Structure checks (issue 31), run by scripts/test.sh and by anyone:
#
# 1. Crate layers. The layer order is the ```layers block of docs/architecture.md (bottom
#    layer first, one layer per line). Every workspace-internal dependency of a workspace
#    crate (normal, build or dev), read from `cargo metadata --no-deps`, must point to a
#    crate in a lower layer: one in the same or a higher layer, or a crate missing from the
#    list, fails naming the edge. A listed crate the workspace does not have (yet) is
#    ignored.
# 2. No import circles among the files of crates/engine/src/exec and crates/report/src:
#    an edge A -> B for every path in file A (in a `use` or in the code: crate::, super::,
#    self::, or a child module named from its mod.rs) that lands in file B of the same
#    directory tree. A file reaching its own enclosing module's mod.rs / lib.rs (the
#    module's face: what it defines or re-exports) and a face's re-exports (`pub use`) do
#    not count. A circle fails naming its files.
#
# Usage: bash scripts/check-layers.sh   (needs cargo and python3; exits 1 on a violation)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import json, os, re, subprocess, sys

# --- 1. crate layers -------------------------------------------------------------------
doc = "docs/architecture.md"
text = open(doc, encoding="utf-8").read()
m = re.search(r"^```layers\n(.*?)^```", text, re.M | re.S)
if not m:
    sys.exit(f"check-layers: {doc} has no ```layers block")
layer = {}
for n, line in enumerate(l.split("#")[0].split() for l in m.group(1).splitlines()):
    for name in line:
        if name in layer:
            sys.exit(f"check-layers: {doc}: {name} is listed twice")
        layer[name] = n

meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--format-version", "1", "--no-deps"],
    check=True, capture_output=True, text=True).stdout)
members = {p["name"] for p in meta["packages"]}
bad = []
for name in sorted(members - layer.keys()):
    bad.append(f"{name} is a workspace crate but not in the layer list of {doc}")
for p in sorted(meta["packages"], key=lambda p: p["name"]):
    src = p["name"]
    for d in p["dependencies"]:
        dst, kind = d["name"], d.get("kind") or "normal"
        if dst not in members or src not in layer:
            continue
        if dst not in layer:
            bad.append(f"{src} -> {dst} ({kind}): {dst} is not in the layer list")
        elif layer[dst] >= layer[src]:
            where = "the same layer" if layer[dst] == layer[src] else "a higher layer"
            bad.append(f"{src} -> {dst} ({kind}): {dst} is in {where}")

# --- 2. import circles -----------------------------------------------------------------
def split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [x for x in parts if x]

def expand(tree):
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]]"""
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [[x for x in tree.split("::") if x]]
    prefix = [x for x in m.group(1).split("::") if x]
    return [prefix + rest for part in split_top(m.group(2)) for rest in expand(part)]

def module_of(src_root, path):
    rel = os.path.relpath(path, src_root)[:-3].split(os.sep)
    return tuple(rel[:-1] if rel[-1] in ("mod", "lib", "main") else rel)

def circles(src_root, tree):
    files = {}
    for d, _, names in os.walk(tree):
        for f in names:
            if f.endswith(".rs"):
                files[module_of(src_root, os.path.join(d, f))] = os.path.join(d, f)
    faces = {m for m, p in files.items()
             if os.path.basename(p) in ("mod.rs", "lib.rs", "main.rs")}
    edges = {m: set() for m in files}

    def resolve(mod, p):
        """The module path `p` (as written in file `mod`) names, from the crate root."""
        if p[0] == "crate":
            return list(p[1:])
        if p[0] == "self":
            return list(mod) + list(p[1:])
        if p[0] == "super":
            base = list(mod)
            while p and p[0] == "super":
                base, p = base[:-1], p[1:]
            return base + list(p)
        if mod in faces and (*mod, p[0]) in files:
            return list(mod) + list(p)  # a child module, named relative to its face
        return None  # another crate, std, or a local name

    def add(mod, p):
        full = resolve(mod, p)
        if full is None:
            return
        target = next((tuple(full[:k]) for k in range(len(full), 0, -1)
                       if tuple(full[:k]) in files), None)
        # A file reaching what its own enclosing module (one of its faces) defines or
        # re-exports is the module's normal shape, not a circle.
        if target and target != mod and not (target in faces and mod[:len(target)] == target):
            edges[mod].add(target)

    for mod, path in files.items():
        body = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
        for u in re.finditer(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", body, re.M):
            # A face's re-exports (`pub use child::X`) declare, they do not use.
            if not (u.group(1) and mod in faces):
                tree_text = re.sub(r"\s+as\s+\w+", "", u.group(2))
                for p in expand(re.sub(r"\s+", "", tree_text)):
                    if p:
                        add(mod, p)
        rest = re.sub(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", "", body, flags=re.M)
        for m in re.finditer(r"(?<![\w:])(\w+(?:::\w+)+)", rest):
            add(mod, m.group(1).split("::"))
    # Strongly connected components (Tarjan); any with two or more files is a circle.
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(os.path.relpath(files[c]) for c in comp))
    for v in sorted(files):
        if v not in index:
            visit(v)
    return out

sys.setrecursionlimit(10000)
for src_root, tree in [("crates/engine/src", "crates/engine/src/exec"),
                       ("crates/report/src", "crates/report/src")]:
    for c in circles(src_root, tree):
        bad.append(f"import circle among {len(c)} files of {tree}: {', '.join(c)}")

if bad:
    for b in bad:
        print(f"check-layers: {b}", file=sys.stderr)
    sys.exit(1)
print(f"check-layers: {len(members)} crates in layer order, no import circles")
PY
