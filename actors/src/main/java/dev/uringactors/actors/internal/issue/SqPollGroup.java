package dev.uringactors.actors.internal.issue;

import dev.uringactors.ring.Ring;
import dev.uringactors.ring.RingOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The rings that share one SQPOLL thread ({@code uring.sqpoll.groups}). The first ring to open creates the thread;
 * every later one, and every ring opened again after a failure, attaches to it (IORING_SETUP_ATTACH_WQ) through a
 * member that is open at that moment, never through an fd number that was closed and may since name another file.
 * A member leaves before it is closed. The rings are opened on their own threads (a single-issuer ring belongs to
 * the thread that creates it), so this is a lock, not an actor; its {@code SqPollSupervisor} watches the thread.
 */
public final class SqPollGroup {
    private final int index;
    /** Open members and the index of the ring each belongs to; guarded by {@code this}. */
    private final Map<Ring, Integer> members = new IdentityHashMap<>();

    SqPollGroup(int index) {
        this.index = index;
    }

    public int index() {
        return index;
    }

    /** Opens ring {@code ring}'s ring with {@code options}, attached to an open member if there is one. */
    synchronized Ring open(int ring, RingOptions options) {
        int attachTo = members.isEmpty() ? -1 : members.keySet().iterator().next().fd();
        Ring opened = Ring.open(options.withAttachWqFd(attachTo));
        members.put(opened, ring);
        return opened;
    }

    /** Takes {@code ring} out of the group: nothing attaches to it from now on. Call before closing it. */
    synchronized void leave(Ring ring) {
        members.remove(ring);
    }

    /** The SQ thread wake-ups the open members have needed so far, read without disturbing their threads. */
    public synchronized long wakeups() {
        return members.keySet().stream().mapToLong(Ring::sqWakeups).sum();
    }

    /** The indexes of the rings with a member open now, in order (a ring with an IOPOLL ring counts once). */
    public synchronized List<Integer> rings() {
        return members.values().stream().distinct().sorted().toList();
    }

    /**
     * The kernel's view of the SQ thread, from the fdinfo of an open member (read while it cannot close), or
     * empty when no member is open or the kernel did not say (its ring lock was busy at that moment).
     */
    public synchronized java.util.Optional<SqThreadInfo> sqThread() {
        for (Ring member : members.keySet()) {
            try {
                SqThreadInfo info = SqThreadInfo.parse(Files.readAllLines(Path.of("/proc/self/fdinfo/" + member.fd())));
                if (info.threadId() > 0) {
                    return java.util.Optional.of(info);
                }
            } catch (IOException e) {
                return java.util.Optional.empty();
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * An SQ thread as a ring's fdinfo shows it: its thread id and, from 6.15, the time it has existed and the part
     * of that it spent working rather than spinning idle (microseconds).
     */
    public record SqThreadInfo(int threadId, OptionalLong totalMicros, OptionalLong workMicros) {
        static SqThreadInfo parse(List<String> fdinfo) {
            int thread = -1;
            OptionalLong total = OptionalLong.empty();
            OptionalLong work = OptionalLong.empty();
            for (String line : fdinfo) {
                String[] kv = line.split(":\\s*", 2);
                if (kv.length == 2) {
                    switch (kv[0]) {
                        case "SqThread" -> thread = Integer.parseInt(kv[1].trim());
                        case "SqTotalTime" -> total = OptionalLong.of(Long.parseLong(kv[1].trim()));
                        case "SqWorkTime" -> work = OptionalLong.of(Long.parseLong(kv[1].trim()));
                        default -> { }
                    }
                }
            }
            return new SqThreadInfo(thread, total, work);
        }
    }

    /** The groups for these settings, one per SQ thread; empty without SQPOLL. */
    public static List<SqPollGroup> of(dev.uringactors.config.UringSettings.Sqpoll sqpoll) {
        List<SqPollGroup> groups = new ArrayList<>();
        for (int g = 0; sqpoll.enabled() && g < sqpoll.groups(); g++) {
            groups.add(new SqPollGroup(g));
        }
        return groups;
    }
}
