package dev.uringactors.actors;

/**
 * What does an actor system's I/O, decided once when {@link UringExtension} starts ({@code uring.backend}):
 * {@link UringExtension#backend()} says which, {@link UringExtension#backendReason()} why.
 */
public enum Backend {
    /** The rings: a loop thread and an io_uring instance per configured ring. */
    IO_URING,
    /**
     * No ring: sockets through Pekko's own Tcp (Streams and classic IO) and Pekko HTTP's transport, files through
     * JDK file channels on a dispatcher for blocking I/O. The ring dispatchers are the default dispatcher.
     */
    JDK;

    /** The word {@code uring.backend} takes for it: "io-uring" or "jdk". */
    public String settingValue() {
        return this == IO_URING ? "io-uring" : "jdk";
    }
}
