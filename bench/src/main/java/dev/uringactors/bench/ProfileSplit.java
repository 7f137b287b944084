package dev.uringactors.bench;

import one.profiler.AsyncProfilerLoader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code profile --pid P}: async-profiler loaded into a running JVM for some seconds, and its samples split by
 * whose code they were in: the kernel's, the sample's (or bench's), the rings' ({@code dev.uringactors}), JNA's,
 * Pekko's (with Scala's), the JDK's, or the JVM's own (GC, the JIT). A sample in a JDK method counts for the
 * nearest caller of those owners, so that a HashMap lookup of the kv sample is the sample's. With
 * {@code --event alloc}, the bytes allocated are split the same way, by the site that allocated them.
 */
final class ProfileSplit {
    /** Owners by package prefix of a frame, in the order they are tried for each frame. */
    private static final Map<String, String> OWNERS = new LinkedHashMap<>();

    static {
        OWNERS.put("dev/uringactors/samples/", "the sample's code");
        OWNERS.put("dev/uringactors/bench/", "the sample's code");
        OWNERS.put("dev/uringactors/", "the rings' code");
        OWNERS.put("com/sun/jna/", "JNA");
        OWNERS.put("org/apache/pekko/", "Pekko and Scala");
        OWNERS.put("scala/", "Pekko and Scala");
    }

    private static final String KERNEL = "the kernel";
    private static final String JDK = "the JDK";
    private static final String JVM = "the JVM (GC, JIT, runtime)";

    private ProfileSplit() {
    }

    static void main(Args args) throws Exception {
        long pid = Long.parseLong(args.string("pid", "-1"));
        if (pid <= 0) {
            throw new IllegalArgumentException("profile needs --pid of a running JVM");
        }
        int seconds = args.intValue("seconds", 10);
        String event = args.string("event", "cpu");
        if (!event.equals("cpu") && !event.equals("alloc")) {
            throw new IllegalArgumentException("--event takes cpu or alloc, got: " + event);
        }
        Path out = Files.createTempFile("profile", ".collapsed");
        try {
            String library = AsyncProfilerLoader.getAsyncProfilerPath().toString();
            agent(pid, library, "start,event=" + event + (event.equals("cpu") ? ",interval=500us" : ""));
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            agent(pid, library, "stop,collapsed" + (event.equals("alloc") ? ",total" : "") + ",file=" + out);
            print(Files.readAllLines(out), event.equals("cpu") ? "samples" : "bytes",
                    args.intValue("top", 15));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Runs async-profiler's {@code command} in {@code pid} through jcmd (its options one quoted argument). */
    private static void agent(long pid, String library, String command) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(ServerCost.jcmd(), String.valueOf(pid), "JVMTI.agent_load", library,
                "\"" + command + "\"").redirectErrorStream(true).start();
        String said = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(30, TimeUnit.SECONDS) || jcmd.exitValue() != 0 || said.contains("error")) {
            throw new IOException("jcmd " + pid + " JVMTI.agent_load " + command + " failed: " + said);
        }
    }

    private static void print(List<String> stacks, String unit, int top) {
        Map<String, Long> byOwner = new LinkedHashMap<>();
        Map<String, Long> byFrame = new LinkedHashMap<>();
        long total = 0;
        for (String line : stacks) {
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            long weight = Long.parseLong(line.substring(space + 1));
            String[] frames = line.substring(0, space).split(";");
            total += weight;
            byOwner.merge(owner(frames), weight, Long::sum);
            String leaf = frames[frames.length - 1];
            byFrame.merge(unit.equals("bytes") ? leaf + " in " + allocatingCaller(frames) : leaf, weight, Long::sum);
        }
        if (total == 0) {
            System.out.println("no samples: was the JVM busy while it was profiled?");
            return;
        }
        System.out.printf(Locale.ROOT, "%d %s, by whose code they were in:%n", total, unit);
        long all = total;
        byOwner.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / all,
                        e.getKey()));
        System.out.printf("the %d leaf frames that took most (for bytes: the class, in the nearest method not the "
                + "JDK's that allocated it):%n", top);
        byFrame.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / all,
                        e.getKey()));
    }

    /** The nearest method above an allocation's class that is not the JDK's: whose code asked for the bytes. */
    private static String allocatingCaller(String[] frames) {
        for (int i = frames.length - 2; i >= 0; i--) {
            if (!frames[i].startsWith("java/") && !frames[i].startsWith("jdk/") && !frames[i].startsWith("sun/")) {
                return frames[i];
            }
        }
        return frames.length > 1 ? frames[frames.length - 2] : "?";
    }

    /** Whose code a stack (root first) was in: its leaf's, or where the leaf is the JDK's, its nearest caller's. */
    static String owner(String[] frames) {
        String leaf = frames[frames.length - 1];
        if (leaf.endsWith("_[k]")) {
            return KERNEL;
        }
        boolean java = false;
        for (int i = frames.length - 1; i >= 0; i--) {
            String frame = frames[i];
            for (Map.Entry<String, String> owner : OWNERS.entrySet()) {
                if (frame.startsWith(owner.getKey())) {
                    return owner.getValue();
                }
            }
            java |= frame.contains("/");
        }
        return java ? JDK : JVM;
    }
}
