package dev.ferrite.kv.server;

/**
 * Redis's glob patterns ({@code stringmatchlen}), over bytes: {@code *} any run, {@code ?} one
 * byte, {@code [abc]}, {@code [^a-z]} classes, {@code \x} a literal x; everything else literal;
 * Redis's quirks kept (see {@link #matches(byte[], byte[])} and the class ranges), since
 * {@code RedisDifferentialTest} holds the replies to Redis's own.
 * Used by KEYS, SCAN MATCH and CONFIG GET. Iterative: no pattern can overflow the stack; a
 * pattern that would pass Redis's recursion limit matches nothing, as in Redis.
 */
final class Glob {

    private Glob() {
    }

    /** @return whether {@code text} matches {@code pattern} as a whole (both as ISO-8859-1 text) */
    static boolean matches(String pattern, String text) {
        return matches(pattern.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    /**
     * @return whether {@code text} matches {@code pattern} as a whole. As in Redis, an empty text
     *         matches only an empty pattern or a lone {@code *} (which KEYS and SCAN take for "every
     *         key" before matching): not {@code **}, nor {@code ?*}.
     */
    static boolean matches(byte[] pattern, byte[] text) {
        if (text.length == 0) {
            return pattern.length == 0 || pattern.length == 1 && pattern[0] == '*';
        }
        if (innerStarRuns(pattern) > MAX_NESTING) {
            return false;
        }
        int p = 0;
        int t = 0;
        int starP = -1;
        int starT = 0;
        while (t < text.length) {
            if (p < pattern.length) {
                byte c = pattern[p];
                if (c == '*') {
                    starP = p++;
                    starT = t;
                    continue;
                }
                int next = matchOne(pattern, p, text[t]);
                if (next >= 0) {
                    p = next;
                    t++;
                    continue;
                }
            }
            if (starP < 0) {
                return false;
            }
            p = starP + 1; // let the last star take one more byte
            t = ++starT;
        }
        while (p < pattern.length && pattern[p] == '*') {
            p++;
        }
        return p == pattern.length;
    }

    /**
     * Redis's guard against abusive patterns: its matcher recurses once per run of stars and gives
     * up (no match) past this depth, which a pattern reaches when more runs of stars than this have
     * something after them.
     */
    static final int MAX_NESTING = 1000;

    /** @return how many runs of {@code *} the pattern has that are followed by another element */
    private static int innerStarRuns(byte[] pattern) {
        int runs = 0;
        boolean inRun = false;
        for (int p = 0; p < pattern.length; ) {
            byte c = pattern[p];
            if (c == '*') {
                inRun = true;
                p++;
                continue;
            }
            if (inRun) {
                runs++;
                inRun = false;
            }
            if (c == '\\' && p + 1 < pattern.length) {
                p += 2;
            } else if (c == '[') {
                int i = p + 1;
                while (i < pattern.length && pattern[i] != ']') {
                    i += pattern[i] == '\\' && i + 1 < pattern.length ? 2 : 1;
                }
                p = i < pattern.length ? i + 1 : i;
            } else {
                p++;
            }
        }
        return runs;
    }

    /** @return the pattern index after the element at {@code p} if it matches {@code b}, else -1 */
    private static int matchOne(byte[] pattern, int p, byte b) {
        byte c = pattern[p];
        if (c == '?') {
            return p + 1;
        }
        if (c == '\\' && p + 1 < pattern.length) {
            return pattern[p + 1] == b ? p + 2 : -1;
        }
        if (c != '[') {
            return c == b ? p + 1 : -1;
        }
        int i = p + 1;
        boolean not = i < pattern.length && pattern[i] == '^';
        if (not) {
            i++;
        }
        boolean match = false;
        // Bytes compare as C's signed char on x86-64, as in Redis: a range over 0x7F wraps below 0.
        int v = b;
        while (i < pattern.length && pattern[i] != ']') {
            if (pattern[i] == '\\' && i + 1 < pattern.length) {
                match |= pattern[i + 1] == v;
                i += 2;
            } else if (i + 2 < pattern.length && pattern[i + 1] == '-') {
                // As Redis: any third byte ends the range, a ']' too ("[b-]x" is the range ']'..'b', then x).
                int lo = pattern[i];
                int hi = pattern[i + 2];
                match |= v >= Math.min(lo, hi) && v <= Math.max(lo, hi);
                i += 3;
            } else {
                match |= pattern[i] == v;
                i++;
            }
        }
        // An unclosed class runs to the end of the pattern, as in Redis.
        int after = i < pattern.length ? i + 1 : i;
        return match != not ? after : -1;
    }
}
