#!/bin/sh
# What the malloc shim costs: builds the shim and bench-shim (release) and
# prints, for a malloc-heavy synthetic workload and for three real programs
# (python3, git and swiftc), CPU time, wall time and peak RSS under glibc
# alone, the shim (quarantine + scribble, then with allocation stacks) and
# the peers that are installed (valgrind memcheck, Electric Fence, DUMA,
# heaptrack; not for swiftc); for the synthetic workload also an idealised
# quarantine model (the cheapest form of the same idea: see
# docs/malloc-shim.md, Costs).
# Figures only: nothing here passes or fails. `faultline bench` runs these
# comparisons (and every other detector's) alternately with spreads and
# ratios, as JSON and HTML: see docs/benchmarks.md.
#
#   scripts/bench-shim.sh [--quick] [--no-peers] [--floor]
#
# --quick: a quarter of the synthetic operations, one run each, and the real
#          programs without peers (about a minute on 2 cores).
# --floor: instead, the synthetic workloads (uniform, then mix) under an
#          LD_PRELOAD library that only forwards to glibc
#          (scripts/bench-shim-floor.c): what interposition alone costs, the
#          floor under "every check off" (its `off` row; glibc beside it).
# Peers install with: apt-get install -y valgrind electric-fence duma heaptrack
set -eu
cd "$(dirname "$0")/.."

quick=""
peers=""
floor=""
for arg in "$@"; do
    case "$arg" in
        --quick) quick="--quick" ;;
        --no-peers) peers="--no-peers" ;;
        --floor) floor=1 ;;
        *) echo "bench-shim.sh: unknown option '$arg' (use --quick, --no-peers or --floor)" >&2; exit 2 ;;
    esac
done

scratch="${FAULTLINE_BENCH_SCRATCH:-.build-shim}"
swift build -c release --scratch-path "$scratch" --product FaultlineMallocShim >/dev/null
swift build -c release --scratch-path "$scratch" --product bench-shim >/dev/null
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
shim="$bin/libFaultlineMallocShim.so"
bench="$bin/bench-shim"
# As scripts/build does: the preloaded library must not pull in the Swift runtime.
scripts/drop-swift-runtime-dependency "$shim" >/dev/null

echo "== machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

if [ -n "$floor" ]; then
    cc="${CC:-cc}"
    command -v "$cc" >/dev/null 2>&1 || { echo "bench-shim.sh: --floor needs a C compiler ('$cc' not found; set CC)" >&2; exit 2; }
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    "$cc" -O2 -shared -fPIC -o "$out/floor.so" scripts/bench-shim-floor.c
    for w in uniform mix; do
        echo "== interposition alone (scripts/bench-shim-floor.c, the 'off' row), workload $w"
        "$bench" compare --shim "$out/floor.so" --only off --workload "$w" --repeat "${FAULTLINE_BENCH_REPEAT:-5}" --no-peers $quick
        echo
    done
    exit 0
fi
echo "== 1. synthetic malloc-heavy workload"
"$bench" compare --shim "$shim" $quick $peers
echo

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/work.py" <<'PY'
import collections, hashlib, json, re, threading
data = [{"id": i, "name": "item%d" % i, "tags": [str(j) * (j + 1) for j in range(i % 9)]} for i in range(30000)]
text = json.dumps(data)
back = json.loads(text)
counts = collections.Counter(len(d["tags"]) for d in back)
ids = re.findall(r'"item(\d+)"', text)
big = "".join(d["name"] * 50 for d in back[:2000])
def work(n, out):
    out.append(sum(len(json.dumps(back[k::n])) for k in range(n)))
out = []
threads = [threading.Thread(target=work, args=(n, out)) for n in (3, 5, 7)]
for t in threads: t.start()
for t in threads: t.join()
print(len(text), sorted(counts.items()), len(ids), len(big), sorted(out))
print(hashlib.sha256(text.encode()).hexdigest())
PY
real_peers="$peers"
[ -n "$quick" ] && real_peers="--no-peers"
repeat=3
[ -n "$quick" ] && repeat=1

# The interpreter itself, not a version manager's wrapper script.
python="$(command -v python3)"
if command -v pyenv >/dev/null 2>&1; then python="$(pyenv which python3 2>/dev/null || echo "$python")"; fi
echo "== 2. python3: json, re, hashlib and threads over 30000 records"
"$bench" compare --shim "$shim" --repeat "$repeat" $real_peers -- "$python" "$work/work.py"
echo

# Pinned to today's HEAD: other people commit while this runs, and every
# setup must print the same history.
head="$(git rev-parse HEAD)"
echo "== 3. git: log --stat -p of 40 commits of this repository (up to ${head%"${head#???????}"})"
"$bench" compare --shim "$shim" --repeat "$repeat" $real_peers -- git -C "$PWD" log --stat -p -n 40 --format=%H%n%s "$head"
echo

# The compiler is the biggest allocator here (the Swift front end records 1.2
# million allocation and free stacks, many of them distinct, which is where
# libunwind stacks cost most). Peers are left out: valgrind alone would take minutes.
cat > "$work/small.swift" <<'SWIFT'
struct Point: Hashable { var x: Int; var y: Int }
final class Grid {
    var cells: [Point: String] = [:]
    func fill(_ n: Int) { for i in 0..<n { cells[Point(x: i, y: i * 2)] = "cell \(i)" } }
}
let grid = Grid()
grid.fill(1000)
print(grid.cells.values.sorted().prefix(5).map { $0.uppercased() }.joined(separator: ","), grid.cells.count)
SWIFT
echo "== 4. swiftc -O: a small program, compiled and linked"
"$bench" compare --shim "$shim" --repeat "$repeat" --no-peers -- "$(command -v swiftc)" -O "$work/small.swift" -o "$work/small"
