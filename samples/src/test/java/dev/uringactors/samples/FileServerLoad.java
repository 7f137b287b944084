package dev.uringactors.samples;

import dev.uringactors.ring.OpenFds;
import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The file server under load and under clients that misbehave, once per way of sending a file: many large
 * downloads at once, clients that read slowly, a file cut short while it is sent. Bytes are checksummed, memory
 * (this process's RSS) and file descriptors are counted. They run in a JVM of their own (see the pom), whose
 * heap is resident whole from the start, so that RSS grows only by native memory.
 */
@ExtendWith(RequiresIoUring.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FileServerLoad {
    private static final int BIG = 8 << 20;
    private static final int DOWNLOADS = 1000;
    private static final int CHUNK = 128 * 1024;
    /** What RSS may grow by while 1,000 downloads of 8 MiB (8 GiB in all) run; each holds one chunk at most. */
    private static final long DOWNLOADS_RSS_BOUND = 256L << 20;
    /** What RSS may grow by while 200 clients stall mid-download: had they 8 MiB each, it would be 1.6 GiB. */
    private static final long STALLED_RSS_BOUND = 64L << 20;

    private Path base;
    private Path root;
    private long bigCrc;
    private RunningServer running;
    private InetSocketAddress server;

    /** The value of uring.tcp.splice-threshold under test. */
    abstract String spliceThreshold();

    @BeforeAll
    void start() throws Exception {
        base = Files.createTempDirectory("file-server-load");
        root = Files.createDirectories(base.resolve("root"));
        byte[] big = new byte[BIG];
        new Random(21).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        CRC32 crc = new CRC32();
        crc.update(big);
        bigCrc = crc.getValue();
        Files.writeString(root.resolve("hello.txt"), "hello");
        running = RunningServer.start((address, bound) -> FileServer.create(address, bound, root),
                "uring.tcp { splice-threshold = " + spliceThreshold() + ", file-chunk = " + CHUNK
                        + ", backlog = 2048 }");
        server = running.address;
    }

    @AfterAll
    void stop() throws IOException {
        running.close();
        TempTree.delete(base);
    }

    private Socket request(String target) throws IOException {
        return request(server, target);
    }

    private static Socket request(InetSocketAddress server, String target) throws IOException {
        Socket s = new Socket(server.getAddress(), server.getPort());
        s.setSoTimeout(60_000);
        s.getOutputStream().write(HttpExchange.get(target, "").getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /** Reads a response head; returns its Content-Length. */
    private static long readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed in the head: " + head);
            }
            head.append((char) b);
        }
        assertTrue(head.toString().startsWith("HTTP/1.1 200 "), head.toString());
        int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
        return Long.parseLong(head.substring(at, head.indexOf("\r", at)));
    }

    /** Reads {@code length} bytes into a CRC; returns it. */
    private static long crcOf(InputStream in, long length) throws IOException {
        return crcOf(new CRC32(), in, length);
    }

    /** Reads {@code length} more bytes into {@code crc}; returns its value. */
    private static long crcOf(CRC32 crc, InputStream in, long length) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new IOException("closed with " + left + " bytes to come");
            }
            crc.update(buffer, 0, n);
            left -= n;
        }
        return crc.getValue();
    }

    /** RSS after a full GC, with the server warmed up. */
    private long settledRss() throws IOException {
        try (Socket s = request("/big.bin")) {
            InputStream in = s.getInputStream();
            assertEquals(bigCrc, crcOf(in, readHead(in)));
        }
        System.gc();
        return Rss.now();
    }

    @Test
    void aThousandConcurrentDownloadsArriveWholeWhileMemoryStaysBounded() throws Exception {
        OpenFds.Snapshot fds = downloadFds();
        long baseline = settledRss();
        List<Socket> sockets = new ArrayList<>();
        ExecutorService readers = Executors.newFixedThreadPool(50);
        try (Peak peak = new Peak("rss", Rss::now)) {
            for (int i = 0; i < DOWNLOADS; i++) {
                sockets.add(request("/big.bin"));
            }
            List<Future<Long>> crcs = new ArrayList<>();
            for (Socket s : sockets) {
                crcs.add(readers.submit(() -> {
                    try (s) {
                        InputStream in = s.getInputStream();
                        long length = readHead(in);
                        assertEquals(BIG, length);
                        return crcOf(in, length);
                    }
                }));
            }
            for (Future<Long> crc : crcs) {
                assertEquals(bigCrc, crc.get(120, TimeUnit.SECONDS));
            }
            long growth = peak.peak() - baseline;
            System.out.printf("splice-threshold %s: %d downloads of 8 MiB, RSS grew by %d MiB%n", spliceThreshold(),
                    DOWNLOADS, growth >> 20);
            assertTrue(growth < DOWNLOADS_RSS_BOUND, "RSS grew by " + (growth >> 20) + " MiB");
        } finally {
            readers.shutdownNow();
            sockets.forEach(FileServerLoad::closeQuietly);
        }
        fds.assertNoneNew("sockets, files, pipes or rings left open");
    }

    @Test
    void clientsThatStallMidDownloadHoldOneChunkEach() throws Exception {
        OpenFds.Snapshot fds = downloadFds();
        long baseline = settledRss();
        List<Socket> sockets = new ArrayList<>();
        try (Peak peak = new Peak("rss", Rss::now)) {
            for (int i = 0; i < 200; i++) {
                sockets.add(request("/big.bin"));
            }
            // Each reads its head and 1 KiB at a time, 8 KiB in all, slowly; the server is held back meanwhile.
            CRC32 firstClient = new CRC32();
            for (int kib = 0; kib < 256; kib += 32) {
                for (Socket s : sockets) {
                    InputStream in = s.getInputStream();
                    if (kib == 0) {
                        readHead(in);
                    }
                    byte[] piece = in.readNBytes(1024);
                    assertEquals(1024, piece.length);
                    if (s == sockets.get(0)) {
                        firstClient.update(piece);
                    }
                }
            }
            long growth = peak.peak() - baseline;
            System.out.printf("splice-threshold %s: 200 stalled downloads, RSS grew by %d MiB%n", spliceThreshold(),
                    growth >> 20);
            assertTrue(growth < STALLED_RSS_BOUND, "RSS grew by " + (growth >> 20) + " MiB");
            // Then one reads the rest: every byte is there, in order, after the stall.
            InputStream in = sockets.get(0).getInputStream();
            assertEquals(bigCrc, crcOf(firstClient, in, BIG - 8 * 1024L), "the stalled download, byte for byte");
        } finally {
            sockets.forEach(FileServerLoad::closeQuietly);
        }
        fds.assertNoneNew("sockets, files, pipes or rings left open");
    }

    @Test
    void aFileTruncatedWhileItIsSentEndsThatResponseOnly() throws Exception {
        OpenFds.Snapshot fds = downloadFds();
        Path shrinking = Files.copy(root.resolve("big.bin"), root.resolve("shrinking.bin"));
        try (Socket s = request("/shrinking.bin")) {
            InputStream in = s.getInputStream();
            assertEquals(BIG, readHead(in));
            assertEquals(256 * 1024, in.readNBytes(256 * 1024).length);
            try (RandomAccessFile file = new RandomAccessFile(shrinking.toFile(), "rw")) {
                file.setLength(1 << 20);
            }
            long rest = in.transferTo(OutputStream.nullOutputStream()); // until the server closes
            assertTrue(256 * 1024 + rest < BIG, "the promise could not be kept, and the connection says so");
        } catch (java.net.SocketException reset) {
            // a reset is as clear an ending as a close
        } finally {
            Files.delete(shrinking);
        }
        try (HttpExchange other = new HttpExchange(server)) {
            assertEquals("hello", other.exchange(HttpExchange.get("/hello.txt", "")).text());
        }
        fds.assertNoneNew("sockets, files, pipes or rings left open");
    }

    @Test
    void aFileDeletedWhileItIsSentIsSentWhole() throws Exception {
        Path doomed = Files.copy(root.resolve("big.bin"), root.resolve("doomed.bin"));
        try (Socket s = request("/doomed.bin")) {
            InputStream in = s.getInputStream();
            long length = readHead(in);
            byte[] start = in.readNBytes(1024);
            Files.delete(doomed); // the open file keeps its data until it is closed
            CRC32 crc = new CRC32();
            crc.update(start);
            byte[] rest = in.readNBytes((int) length - start.length);
            crc.update(rest);
            assertEquals(bigCrc, crc.getValue());
        }
        assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII),
                new HttpExchange(server).exchange(HttpExchange.get("/hello.txt", "Connection: close\r\n")).body());
    }

    /** What a download holds (its socket, the file, a splice's pipe) and what a server holds: its rings. */
    private OpenFds.Snapshot downloadFds() {
        return OpenFds.snapshot(OpenFds.Kind.SOCKETS, OpenFds.Kind.PIPES, OpenFds.Kind.IO_URING,
                OpenFds.Kind.under(base));
    }

    @Test
    void shuttingDownMidDownloadClosesEverySocketFileAndPipe() throws Exception {
        OpenFds.Snapshot fds = downloadFds();
        RunningServer second = RunningServer.start((address, bound) -> FileServer.create(address, bound, root),
                "uring.tcp { splice-threshold = " + spliceThreshold() + ", file-chunk = " + CHUNK + " }");
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                sockets.add(request(second.address, "/big.bin"));
            }
            for (Socket s : sockets) { // every download has begun: its file is open and being sent
                InputStream in = s.getInputStream();
                readHead(in);
                assertEquals(4096, in.readNBytes(4096).length);
            }
        } finally {
            second.close(); // the actor system stops with 50 responses in flight
        }
        for (Socket s : sockets) {
            long rest = s.getInputStream().transferTo(OutputStream.nullOutputStream());
            assertTrue(rest < BIG, "the server closed the connection");
            s.close();
        }
        fds.assertNoneNew("sockets, files, pipes or rings left open");
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
