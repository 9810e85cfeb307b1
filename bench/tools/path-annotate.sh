#!/bin/bash
# Where a map operation's instructions go: runs MapPathLength once under callgrind with
# -XX:CompileCommand=print for one method, and prints that method's last C2 code, each executed
# instruction with how many times it ran per call of the method (callgrind's count at that address
# divided by the count of the method's verified entry point). The JVM prints the code as hex without a
# disassembler library; objdump disassembles it. Pick a method compiled on its own (MapStore::read
# is: its callers call it), not one inlined into its callers.
#
#   bench/tools/path-annotate.sh MODE CLASS::METHOD     e.g. read-value dev.ferrite.kv.MapStore::read
#
# BACKEND, JAVA, JAVA_OPTS, N, ENTRIES and WARMUP as for path-length.sh. Needs valgrind, objdump
# (binutils), python3 and a built bench/target/ferrite-bench.jar.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
jar=$here/bench/target/ferrite-bench.jar
backend=${BACKEND:-unsafe}; n=${N:-100000}; entries=${ENTRIES:-50000}; warm=${WARMUP:-300000}; java=${JAVA:-java}
flags=(-Xbatch -XX:+UnlockDiagnosticVMOptions "-XX:CompileCommand=print,$2" ${JAVA_OPTS:-})
[ "$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')" -ge 24 ] \
    && flags+=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --dump-instr=yes --separate-threads=yes --smc-check=all-non-file \
    --callgrind-out-file="$out/cg.%p" "$java" "${flags[@]}" -cp "$jar" dev.ferrite.bench.map.MapPathLength \
    "$1" "$backend" "$entries" "$warm" "$n" > "$out/code.txt" 2>&1 || { tail -20 "$out/code.txt" >&2; exit 1; }
# thread 1 is the launcher, thread 2 runs main
python3 - "$out/code.txt" "$out"/cg.*-02 "${2#*::}" "$out/code.bin" <<'PY'
import collections, re, subprocess, sys
code_txt, counts_file, method, blob_file = sys.argv[1:5]
counts = collections.Counter()  # instruction address -> times executed (inclusive cost lines after calls= skipped)
last, after_call = 0, False
for line in open(counts_file):
    if line.startswith('calls='):
        after_call = True
        continue
    parts = line.split()
    if len(parts) < 3 or not (parts[0].startswith('0x') or parts[0][0] in '+-*'):
        continue
    a = parts[0]
    last = int(a, 16) if a.startswith('0x') else last if a == '*' else last + int(a)
    if after_call:
        after_call = False
    else:
        counts[last] += int(parts[2])
text = open(code_txt).read().split('\n')
starts = [i for i, l in enumerate(text) if 'Compiled method (c2)' in l and '::' + method + ' ' in l]
if not starts:
    sys.exit('no C2 code of ' + method + ' in the run')
code, i, verified, at_verified = {}, starts[-1], None, False
for l in text[i + 1:]:
    if l.startswith('Compiled method') or l.startswith('[Exception Handler]') or l.startswith('[Stub Code]'):
        break
    at_verified = at_verified or l.startswith('[Verified Entry Point]')
    m = re.match(r'\s+(0x[0-9a-f]+): ([0-9a-f| ]+)$', l)
    if m:
        if at_verified and verified is None:
            verified = int(m.group(1), 16)  # every call runs it once; a virtual call enters before it
        for k, x in enumerate(bytes.fromhex(m.group(2).replace('|', '').replace(' ', ''))):
            code[int(m.group(1), 16) + k] = x
lo, hi = min(code), max(code) + 1
open(blob_file, 'wb').write(bytes(code.get(a, 0x90) for a in range(lo, hi)))
listing = subprocess.run(['objdump', '-D', '-b', 'binary', '-mi386:x86-64', '--adjust-vma=%#x' % lo, blob_file],
                         capture_output=True, text=True, check=True).stdout
rows = [(int(m.group(1), 16), m.group(2)) for m in (re.match(r'\s*([0-9a-f]+):\s+(.*)', l) for l in listing.split('\n')) if m]
calls = counts[verified] if verified is not None else 0
if not calls:
    sys.exit(method + "'s last C2 code never ran: inlined into its callers?")
total = sum(counts[a] for a in range(lo, hi))
print('%s: %.1f instructions a call (%d calls of its last C2 code)' % (text[i].strip(), total / calls, calls))
for a, ins in rows:
    if counts[a]:
        print('%8.2f  %x: %s' % (counts[a] / calls, a, ins))
PY
