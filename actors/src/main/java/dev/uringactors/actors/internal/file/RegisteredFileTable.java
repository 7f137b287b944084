package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.internal.issue.RingGeneration;
import dev.uringactors.actors.internal.issue.RingResource;

import java.util.Arrays;

/**
 * A ring's registered file table ({@code uring.files.registered-slots}), for files opened
 * {@code UringOpenOption.REGISTERED}: an empty table is registered with each generation of the ring, and the
 * files opened into it are forgotten when the generation goes, since the table goes with it.
 */
final class RegisteredFileTable implements RingResource {
    private final int slots;
    private final Runnable forgetFiles;
    private boolean available;

    /** {@code slots} entries (0: none); {@code forgetFiles} forgets the files opened into the table. */
    RegisteredFileTable(int slots, Runnable forgetFiles) {
        this.slots = slots;
        this.forgetFiles = forgetFiles;
    }

    /** Whether files can be opened into the table now: one is configured and the kernel took it. */
    boolean available() {
        return available;
    }

    @Override
    public void attach(RingGeneration generation) {
        if (slots == 0) {
            return;
        }
        int[] empty = new int[slots];
        Arrays.fill(empty, -1);
        available = generation.registerOrNull("registered file table (uring.files.registered-slots)",
                "files opened REGISTERED are opened as usual", () -> {
                    generation.ring().registerFiles(empty);
                    return Boolean.TRUE;
                }) != null;
    }

    @Override
    public void detach(boolean drained) {
        available = false;
        forgetFiles.run();
    }
}
