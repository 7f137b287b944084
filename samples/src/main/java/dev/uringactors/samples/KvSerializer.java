package dev.uringactors.samples;

import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UncheckedIOException;

/** The kv sample's messages between nodes, in a few length-prefixed fields (bound in kv.conf). */
public final class KvSerializer extends SerializerWithStringManifest {
    private static final String REQUEST = "R";
    private static final String ANSWER = "A";
    private final ActorRefResolver resolver;

    /** Made by Pekko's serialization, with the system it serves. */
    public KvSerializer(ExtendedActorSystem system) {
        this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
    }

    @Override
    public int identifier() {
        return 0x6b76_0001; // "kv" 1: any number not taken by Pekko (below 40) or another serializer
    }

    @Override
    public String manifest(Object o) {
        return o instanceof KvMessage.Request ? REQUEST : ANSWER;
    }

    @Override
    public byte[] toBinary(Object o) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (o instanceof KvMessage.Request r) {
                out.writeInt(r.shard());
                out.writeLong(r.seq());
                out.writeUTF(resolver.toSerializationFormat(r.replyTo()));
                out.writeInt(r.args().length);
                for (byte[] arg : r.args()) {
                    out.writeInt(arg.length);
                    out.write(arg);
                }
            } else if (o instanceof KvMessage.Answer a) {
                out.writeLong(a.seq());
                out.writeInt(a.reply().length);
                out.write(a.reply());
            } else {
                throw new IllegalArgumentException("not a kv message: " + o.getClass());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            return switch (manifest) {
                case REQUEST -> {
                    int shard = in.readInt();
                    long seq = in.readLong();
                    ActorRef<KvMessage.Answer> replyTo = resolver.resolveActorRef(in.readUTF());
                    byte[][] args = new byte[in.readInt()][];
                    for (int i = 0; i < args.length; i++) {
                        args[i] = in.readNBytes(in.readInt());
                    }
                    yield new KvMessage.Request(shard, seq, args, replyTo);
                }
                case ANSWER -> new KvMessage.Answer(in.readLong(), in.readNBytes(in.readInt()));
                default -> throw new NotSerializableException("no kv message " + manifest);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
