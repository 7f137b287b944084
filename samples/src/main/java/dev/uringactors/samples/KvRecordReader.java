package dev.uringactors.samples;

import org.apache.pekko.util.ByteString;

import java.util.function.Consumer;

/**
 * Reads the records of an append-only file, fed chunk by chunk: each whole one goes to its consumer, and
 * {@link #kept()} says where the last whole one ends, so that a record cut short at the end can be cut off.
 */
final class KvRecordReader {
    /** Records are the log's own: a value may be as long as a Java array allows. */
    private static final RespLimits RECORDS = new RespLimits(Integer.MAX_VALUE - 64, 8, 64 * 1024, Long.MAX_VALUE);

    private final RespParser parser = new RespParser(RECORDS);
    private final Consumer<byte[][]> apply;
    private long fed;
    private long kept;

    KvRecordReader(Consumer<byte[][]> apply) {
        this.apply = apply;
    }

    /** Reads {@code chunk}, the file's bytes from {@code position}; throws if they are not records. */
    void feed(ByteString chunk, long position) {
        parser.feed(chunk);
        fed = position + chunk.size();
        RespParser.Outcome o;
        while ((o = parser.next()) instanceof RespParser.Outcome.Command c) {
            kept = fed - parser.buffered();
            apply.accept(c.args().toArray(new byte[0][]));
        }
        if (o instanceof RespParser.Outcome.ProtocolError e) {
            throw new IllegalStateException("the append-only file is damaged after byte " + kept + ": "
                    + e.message());
        }
    }

    /** Where the last whole record read ends. */
    long kept() {
        return kept;
    }
}
