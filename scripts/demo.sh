#!/usr/bin/env bash
# make demo: wsfs's main job on the embedded default store (a local folder),
# in a throwaway state folder that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
wsfs=$PWD/bin/wsfs
export WSFS_HOME
WSFS_HOME=$(mktemp -d /tmp/wsfs-demo.XXXXXX)
trap 'rm -rf "$WSFS_HOME"' EXIT
unset WSFS_STORE

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

echo "wsfs demo — state folder $WSFS_HOME (objects in $WSFS_HOME/objects, history in $WSFS_HOME/meta.db)"
step "$wsfs" create acme/reports
printf 'name,score\nAlpha,8\nBeta,9\n' > "$WSFS_HOME/scores.csv"
step "$wsfs" put acme/reports reports/scores.csv < "$WSFS_HOME/scores.csv"
printf 'name,score\nAlpha,8\nBeta,10\nGamma,7\n' > "$WSFS_HOME/scores.csv"
step "$wsfs" put --force acme/reports reports/scores.csv < "$WSFS_HOME/scores.csv"
step "$wsfs" log acme/reports
step "$wsfs" diff acme/reports@2 acme/reports@3
step "$wsfs" restore acme/reports@2
step "$wsfs" cat acme/reports reports/scores.csv
step "$wsfs" fork acme/reports@3 acme/experiment
step "$wsfs" ls
step "$wsfs" fsck
echo
echo "demo done: every revision above is kept in the history; nothing was rewritten."
