package dev.uringactors.bench;

import java.util.concurrent.TimeUnit;

/** Pins this JVM (all its threads, and those it starts later) to one CPU with taskset(1), where it can. */
final class Pinning {
    private Pinning() {
    }

    static boolean pinThisProcess(int cpu) throws Exception {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            System.out.println("one CPU: server and client share it, unpinned");
            return false;
        }
        try {
            Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", String.valueOf(cpu),
                    String.valueOf(ProcessHandle.current().pid())).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return true;
            }
        } catch (java.io.IOException e) {
            // no taskset on this machine
        }
        System.out.println("taskset failed: server and client are not pinned");
        return false;
    }
}
