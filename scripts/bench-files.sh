#!/usr/bin/env bash
# bench-files.sh DIR — time the "what enters context" file walk.
#
# Compares, as the median of RUNS (default 9) interleaved runs each, the wall
# time and the CPU time (user + system, the child's own rusage at
# microsecond resolution, measured by scripts/cputime.go) of:
#   git ls-files --cached --others --exclude-standard --exclude-from=.powerignore
#   rg --files --no-require-git --hidden --ignore-file .powerignore
#   recite files -C DIR (the CLI, built here; process start, config and
#   planning load included)
# and checks that recite's list equals git's.
#
# DIR is created with MKTREE (default ../shared/bench/mktree.go beside the
# repository; 90,716 files) when it does not exist, and made a git
# repository (nothing tracked) when it is not one. Needs git, go, and
# optionally ripgrep (apt-get install ripgrep).
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mktree=${MKTREE:-$(cd "$here/.." && pwd)/shared/bench/mktree.go}
runs=${RUNS:-9}
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

if [[ ! -e $dir ]]; then
	[[ -f $mktree ]] || { echo "no $mktree to build $dir (set MKTREE)" >&2; exit 2; }
	(cd "$here" && go run "$mktree" -o "$dir")
fi
dir=$(cd "$dir" && pwd)
[[ -d $dir/.git ]] || git -C "$dir" init -q .

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go build -o "$tmp/recite" ./cmd/recite && go build -o "$tmp/cputime" scripts/cputime.go)

# measure NAME CMD... : run CMD once with stdout discarded; append its
# wall and CPU (user + system) microseconds to $tmp/wall.NAME and
# $tmp/cpu.NAME.
measure() {
	local name=$1 user sys wall
	shift
	read -r user sys wall < <("$tmp/cputime" "$@")
	echo "$wall" >>"$tmp/wall.$name"
	echo $((user + sys)) >>"$tmp/cpu.$name"
}
# median FILE: the median of the microsecond numbers in FILE, in ms.
median() { sort -n "$1" | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000}'; }

git_cmd() { git -C "$dir" ls-files --cached --others --exclude-standard --exclude-from=.powerignore; }
rg_cmd() { rg --files --no-require-git --hidden --ignore-file "$dir/.powerignore" "$dir"; }
recite_cmd() { "$tmp/recite" -C "$dir" files; }

# Warm the page cache once.
git_cmd >/dev/null
recite_cmd >/dev/null

git -C "$dir" ls-files -z --cached --others --exclude-standard --exclude-from=.powerignore | sort -z >"$tmp/git.list"
recite_cmd | tr '\n' '\0' | sort -z >"$tmp/recite.list"
ngit=$(tr -cd '\0' <"$tmp/git.list" | wc -c)
nrec=$(tr -cd '\0' <"$tmp/recite.list" | wc -c)
files=$(find "$dir" -path "$dir/.git" -prune -o -type f -print | wc -l)
echo "tree: $dir ($files files)"
if cmp -s "$tmp/git.list" "$tmp/recite.list"; then
	echo "lists: recite $nrec files = git $ngit files (identical)"
else
	echo "lists: recite $nrec files, git $ngit files: DIFFERENT" >&2
	diff <(tr '\0' '\n' <"$tmp/git.list") <(tr '\0' '\n' <"$tmp/recite.list") | head -20 >&2
	status=1
fi

# Interleave the tools so that load from other processes hits all alike.
have_rg=$(command -v rg >/dev/null && echo 1 || echo 0)
for _ in $(seq "$runs"); do
	measure git git -C "$dir" ls-files --cached --others --exclude-standard --exclude-from=.powerignore
	[[ $have_rg == 1 ]] && measure rg rg --files --no-require-git --hidden --ignore-file "$dir/.powerignore" "$dir"
	measure recite "$tmp/recite" -C "$dir" files
done
echo "median of $runs interleaved runs:       wall ms      CPU ms (user+sys)"
printf '%-8s %12s %12s  (%s)\n' git "$(median "$tmp/wall.git")" "$(median "$tmp/cpu.git")" "git ls-files --cached --others --exclude-standard --exclude-from=.powerignore"
if [[ $have_rg == 1 ]]; then
	nrg=$(rg_cmd | wc -l)
	printf '%-8s %12s %12s  (%s; lists %s files)\n' rg "$(median "$tmp/wall.rg")" "$(median "$tmp/cpu.rg")" "rg --files --no-require-git --hidden --ignore-file .powerignore" "$nrg"
else
	echo "rg       not installed (apt-get install ripgrep)"
fi
printf '%-8s %12s %12s  (%s)\n' recite "$(median "$tmp/wall.recite")" "$(median "$tmp/cpu.recite")" "recite files -C DIR (4×GOMAXPROCS readers, process start included)"
awk -v gw="$(median "$tmp/wall.git")" -v gc="$(median "$tmp/cpu.git")" -v rw="$(median "$tmp/wall.recite")" -v rc="$(median "$tmp/cpu.recite")" 'BEGIN {
	printf "ratio recite/git: wall %.2f×, CPU %.2f×  (target: CPU ≤ 1.00×)\n", rw / gw, rc / gc
}'
exit "${status:-0}"
