package dev.uringactors.bench;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each profiled stack (root first, as async-profiler collapses them) counted to whose code it was in. */
class ProfileSplitTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "java/lang/Thread.run;dev/uringactors/actors/internal/loop/RingLoop.run;syscall;do_syscall_64_[k]|the kernel",
        "java/lang/Thread.run;dev/uringactors/samples/KvShard.request;java/util/HashMap.get|the sample's code",
        "java/lang/Thread.run;dev/uringactors/actors/internal/loop/RingLoop.run;java/util/ArrayDeque.poll"
                + "|the rings' code",
        "java/lang/Thread.run;org/apache/pekko/dispatch/Mailbox.run;dev/uringactors/samples/KvConnection.send"
                + "|the sample's code",
        "java/lang/Thread.run;org/apache/pekko/dispatch/Mailbox.run|Pekko and Scala",
        "java/lang/Thread.run;com/sun/jna/Native.invokeInt|JNA",
        "java/lang/Thread.run;java/util/concurrent/ForkJoinPool.runWorker|the JDK",
        "thread_native_entry;G1YoungCollector::collect|the JVM (GC, JIT, runtime)",
        "java/lang/Thread.run;dev/uringactors/samples/RespOut.bulkReply;byte[]_[i]|the sample's code"})
    void aStackIsCountedToItsInnermostOwner(String stack, String owner) {
        assertEquals(owner, ProfileSplit.owner(stack.split(";")));
    }
}
