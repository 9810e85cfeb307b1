package dev.ferrite.kv.server;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command line into arguments as Redis's {@code sdssplitargs} does: blanks
 * (C's {@code isspace}) separate, but inside an unquoted argument only space, tab, CR and LF end
 * it; "double quotes" allow the escapes {@code \n \r \t \b \a \\ \"} and {@code \xHH};
 * 'single quotes' allow {@code \'}; a closing quote must be followed by a space or the end.
 */
final class InlineArgs {

    private InlineArgs() {
    }

    /** @return the arguments, or null if the quotes are unbalanced */
    static List<byte[]> split(byte[] line) {
        List<byte[]> out = new ArrayList<>();
        int i = 0;
        int n = line.length;
        while (true) {
            while (i < n && isSpace(line[i])) {
                i++;
            }
            if (i == n) {
                return out;
            }
            ByteArrayOutputStream arg = new ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                if (inDouble) {
                    if (i == n) {
                        return null;
                    }
                    byte c = line[i];
                    if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && hex(line[i + 2]) >= 0 && hex(line[i + 3]) >= 0) {
                        arg.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
                        i += 3;
                    } else if (c == '\\' && i + 1 < n) {
                        i++;
                        arg.write(unescape(line[i]));
                    } else if (c == '"') {
                        if (i + 1 < n && !isSpace(line[i + 1])) {
                            return null;
                        }
                        done = true;
                    } else {
                        arg.write(c);
                    }
                } else if (inSingle) {
                    if (i == n) {
                        return null;
                    }
                    byte c = line[i];
                    if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
                        i++;
                        arg.write('\'');
                    } else if (c == '\'') {
                        if (i + 1 < n && !isSpace(line[i + 1])) {
                            return null;
                        }
                        done = true;
                    } else {
                        arg.write(c);
                    }
                } else {
                    if (i == n) {
                        break;
                    }
                    byte c = line[i];
                    if (endsWord(c)) {
                        done = true;
                    } else if (c == '"') {
                        inDouble = true;
                    } else if (c == '\'') {
                        inSingle = true;
                    } else {
                        arg.write(c);
                    }
                }
                if (i < n) {
                    i++;
                }
            }
            out.add(arg.toByteArray());
        }
    }

    /** C's {@code isspace}: what is skipped between arguments and may follow a closing quote. */
    private static boolean isSpace(byte c) {
        return endsWord(c) || c == 0x0B || c == '\f';
    }

    /** What ends an unquoted argument: not {@code \v} or {@code \f}, which sdssplitargs keeps in it. */
    private static boolean endsWord(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private static int unescape(byte c) {
        switch (c) {
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            case 'b': return '\b';
            case 'a': return 7;
            default: return c;
        }
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
