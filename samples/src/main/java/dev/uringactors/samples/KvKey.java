package dev.uringactors.samples;

import java.util.Arrays;

/** A key of the kv store: any bytes (CR and LF included), compared by content. */
final class KvKey {
    private final byte[] bytes;
    private final int hash;

    KvKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    byte[] bytes() {
        return bytes;
    }

    /** The shard, of {@code shards}, that holds {@code key}: spread by a mix of its hash, stable across JVMs. */
    static int shardOf(byte[] key, int shards) {
        int h = Arrays.hashCode(key) * 0x9E3779B9;
        return Math.floorMod(h ^ (h >>> 16), shards);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
