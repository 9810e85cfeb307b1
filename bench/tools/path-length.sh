#!/bin/bash
# Instructions per map operation, counted by callgrind (valgrind): the benchmark's own numbers move
# with the host's load, an instruction count does not. Runs MapPathLength twice under callgrind, with
# N and 2N measured operations after the same warm-up, and divides the difference of the main
# thread's counts by N. -Xbatch compiles in the foreground, so both runs compile alike.
#
#   bench/tools/path-length.sh [MODE...]      (default: every mode; BACKEND=unsafe, N=100000,
#                                              ENTRIES=50000, WARMUP=300000, JAVA=java, JAVA_OPTS
#                                              added to the JVM's flags, e.g. -Dferrite.checks=false)
# Needs valgrind (Debian: apt-get install valgrind) and a built bench/target/ferrite-bench.jar.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
jar=$here/bench/target/ferrite-bench.jar
backend=${BACKEND:-unsafe}; n=${N:-100000}; entries=${ENTRIES:-50000}; warm=${WARMUP:-300000}; java=${JAVA:-java}
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(loop chm-get get get-into contains miss read-value get-all chm-put put insert get-text put-text)
flags=(-Xbatch ${JAVA_OPTS:-})
[ "$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')" -ge 24 ] \
    && flags+=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
count() { # mode, operations -> instructions of the main thread
    local out; out=$(mktemp -d)
    valgrind --tool=callgrind --separate-threads=yes --smc-check=all-non-file --callgrind-out-file="$out/cg.%p" \
        "$java" "${flags[@]}" -cp "$jar" dev.ferrite.bench.map.MapPathLength "$1" "$backend" "$entries" "$warm" "$2" \
        > "$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
    # thread 1 is the launcher, thread 2 runs main
    sed -n 's/^summary: //p' "$out"/cg.*-02
    rm -rf "$out"
}
printf '%-11s %s\n' mode "instructions per operation ($backend, $entries entries, $("$java" -version 2>&1 | head -1))"
for m in "${modes[@]}"; do
    a=$(count "$m" "$n"); b=$(count "$m" $((2 * n)))
    printf '%-11s %d\n' "$m" $(( (b - a) / n ))
done
