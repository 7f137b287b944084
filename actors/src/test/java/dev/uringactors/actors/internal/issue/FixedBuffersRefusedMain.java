package dev.uringactors.actors.internal.issue;

import com.typesafe.config.ConfigFactory;
import dev.uringactors.actors.RingLoopStats;
import dev.uringactors.actors.UringExtension;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.UringFiles;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.util.ByteString;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link FixedBuffersTest} in a JVM of its own, under limits the test sets: reads the file named by its
 * argument through one ring with 1 MiB of registered buffers configured, then prints its SHA-256 and how many requests
 * used a registered buffer.
 */
public final class FixedBuffersRefusedMain {
    private FixedBuffersRefusedMain() {
    }

    public static void main(String[] args) throws Exception {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "fixed", ConfigFactory.parseString(
                "uring { rings = 1, buffers.fixed { count = 16, size = 64 KiB } }").withFallback(ConfigFactory.load()));
        try {
            UringFiles files = UringFiles.get(system);
            FileHandle file = files.open(Path.of(args[0])).toCompletableFuture().get(10, TimeUnit.SECONDS);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (long position = 0; ; position += 4096) {
                ByteString chunk = files.read(file, position, 4096).toCompletableFuture().get(10, TimeUnit.SECONDS);
                if (chunk.isEmpty()) {
                    break;
                }
                sha.update(chunk.toArray());
            }
            RingLoopStats stats = UringExtension.get(system).stats(0).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            System.out.println("sha256 " + HexFormat.of().formatHex(sha.digest()) + " fixed-uses "
                    + stats.fixedBufferUses());
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS);
        }
    }
}
