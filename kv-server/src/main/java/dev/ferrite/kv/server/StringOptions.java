package dev.ferrite.kv.server;

/**
 * The options of SET (NX XX GET KEEPTTL EX PX EXAT PXAT) and GETEX (PERSIST EX PX EXAT PXAT),
 * parsed as Redis 7 parses them: in any case and order, an option may repeat (a repeated expiry
 * replaces the earlier one), and a syntax error is any unknown word, an option of the other
 * command, or one that conflicts with an option before it (NX with XX; KEEPTTL or PERSIST with an
 * expiry; two kinds of expiry), or an expiry without its time. The time itself is checked by the
 * command afterwards, so a syntax error anywhere wins over a bad number. Immutable.
 */
final class StringOptions {

    static final int NX = 1;
    static final int XX = 1 << 1;
    static final int GET = 1 << 2;
    static final int KEEPTTL = 1 << 3;
    static final int PERSIST = 1 << 4;
    private static final int EX = 1 << 5;
    private static final int PX = 1 << 6;
    private static final int EXAT = 1 << 7;
    private static final int PXAT = 1 << 8;
    private static final int EXPIRIES = EX | PX | EXAT | PXAT;

    private final int flags;
    /** The expiry's unit as written ("ex", "px", "exat", "pxat"), or null without one. */
    final String expiryUnit;
    /** The expiry's time argument, unparsed, or null. */
    final byte[] expiry;

    private StringOptions(int flags, String expiryUnit, byte[] expiry) {
        this.flags = flags;
        this.expiryUnit = expiryUnit;
        this.expiry = expiry;
    }

    /** @return whether the option (one of this class's constants) was given */
    boolean has(int option) {
        return (flags & option) != 0;
    }

    /**
     * @param args a request, its name first
     * @param from index of the first option
     * @param set  true for SET's options, false for GETEX's
     * @return the options, or null on a syntax error
     */
    static StringOptions parse(byte[][] args, int from, boolean set) {
        int flags = 0;
        String unit = null;
        byte[] time = null;
        for (int i = from; i < args.length; i++) {
            String opt = Args.lower(args[i]);
            boolean hasNext = i + 1 < args.length;
            int expiryKind = switch (opt) {
                case "ex" -> EX;
                case "px" -> PX;
                case "exat" -> EXAT;
                case "pxat" -> PXAT;
                default -> 0;
            };
            if (opt.equals("nx") && set && (flags & XX) == 0) {
                flags |= NX;
            } else if (opt.equals("xx") && set && (flags & NX) == 0) {
                flags |= XX;
            } else if (opt.equals("get") && set) {
                flags |= GET;
            } else if (opt.equals("keepttl") && set && (flags & (PERSIST | EXPIRIES)) == 0) {
                flags |= KEEPTTL;
            } else if (opt.equals("persist") && !set && (flags & (KEEPTTL | EXPIRIES)) == 0) {
                flags |= PERSIST;
            } else if (expiryKind != 0 && hasNext && (flags & (KEEPTTL | PERSIST | (EXPIRIES & ~expiryKind))) == 0) {
                flags |= expiryKind;
                unit = opt;
                time = args[++i];
            } else {
                return null;
            }
        }
        return new StringOptions(flags, unit, time);
    }
}
