#!/usr/bin/env bash
# Installs what the test suite needs on a Debian machine, idempotently:
# fuse3 (fusermount3), the GNU reference tools for differential tests
# (gawk, sed, grep, jq, ripgrep, bash, node, patch, cmp, xxd, zip, unzip,
# bc, shuf, iconv), MinIO built from the Go module proxy, and
# staticcheck. Run as root (CI is root); as another user apt steps use sudo.
set -euo pipefail

gobin=$(go env GOPATH)/bin
export PATH="$gobin:$PATH"

need_apt=()
command -v fusermount3 >/dev/null 2>&1 || need_apt+=(fuse3)
command -v gawk >/dev/null 2>&1 || need_apt+=(gawk)
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
command -v sed >/dev/null 2>&1 || need_apt+=(sed)
command -v grep >/dev/null 2>&1 || need_apt+=(grep)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v tar >/dev/null 2>&1 || need_apt+=(tar)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs) # reference for js-exec's Node modules
command -v patch >/dev/null 2>&1 || need_apt+=(patch)
command -v cmp >/dev/null 2>&1 || need_apt+=(diffutils)
command -v xxd >/dev/null 2>&1 || need_apt+=(xxd)
command -v zip >/dev/null 2>&1 || need_apt+=(zip)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
command -v bc >/dev/null 2>&1 || need_apt+=(bc)
command -v shuf >/dev/null 2>&1 || need_apt+=(coreutils)
command -v iconv >/dev/null 2>&1 || need_apt+=(libc-bin)
if [ ${#need_apt[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "deps: installing ${need_apt[*]} from Debian"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need_apt[@]}"
fi

if ! command -v minio >/dev/null 2>&1; then
  # A long build (5 to 10 minutes on two cores, once): say how it goes
  # every 15 s, from go install -v's list of what it has downloaded and
  # compiled, and show its errors as they come.
  echo "deps: building MinIO from the Go module proxy for the S3 tests (once; 5 to 10 minutes on two cores)"
  start=$SECONDS last=$SECONDS downloaded=0 compiled=0
  GOFLAGS= go install -v github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c 2>&1 | while IFS= read -r line; do
    case $line in
      "go: downloading "*) downloaded=$((downloaded + 1)) ;;
      *": "*) echo "$line" ;;
      *) compiled=$((compiled + 1)) ;;
    esac
    if ((SECONDS - last >= 15)); then
      last=$SECONDS
      echo "deps: MinIO: $downloaded modules downloaded, $compiled packages compiled ($((SECONDS - start)) s)"
    fi
  done
  echo "deps: MinIO built in $((SECONDS - start)) s: $(command -v minio)"
fi

if ! command -v staticcheck >/dev/null 2>&1; then
  echo "deps: installing staticcheck"
  GOFLAGS= go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
echo "deps: ready (minio: $(command -v minio), staticcheck: $(command -v staticcheck))"
