package dev.uringactors.actors.internal.file;

import dev.uringactors.actors.TestRings;
import dev.uringactors.actors.file.FileHandle;
import dev.uringactors.actors.file.OpenedFile;
import dev.uringactors.actors.file.RingProtocol;
import dev.uringactors.actors.file.UringFiles;
import dev.uringactors.actors.internal.backend.IoBackends;
import dev.uringactors.actors.internal.loop.Rings;
import dev.uringactors.ring.Errno;
import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.PolledIo;
import dev.uringactors.ring.RequiresIoUring;
import dev.uringactors.ring.StatCallsForbidden;
import dev.uringactors.ring.UringException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where the stat of a file opened with its stat (or read whole) is taken: on a local file system by the ring's
 * thread, through the new descriptor; where a remote file system can be reached, by the ring's STATX, and the ring's
 * thread makes no stat call at all. A stat that fails closes the file it was of.
 */
@Tag("io-uring-only") // the ring's thread under a seccomp filter
@ExtendWith(RequiresIoUring.class)
class OpenBeneathWithStatTest {
    @TempDir
    Path dir;

    @Test
    void beneathARemoteMountTheRingsStatxTakesTheStatAndALocalStatThatFailsClosesItsFile() throws Exception {
        Files.write(dir.resolve("four-k"), new byte[4096]);
        ActorTestKit testKit = TestRings.kit("uring.rings = 1");
        try {
            UringFiles files = UringFiles.get(testKit.system());
            FileHandle root = TestRings.get(files.open(dir));
            Rings rings = IoBackends.rings(testKit.system());
            DeviceQueues devices = new DeviceQueues(PolledIo::of,
                    testKit.system().dispatchers().lookup(DispatcherSelector.blocking()));
            ActorRef<RingProtocol.Command> remote = testKit.spawn(FileActor.create(rings.loop(0),
                    FileRings.get(testKit.system()).openFiles(), devices, new RemoteMounts(List.of(dir))),
                    "remote", rings.dispatcher(0));
            assertEquals(4096, openAndClose(testKit, remote, root)); // what the ring's thread runs, loaded
            OpenedFile local = TestRings.get(files.openBeneathWithStat(root, Path.of("four-k")));
            assertEquals(4096, local.stat().size());
            TestRings.get(files.close(local.file()));
            assertEquals(4096, TestRings.get(files.readAll(dir.resolve("four-k"))).size());
            forbidEveryStatOnTheRingThread(testKit);

            assertEquals(4096, openAndClose(testKit, remote, root));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> TestRings.get(files.openBeneathWithStat(root, Path.of("four-k"))));
            assertEquals(Errno.EPERM, assertInstanceOf(UringException.class, e.getCause()).errno(),
                    "the ring thread's own stat, forbidden");
            OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "the file whose stat failed was closed");

            assertEquals(4096, TestRings.get(AskPattern.<RingProtocol.Command, ByteString>askWithStatus(remote,
                    replyTo -> new RingProtocol.ReadAll(dir.resolve("four-k"), replyTo), Duration.ofSeconds(10),
                    testKit.scheduler())).size(), "a ReadAll beneath a remote mount: the ring's STATX");
            ExecutionException localRead = assertThrows(ExecutionException.class,
                    () -> TestRings.get(files.readAll(dir.resolve("four-k"))));
            assertEquals(Errno.EPERM, assertInstanceOf(UringException.class, localRead.getCause()).errno());
            OpenFds.assertNoneOpen(OpenFds.Kind.under(dir), "the file read was closed, and the one whose stat failed");
            TestRings.get(files.close(root));
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void mountinfoNamesTheRemoteFileSystemsMountPoints() {
        List<Path> remote = RemoteMounts.parse(List.of(
                "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
                "40 22 0:35 / /mnt/nfs rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2",
                "41 22 0:36 / /home/me/my\\040drive rw,nosuid - fuse.sshfs me@host: rw",
                "42 22 0:37 / /dev/shm rw - tmpfs tmpfs rw"));
        assertEquals(List.of(Path.of("/mnt/nfs"), Path.of("/home/me/my drive")), remote);
        RemoteMounts mounts = new RemoteMounts(remote);
        assertTrue(mounts.reachableFrom(Path.of("/mnt/nfs/site")), "in one");
        assertTrue(mounts.reachableFrom(Path.of("/mnt")), "one mounted beneath");
        assertFalse(mounts.reachableFrom(Path.of("/srv/www")), "none");
        assertTrue(new RemoteMounts(null).reachableFrom(Path.of("/srv/www")), "mountinfo unread");
    }

    /** Opens the file with its stat through {@code ring}, closes it, and gives its size. */
    private static long openAndClose(ActorTestKit testKit, ActorRef<RingProtocol.Command> ring, FileHandle root)
            throws Exception {
        CompletionStage<OpenedFile> open = AskPattern.askWithStatus(ring,
                replyTo -> new RingProtocol.OpenBeneathWithStat(root, Path.of("four-k"), Set.of(), replyTo),
                Duration.ofSeconds(10), testKit.scheduler());
        OpenedFile opened = TestRings.get(open);
        TestRings.get(AskPattern.<RingProtocol.Command, Done>askWithStatus(ring,
                replyTo -> new RingProtocol.Close(opened.file(), replyTo), Duration.ofSeconds(10),
                testKit.scheduler()));
        return opened.stat().size();
    }

    private static void forbidEveryStatOnTheRingThread(ActorTestKit testKit) throws Exception {
        CompletableFuture<Void> forbidden = new CompletableFuture<>();
        IoBackends.rings(testKit.system()).loop(0).execute(() -> {
            try {
                StatCallsForbidden.allOnThisThread();
                forbidden.complete(null);
            } catch (RuntimeException | Error e) { // a skip too: no seccomp here
                forbidden.completeExceptionally(e);
            }
        });
        try {
            forbidden.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }
}
