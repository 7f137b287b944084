package dev.uringactors.http.internal;

import dev.uringactors.http.UringHttp;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pekko HTTP's internals are reached from {@link ServerStack} alone, so that another Pekko HTTP breaks one class:
 * its {@code impl} packages, and the members that are public in bytecode only ({@code private[http]}, or marked
 * {@code @InternalApi}), found in each compiled class's constant pool.
 */
class PekkoHttpInternalsTest {
    /**
     * A class of Pekko HTTP's impl packages, or an internal one outside them ({@code Http2SettingsHeader} is
     * {@code private[pekko]}), as a class file names it (in a descriptor or on its own).
     */
    private static final Pattern IMPL_CLASS = Pattern.compile(
            "org/apache/pekko/http/(impl/|scaladsl/model/http2/Http2SettingsHeader)[\\w/$]*");
    /** Owner and name of the internal members the module could reach; constructors are {@code <init>}. */
    private static final Set<String> INTERNAL_MEMBERS = Set.of(
            "org/apache/pekko/http/scaladsl/HttpExt.sslTlsServerStage",
            "org/apache/pekko/http/scaladsl/HttpExt.sslTlsClientStage",
            "org/apache/pekko/http/scaladsl/HttpExt.bindImpl",
            "org/apache/pekko/http/scaladsl/HttpExt.dateHeaderRendering",
            "org/apache/pekko/http/scaladsl/Http$.cancellationStrategyAttributeForDelay",
            "org/apache/pekko/http/scaladsl/Http$.prepareAttributes",
            "org/apache/pekko/http/javadsl/IncomingConnection.<init>",
            "org/apache/pekko/http/javadsl/ServerBinding.<init>");
    private static final String ALLOWED = "dev/uringactors/http/internal/ServerStack";

    @Test
    void onlyServerStackReachesPekkoHttpInternals() throws IOException {
        Map<String, Set<String>> reached = new TreeMap<>();
        Path classes = Path.of(UringHttp.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertFalse(files.isEmpty(), "no classes under " + classes);
        for (Path file : files) {
            String name = classes.relativize(file).toString().replace(".class", "");
            Set<String> internals = internalsReachedBy(file);
            if (!internals.isEmpty() && !name.equals(ALLOWED) && !name.startsWith(ALLOWED + "$")) {
                reached.put(name, internals);
            }
        }
        assertEquals(Map.of(), reached, "Pekko HTTP internals outside ServerStack");
    }

    @Test
    void theScanFindsWhatServerStackReaches() throws IOException {
        Path classes = Path.of(UringHttp.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Set<String> reached = internalsReachedBy(classes.resolve(ALLOWED + ".class"));
        assertFalse(reached.isEmpty(), "ServerStack reaches Pekko HTTP's terminators and TLS stage");
        Set<String> http2 = internalsReachedBy(classes.resolve(ALLOWED + "$Http2Connection.class"));
        for (String internal : List.of("org/apache/pekko/http/impl/engine/http2/Http2Blueprint$",
                "org/apache/pekko/http/impl/engine/http2/Http2Ext",
                "org/apache/pekko/http/scaladsl/model/http2/Http2SettingsHeader$",
                "org/apache/pekko/http/impl/engine/server/UpgradeToOtherProtocolResponseHeader",
                "org/apache/pekko/http/scaladsl/HttpExt.dateHeaderRendering")) {
            assertTrue(http2.contains(internal), internal + " among what the HTTP/2 wiring reaches: " + http2);
        }
    }

    private static Set<String> internalsReachedBy(Path classFile) throws IOException {
        ConstantPool pool;
        try (InputStream in = Files.newInputStream(classFile)) {
            pool = ConstantPool.read(new DataInputStream(in));
        }
        Set<String> internals = new TreeSet<>();
        for (String text : pool.texts()) {
            Matcher implClass = IMPL_CLASS.matcher(text);
            while (implClass.find()) {
                internals.add(implClass.group());
            }
        }
        for (String member : pool.members()) {
            if (INTERNAL_MEMBERS.contains(member)) {
                internals.add(member);
            }
        }
        return internals;
    }

    /** The constant pool of a class file: its texts (names, descriptors) and the members it refers to. */
    private record ConstantPool(List<String> texts, List<String> members) {
        static ConstantPool read(DataInputStream in) throws IOException {
            in.readInt(); // magic
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNames = new int[count];
            List<int[]> refs = new ArrayList<>(); // {class index, name-and-type index}
            int[] nameOfNameAndType = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classNames[i] = in.readUnsignedShort();
                    case 9, 10, 11 -> refs.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()});
                    case 12 -> {
                        nameOfNameAndType[i] = in.readUnsignedShort();
                        in.readUnsignedShort();
                    }
                    case 3, 4, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++; // takes two entries
                    }
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    default -> throw new IOException("constant pool tag " + tag + " at entry " + i);
                }
            }
            List<String> texts = new ArrayList<>();
            for (String s : utf8) {
                if (s != null) {
                    texts.add(s);
                }
            }
            List<String> members = new ArrayList<>();
            for (int[] ref : refs) {
                members.add(utf8[classNames[ref[0]]] + "." + utf8[nameOfNameAndType[ref[1]]]);
            }
            return new ConstantPool(texts, members);
        }
    }
}
