#!/usr/bin/env bash
# Listing speed with executable scripts: agg list --json vs rg --files on a generated monorepo
# of 2,000 packages, each with a bin/ directory (two scripts, a binary, a non-executable data
# file) and every fourth with a scripts/ directory as well, plus a Makefile per package.
#
#   scripts/bench/scripts.sh [AGG]
#
# AGG defaults to target/release/agg (built when missing). The tree is generated once into
# target/bench-bins. The target: agg list within 1.5x of rg --files.
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/bench/tools.sh
AGG=${1:-target/release/agg}
TREE=target/bench-bins
if [ ! -x "$AGG" ]; then cargo build --release; fi

if [ ! -f "$TREE/.done" ]; then
  rm -rf "$TREE"
  python3 - "$TREE" <<'EOF'
import os, random, sys

root = sys.argv[1]
rng = random.Random(7)
binary = b"\x7fELF\x02\x01\x01\x00" + bytes(rng.getrandbits(8) for _ in range(40_000))

def write(rel, data, mode=0o644):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(path, mode)

write(".gitignore", "dist/\n")
write("Makefile", "all:\n\t@true\n")
for i in range(2000):
    pkg = f"packages/group{i % 40}/pkg{i}"
    write(f"{pkg}/Makefile", f"build:\n\t@echo {i}\n")
    write(f"{pkg}/src/main.c", "int main(void) { return 0; }\n" * 20)
    write(f"{pkg}/README.md", f"# pkg{i}\n")
    write(f"{pkg}/bin/run", f"#!/bin/sh\n# Run package {i}.\nexec ./build/pkg{i} \"$@\"\n", 0o755)
    write(f"{pkg}/bin/setup.py", f"#!/usr/bin/env python3\n\"\"\"Set up package {i}.\"\"\"\n", 0o755)
    write(f"{pkg}/bin/tool", binary, 0o755)
    write(f"{pkg}/bin/data.txt", "not a script\n")
    write(f"{pkg}/dist/bin/generated", "#!/bin/sh\n", 0o755)
    if i % 4 == 0:
        write(f"{pkg}/scripts/release.sh", "#!/usr/bin/env bash\n# Release.\n", 0o755)
        write(f"{pkg}/scripts/helpers.sh", "#!/usr/bin/env bash\nhelper() { :; }\n")
EOF
  touch "$TREE/.done"
fi

echo "tree: $(cd "$TREE" && rg --files | wc -l) files not ignored; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tasks: $("$AGG" list "$TREE" --json 2>/dev/null | python3 -c 'import json,sys; t=json.load(sys.stdin)["tasks"]; print(len(t), "of which scripts:", sum(1 for x in t if x["runner"]=="script"))')"
hyperfine --warmup 3 --runs "${RUNS:-20}" -N \
  "rg --files $TREE" \
  "$AGG list $TREE --json"
