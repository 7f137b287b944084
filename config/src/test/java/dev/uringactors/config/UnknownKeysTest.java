package dev.uringactors.config;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class UnknownKeysTest {
    @Test
    void theFileDispatcherTakesPekkosKeysWhileAMisspeltBlockIsStillCaught() {
        List<String> unknown = UnknownKeys.of(ConfigFactory.parseString(
                "jdk.file-dispatcher.thread-pool-executor.core-pool-size-min = 4, jdk.file-dispatchr.throughput = 2"));
        assertEquals(List.of("uring.jdk.file-dispatchr.throughput: unknown setting; did you mean "
                + "uring.jdk.file-dispatcher.throughput?"), unknown);
    }

    @Test
    void theHttpDispatcherTakesPekkosKeysToo() {
        List<String> unknown = UnknownKeys.of(ConfigFactory.parseString(
                "jdk.http-dispatcher.thread-pool-executor.core-pool-size-min = 2, jdk.http-dispatcher.throughput = 2,"
                        + " jdk.http-dispatchr.executor = x"));
        assertEquals(List.of("uring.jdk.http-dispatchr.executor: unknown setting; did you mean "
                + "uring.jdk.http-dispatcher.executor?"), unknown);
    }
}
