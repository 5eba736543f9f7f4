#!/usr/bin/env bash
# The README's quick start, as a newcomer runs it: a fresh clone of HEAD in a temp dir, a HOME with no
# caches, a PATH with only the machine's Node and npm (plus /usr/bin:/bin for redis and git), then
# `npm run demo` and `npm test`. Slow (it downloads Node 24, pnpm and every dependency): CI runs it from
# .ci/run, not the unit suite. Commit first: uncommitted changes are not in the clone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
node_bin="$(dirname "$(command -v node)")"
npm_bin="$(dirname "$(command -v npm)")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/repo"
mkdir "$work/home"
echo "newcomer: clone of $(git -C "$root" rev-parse --short HEAD) in $work/repo; node $("$node_bin/node" -v) from $node_bin; empty HOME"
for cmd in "npm run demo" "npm test"; do
  echo "newcomer: $cmd"
  env -i HOME="$work/home" PATH="$node_bin:$npm_bin:/usr/bin:/bin" ${REDIS_URL:+REDIS_URL="$REDIS_URL"} \
    bash -c "cd '$work/repo' && $cmd" > "$work/out.log" 2>&1 || {
    cat "$work/out.log"
    echo "newcomer: \`$cmd\` failed in a fresh clone (its output is above)"
    exit 1
  }
  if [ "$cmd" = "npm run demo" ]; then
    # The demo's own output must come right after the toolchain's few status lines: no build logs, no
    # engine warnings, no telemetry banner.
    grep -E -i 'unsupported engine|telemetry|WARN|npm notice' "$work/out.log" && {
      echo "newcomer: the demo's output has noise (above)"
      exit 1
    }
    grep -q 'reply completed' "$work/out.log" || {
      cat "$work/out.log"
      echo "newcomer: the demo did not finish its reply"
      exit 1
    }
    head -n 24 "$work/out.log"
  else
    tail -n 6 "$work/out.log"
  fi
done
echo "newcomer: both quick-start commands work in a fresh clone"
