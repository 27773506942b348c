#!/usr/bin/env bash
# bench-files.sh DIR — time the "what enters context" file walk.
#
# Compares, as the median wall time of 5 interleaved runs each:
#   git ls-files --others --exclude-standard --exclude-from=.powerignore
#   rg --files --no-require-git --hidden --ignore-file .powerignore
#   recite files -C DIR (the CLI, built here; process start, config and
#   planning load included)
# and checks that recite's list equals git's.
#
# DIR is created with ../shared/bench/mktree.go (90,716 files) when it does
# not exist, and made a git repository (nothing tracked) when it is not one.
# Needs git, go, and optionally ripgrep (apt-get install ripgrep).
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$here/.." && pwd)/shared
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

if [[ ! -e $dir ]]; then
	[[ -f $shared/bench/mktree.go ]] || { echo "no $shared/bench/mktree.go to build $dir" >&2; exit 2; }
	(cd "$here" && go run "$shared/bench/mktree.go" -o "$dir")
fi
dir=$(cd "$dir" && pwd)
[[ -d $dir/.git ]] || git -C "$dir" init -q .

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go build -o "$tmp/recite" ./cmd/recite)

ns() { date +%s%N; }
# time_ms CMD... : run CMD once with stdout to /dev/null, print wall ms.
time_ms() {
	local t0 t1
	t0=$(ns)
	"$@" >/dev/null
	t1=$(ns)
	echo $(( (t1 - t0) / 1000 ))
}
# median: of the microsecond numbers on stdin, in ms.
median() { sort -n | sed -n 3p | awk '{printf "%.1f", $1/1000}'; }

git_cmd() { git -C "$dir" ls-files --others --exclude-standard --exclude-from=.powerignore; }
rg_cmd() { (cd "$dir" && rg --files --no-require-git --hidden --ignore-file .powerignore); }
recite_cmd() { "$tmp/recite" -C "$dir" files; }

# Warm the page cache once.
git_cmd >/dev/null
recite_cmd >/dev/null

git -C "$dir" ls-files -z --others --exclude-standard --exclude-from=.powerignore | sort -z >"$tmp/git.list"
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
: >"$tmp/t.git"; : >"$tmp/t.rg"; : >"$tmp/t.rec"
for _ in 1 2 3 4 5; do
	time_ms git_cmd >>"$tmp/t.git"
	[[ $have_rg == 1 ]] && time_ms rg_cmd >>"$tmp/t.rg"
	time_ms recite_cmd >>"$tmp/t.rec"
done
tgit=$(median <"$tmp/t.git")
trec=$(median <"$tmp/t.rec")
printf '%-8s %8s ms  (%s)\n' git "$tgit" "git ls-files --others --exclude-standard --exclude-from=.powerignore"
if [[ $have_rg == 1 ]]; then
	nrg=$(rg_cmd | wc -l)
	trg=$(median <"$tmp/t.rg")
	printf '%-8s %8s ms  (%s; lists %s files)\n' rg "$trg" "rg --files --no-require-git --hidden --ignore-file .powerignore" "$nrg"
else
	echo "rg       not installed (apt-get install ripgrep)"
fi
printf '%-8s %8s ms  (%s)\n' recite "$trec" "recite files -C DIR (4×GOMAXPROCS readers, process start included)"
awk -v g="$tgit" -v r="$trec" -v rg="${trg:-}" 'BEGIN {
	printf "ratio recite/git = %.2f×", r / g
	if (rg != "") printf ", recite/rg = %.2f×, rg/git = %.2f×", r / rg, rg / g
	printf "  (target ≤ 1.00× git)\n"
}'
exit "${status:-0}"
