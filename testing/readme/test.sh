#!/usr/bin/env bash
# Runs the README's five-minute start, in Python and in Node, from built packages only:
#
#   testing/readme/test.sh --wheel WHEEL --npm TGZ [--npm TGZ ...]
#
# Each language gets an empty folder. The wheel (with FastAPI and uvicorn) goes into a fresh
# venv there, the npm tarballs (with express) into a fresh node_modules. The README's blocks
# are written out as the files their first line names (refund.json, agent.py, approve.py,
# agent.mjs, approve.mjs), and its shell block runs as written, with two changes the reader
# makes by hand: the port is a free one, and ID and FP are read from the list the endpoint
# serves. Before Bob approves, a decision about another fingerprint must be refused (409).
# Exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

wheel=""
tgzs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) wheel="$(realpath "$2")"; shift 2 ;;
    --npm) tgzs+=("$(realpath "$2")"); shift 2 ;;
    *) echo "usage: $0 --wheel WHEEL --npm TGZ [--npm TGZ ...]" >&2; exit 64 ;;
  esac
done
if [ -z "$wheel" ] || [ "${#tgzs[@]}" -eq 0 ]; then
  echo "usage: $0 --wheel WHEEL --npm TGZ [--npm TGZ ...]" >&2
  exit 64
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The blocks, by the file their first line names, and the shell block after "Run both".
python3 - "$root/README.md" "$tmp" <<'EOF'
import re, sys
readme, out = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
start = readme.index("## Put actionseal in your agent")
section = readme[start:readme.index("\n## ", start + 1)]
blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.S)
named = {"json": "refund.json"}
files = {}
for lang, code in blocks:
    if lang == "sh":
        files["run.sh"] = code
        continue
    first = code.splitlines()[0]
    m = re.match(r"(?:#|//) (\S+): ", first)
    files[named.get(lang) or m.group(1)] = code
want = {"refund.json", "agent.py", "approve.py", "agent.mjs", "approve.mjs", "run.sh"}
if set(files) != want:
    sys.exit(f"README blocks: found {sorted(files)}, expected {sorted(want)}")
for name, code in files.items():
    open(f"{out}/{name}", "w", encoding="utf-8").write(code)
lines = sum(len(c.splitlines()) for n, c in files.items() if n.startswith("approve."))
print(f"README blocks: {sorted(files)}; the two approval endpoints have {lines} lines")
EOF

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The README's shell lines for one language, with the harness's waits between them.
script() {
  local port="$1" server="$2" agent="$3"
  local auth="Authorization: Bearer bob-secret"
  local list="curl -s -H \"$auth\" localhost:$port/tasks"
  mapfile -t lines < <(grep -v '^\s*$' "$tmp/run.sh" | sed "s/8000/$port/g")
  [ "${#lines[@]}" -eq 5 ] || { echo "FAIL: the README's run block has ${#lines[@]} lines, expected 5" >&2; exit 1; }
  cat <<EOS
set -euo pipefail
trap 'kill \$(jobs -p) 2>/dev/null || true' EXIT
${lines[0]/uvicorn approve:app/$server}
until curl -s -o /dev/null localhost:$port/; do sleep 0.2; done
${lines[1]/python agent.py/$agent}
until $list | grep -q order-17; do sleep 0.2; done
LIST=\$(${lines[2]}); echo "\$LIST"
ID=\$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])[0]["id"])' "\$LIST")
FP=\$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])[0]["fingerprint"])' "\$LIST")
code=\$(curl -s -o wrong.json -w '%{http_code}' -X POST -H "$auth" "localhost:$port/tasks/\$ID/approved?fingerprint=sha256:\$(printf '0%.0s' {1..64})")
[ "\$code" = 409 ] || { echo "FAIL: a decision about another fingerprint answered \$code: \$(cat wrong.json)"; exit 1; }
echo "another fingerprint refused: \$(cat wrong.json)"
${lines[3]}
echo
${lines[4]}
EOS
}

run() {
  local lang="$1" dir="$2" server="$3" agent="$4"
  local port
  port="$(free_port)"
  cp "$tmp/refund.json" "$dir/"
  sed -i "s/8000/$port/g" "$dir"/approve.* 
  script "$port" "$server" "$agent" > "$dir/run.sh"
  (cd "$dir" && bash run.sh) > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; echo "FAIL: the README's $lang start" >&2; exit 1; }
  if ! grep -qx 'refunded 2500 on order-17' "$dir/out.txt"; then
    cat "$dir/out.txt"
    echo "FAIL: the README's $lang agent did not print: refunded 2500 on order-17" >&2
    exit 1
  fi
  grep -E '^(awaiting approval|another fingerprint|refunded)' "$dir/out.txt" | sed "s/^/  $lang: /"
}

echo "== Python: the wheel, FastAPI and uvicorn in an empty venv"
py="$tmp/py"
mkdir -p "$py"
python3 -m venv "$py/venv"
"$py/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel" -r "$here/requirements.txt"
cp "$tmp/agent.py" "$tmp/approve.py" "$py/"
PATH="$py/venv/bin:$PATH" run Python "$py" "uvicorn approve:app" "python agent.py"

echo "== Node: the npm package and express in an empty folder"
js="$tmp/js"
mkdir -p "$js"
# The tarballs only (offline: none of them may come from the registry), then express.
(cd "$js" && echo '{"private": true, "type": "module"}' > package.json \
  && npm install --offline --silent --no-audit --no-fund "${tgzs[@]}" \
  && npm install --silent --no-audit --no-fund express@5.3.0)
cp "$tmp/agent.mjs" "$tmp/approve.mjs" "$js/"
run Node "$js" "node approve.mjs" "node agent.mjs"
echo "README five-minute start: ok in Python and Node"
