package dev.uringactors.ring;

/**
 * What a request's user_data may hold. The application has the low 62 bits ({@link #MAX}); the ring keeps the top
 * two to tell completions apart that do not end one of its counted requests: a message from another ring
 * (MSG_RING), and the completion of a CQE_SKIP_SUCCESS request that failed. Without them {@link Ring#inFlight()}
 * would count those as ends of requests still in flight, and a drain could free memory the kernel still owns.
 */
public final class UserData {
    /** The largest user_data a request may carry. */
    public static final long MAX = (1L << 62) - 1;
    /** Set in the user_data of a completion that another ring posted here with MSG_RING. */
    public static final long MESSAGE = 1L << 63;
    /** Set by the ring on requests with CQE_SKIP_SUCCESS; cleared before their completion is handed out. */
    static final long SKIP_SUCCESS = 1L << 62;

    private UserData() {
    }

    /** Whether a completion's user_data came with MSG_RING from another ring. */
    public static boolean isMessage(long userData) {
        return (userData & MESSAGE) != 0;
    }

    static boolean isOwnRequest(long userData) {
        return (userData & (MESSAGE | SKIP_SUCCESS)) == 0;
    }

    static void check(long userData) {
        if (userData < 0 || userData > MAX) {
            throw new IllegalArgumentException("user_data " + Long.toHexString(userData)
                    + " is out of range: the ring keeps the top two bits (see UserData.MAX)");
        }
    }
}
