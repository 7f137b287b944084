package dev.uringactors.actors.internal.file;

import java.util.Arrays;

/**
 * The checks of a request's arguments that do not depend on the backend, so that a bad request is refused with
 * the same {@link IllegalArgumentException} and words on the rings and on the JDK's file channels.
 */
public final class FileRequests {
    private FileRequests() {
    }

    /** Why a read of {@code length} bytes at {@code position} is refused, or null. */
    public static IllegalArgumentException readRefusal(long position, int length, int maxIoSize) {
        if (length < 0 || length > maxIoSize || position < 0) {
            return new IllegalArgumentException("read of " + length + " bytes at " + position
                    + ": the length must be 0.." + maxIoSize
                    + " (uring.buffers.max-io-size) and the position not negative");
        }
        return null;
    }

    /** Why a batch of reads of {@code length} bytes at {@code positions} is refused, or null. */
    public static IllegalArgumentException batchRefusal(long[] positions, int length, int maxIoSize) {
        if (length < 0 || length > maxIoSize || Arrays.stream(positions).anyMatch(p -> p < 0)) {
            return new IllegalArgumentException("batch of " + positions.length + " reads of " + length
                    + " bytes: the length must be 0.." + maxIoSize
                    + " (uring.buffers.max-io-size) and no position negative");
        }
        return null;
    }

    /** Why a write of {@code size} bytes at {@code position} is refused, or null. */
    public static IllegalArgumentException writeRefusal(long position, int size, int maxIoSize) {
        if (size > maxIoSize || position < 0) {
            return new IllegalArgumentException("write of " + size + " bytes at " + position + ": at most "
                    + maxIoSize + " bytes (uring.buffers.max-io-size), at a position that is not negative");
        }
        return null;
    }
}
