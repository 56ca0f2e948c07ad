#!/usr/bin/env bash
# make demo: an agent's session through `wsfs run` against a wsfs server
# (FUSE mount and control socket) on the default store (a local folder),
# in a throwaway state folder that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# The demo mounts a FUSE file system: it needs /dev/fuse, and root or
# fusermount3 (setuid, from fuse3) to mount as another user.
fuse_dev=${WSFS_FUSE_DEVICE:-/dev/fuse}
if [ ! -c "$fuse_dev" ]; then
	echo "make demo needs FUSE, and $fuse_dev is missing: load the module (modprobe fuse) or, in a container, run it with --device /dev/fuse (and --cap-add SYS_ADMIN)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ] && ! command -v fusermount3 >/dev/null 2>&1; then
	echo "make demo needs root, or fusermount3 to mount FUSE as $(id -un): run it as root, or install fuse3 (apt-get install fuse3)" >&2
	exit 1
fi
# The freshly built binaries come first on PATH, so the steps below read
# as a user would type them.
export PATH=$PWD/bin:$PATH
wsfs=$PWD/bin/wsfs
export WSFS_HOME
WSFS_HOME=$(mktemp -d /tmp/wsfs-demo.XXXXXX)
mnt=$WSFS_HOME/mnt
mkdir -p "$mnt"
unset WSFS_STORE
server=
cleanup() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		"$wsfs" umount "$mnt" >/dev/null 2>&1 || kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$WSFS_HOME"
}
trap cleanup EXIT

# step shows a command as one would type it (arguments with spaces or
# shell characters quoted), then runs it.
step() {
	local shown=() a
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./@=:,+-]+$ ]]; then
			shown+=("$a")
		elif [[ $a == *\'* && $a != *[\$\`\"!]* && $a != *\\[\$\`\"\\]* ]]; then
			shown+=("\"$a\"")
		else
			shown+=("'${a//\'/\'\\\'\'}'")
		fi
	done
	printf '\n\033[1m$ %s\033[0m\n' "${shown[*]}"
	"$@"
}

echo "wsfs demo — state folder $WSFS_HOME (objects in $WSFS_HOME/objects, history in $WSFS_HOME/meta.db)"
step wsfs create acme/reports

# The server: every workspace as a live folder under $mnt.
wsfs mount "$mnt" >"$WSFS_HOME/server.out" 2>"$WSFS_HOME/server.log" &
server=$!
for _ in $(seq 100); do
	grep -q '^wsfs: serving' "$WSFS_HOME/server.out" 2>/dev/null && break
	kill -0 "$server" 2>/dev/null || { cat "$WSFS_HOME/server.log"; exit 1; }
	sleep 0.1
done
grep -q '^wsfs: serving' "$WSFS_HOME/server.out" || { echo "the server did not start"; cat "$WSFS_HOME/server.log"; exit 1; }
cat "$WSFS_HOME/server.out"

# An agent's session: each command is one revision (if it changes
# something); the working directory carries over.
step wsfs run -w acme/reports "mkdir -p reports/empty; cd reports; printf 'name,score\nAlpha,8\nBeta,9\n' > scores.csv; cat scores.csv"
step wsfs run -w acme/reports 'pwd; cat scores.csv'
step wsfs run -w acme/reports 'mv scores.csv final.csv; echo Gamma,7 >> final.csv; sort -t, -k2 -n final.csv'
step wsfs run --json -w acme/reports 'ls -R /workspace'
step find "$mnt/acme/reports" -print
step wsfs log acme/reports
step wsfs diff acme/reports@2 acme/reports@3
step wsfs fork acme/reports@2 acme/experiment
step wsfs run -w acme/experiment 'pwd; ls'
step wsfs umount "$mnt"
wait "$server"
server=
step wsfs fsck
echo
echo "demo done: every revision above is kept in the history; nothing was rewritten."
