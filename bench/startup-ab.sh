#!/bin/bash
# Start-up of two built checkouts, side by side: bench/startup-ab.sh ROUNDS CHECKOUT_A CHECKOUT_B [command ...]
# (default commands: agents sessions tools --help). Each checkout gets its own copy of this
# repository's quickstart project under ${TMPDIR:-/tmp}/startup-ab/ (the compiled config is cached
# per config file: in the user's cache folder, or in the project for a checkout older than issue 34),
# made once with one `oryx run`. Per command: the
# median/minimum wall ms and CPU ms (user + system, process.cpuUsage() at exit) of A and B over
# ROUNDS×5 interleaved runs, and node -e 0's. On a busy machine the minimum says more.
set -e
R=$1; A=$(cd "$2" && pwd); B=$(cd "$3" && pwd); shift 3
CMDS=("$@"); [ ${#CMDS[@]} -eq 0 ] && CMDS=(agents sessions tools --help)
HERE=$(cd "$(dirname "$0")/.." && pwd)
BASE=${TMPDIR:-/tmp}/startup-ab
T=$(mktemp -d); trap 'rm -rf $T' EXIT
proj() {
  local d=$BASE/$(echo "$1" | tr '/' '_')
  if [ ! -d "$d" ]; then
    mkdir -p "$d"; cp "$HERE/oryx.config.ts" "$HERE/README.md" "$d"/; cp -r "$HERE/.oryxos" "$d"/
    rm -f "$d"/.oryxos/oryx.db*; rm -rf "$d"/.oryxos/cache
    (cd "$d" && node "$1/bin/run.js" run "$(grep -oE '(npx oryx|bin/run.js) run "[^"]*"' README.md | head -1 | sed -E 's/^(npx oryx|bin\/run.js) run "//; s/"$//')" >/dev/null)
  fi
  echo "$d"
}
PA=$(proj "$A"); PB=$(proj "$B")
one() {
  local s e; s=$(date +%s%N)
  CPU_OUT=$T/cpu node -r "$HERE/bench/cpu-at-exit.cjs" "$@" >/dev/null 2>$T/err || { echo "FAILED: node $*" >&2; cat $T/err >&2; exit 1; }
  e=$(date +%s%N); echo "$(( (e-s)/1000000 )) $(tail -1 $T/cpu)"
}
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)] "/" a[1]}'; }
for c in "${CMDS[@]}"; do
  : > $T/a; : > $T/b; : > $T/n
  for r in $(seq $R); do for i in 1 2 3 4 5; do
    (cd $PA && one -e 0) >> $T/n
    (cd $PA && one $A/bin/run.js $c) >> $T/a
    (cd $PB && one $B/bin/run.js $c) >> $T/b
  done; done
  printf '%-10s A wall %8s cpu %8s | B wall %8s cpu %8s | node -e 0 wall %7s cpu %7s\n' "$c" \
    $(cut -d' ' -f1 $T/a | med) $(cut -d' ' -f2 $T/a | med) $(cut -d' ' -f1 $T/b | med) $(cut -d' ' -f2 $T/b | med) \
    $(cut -d' ' -f1 $T/n | med) $(cut -d' ' -f2 $T/n | med)
done
