#!/usr/bin/env bash
# scripts/release-provenance on a tiny fake release: it verifies what it sealed, and refuses
# each way a release can be tampered with after sealing. The swap with SHA256SUMS rewritten
# to match is the case that checking sums alone (`sha256sum -c`) would pass.
#
#   bash testing/release/tamper.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prov="$root/scripts/release-provenance"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
openssl genpkey -algorithm ed25519 -out "$tmp/key.pem" 2>/dev/null
openssl pkey -in "$tmp/key.pem" -pubout -out "$tmp/pub.pem"
openssl genpkey -algorithm ed25519 -out "$tmp/other.pem" 2>/dev/null

fresh() {
    rm -rf "$tmp/dist"
    mkdir -p "$tmp/dist/python" "$tmp/dist/cli"
    printf 'wheel bytes' >"$tmp/dist/python/actionseal-0.1.0-cp310-abi3-manylinux2014_x86_64.whl"
    printf 'binary bytes' >"$tmp/dist/cli/actionseal-0.1.0-x86_64-unknown-linux-musl"
    "$prov" seal "$tmp/dist" --key "$tmp/key.pem" >/dev/null
}
passed=0 failed=0
expect() { # expect ok|refused NAME: verify the current dist
    local want="$1" name="$2" got=ok
    "$prov" verify "$tmp/dist" --pub "$tmp/pub.pem" >"$tmp/out" 2>&1 || got=refused
    if [ "$got" = "$want" ]; then
        passed=$((passed + 1))
        echo "ok: $name: $got"
        sed -n 's/^release-provenance: verify failed: /    /p' "$tmp/out"
    else
        failed=$((failed + 1))
        echo "FAILED: $name: expected $want, got $got"
        cat "$tmp/out"
    fi
}

fresh
expect ok "the release as sealed"
( cd "$tmp/dist" && sha256sum --quiet -c SHA256SUMS ) && echo "ok: sha256sum -c reads SHA256SUMS"

fresh
printf 'X' >>"$tmp/dist/cli/actionseal-0.1.0-x86_64-unknown-linux-musl"
expect refused "an artifact changed"

fresh
f="$tmp/dist/python/actionseal-0.1.0-cp310-abi3-manylinux2014_x86_64.whl"
printf 'evil wheel' >"$f"
sed -i "s/^[0-9a-f]*\(  python\/\)/$(sha256sum "$f" | cut -c1-64)\1/" "$tmp/dist/SHA256SUMS"
( cd "$tmp/dist" && sha256sum --quiet -c SHA256SUMS ) && echo "ok: (sha256sum -c alone accepts the swap)"
expect refused "an artifact swapped and SHA256SUMS rewritten to match"

fresh
printf 'extra' >"$tmp/dist/python/actionseal-0.1.0.tar.gz"
expect refused "an artifact added"

fresh
rm "$tmp/dist/cli/actionseal-0.1.0-x86_64-unknown-linux-musl"
expect refused "an artifact removed"

fresh
"$prov" seal "$tmp/dist" --key "$tmp/other.pem" >/dev/null
expect refused "re-sealed with another key"

fresh
python3 - "$tmp/dist/provenance.intoto.jsonl" <<'PY'
import base64, json, sys
path = sys.argv[1]
env = json.loads(open(path).read())
st = json.loads(base64.b64decode(env["payload"]))
st["subject"][0]["digest"]["sha256"] = "0" * 64
env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
open(path, "w").write(json.dumps(env) + "\n")
PY
expect refused "the signed statement's payload edited"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
