package dev.uringactors.samples;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Raw RESP2 for tests: requests as bytes, exchanges over a socket to its end, replies split and read. */
final class Resp {
    private static final byte[] QUIT = "*1\r\n$4\r\nQUIT\r\n".getBytes(StandardCharsets.US_ASCII);

    private Resp() {
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The next line of {@code in} without its CR and LF; the stream's end before it is an IOException. */
    static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("closed after " + line);
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    /** One multibulk request of {@code args}. */
    static String multibulk(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(bytes(a).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString();
    }

    /**
     * Sends {@code request} on a new connection to 127.0.0.1:{@code port} and reads what comes back until the
     * server closes: after a QUIT sent behind the request unless {@code closes} (the request itself ends the
     * connection, with a protocol error).
     */
    static byte[] exchange(int port, byte[] request, boolean closes) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            if (!closes) {
                out.write(QUIT);
            }
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buffer = new byte[65536];
            for (int n; (n = in.read(buffer)) != -1; ) {
                got.write(buffer, 0, n);
            }
            return got.toByteArray();
        }
    }

    /** The bytes shown with CR, LF and anything not printable escaped, for a readable assertion message. */
    static String show(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            int c = x & 0xff;
            if (c == '\r') {
                s.append("\\r");
            } else if (c == '\n') {
                s.append("\\n\n");
            } else if (c == '\\') {
                s.append("\\\\");
            } else if (c < 0x20 || c >= 0x7f) {
                s.append(String.format("\\x%02x", c));
            } else {
                s.append((char) c);
            }
        }
        return s.toString();
    }

    /**
     * A parsed reply: a String (a simple or bulk string; an error with its leading '-'; null for a null bulk), a
     * Long, or a List of replies.
     */
    static Object parse(byte[] b) {
        int[] at = {0};
        Object v = value(b, at);
        if (at[0] != b.length) {
            throw new IllegalArgumentException("more than one reply: " + show(b));
        }
        return v;
    }

    /** The top-level replies of a stream, each as its bytes. */
    static List<byte[]> split(byte[] stream) {
        List<byte[]> replies = new ArrayList<>();
        int[] at = {0};
        while (at[0] < stream.length) {
            int from = at[0];
            value(stream, at);
            replies.add(Arrays.copyOfRange(stream, from, at[0]));
        }
        return replies;
    }

    /** An array reply with its elements in byte order (for KEYS, whose order is the store's). */
    static byte[] sorted(byte[] reply) {
        if (reply.length == 0 || reply[0] != '*') {
            return reply;
        }
        int[] at = {0};
        int header = line(reply, at);
        int n = Integer.parseInt(new String(reply, 1, header - 1, StandardCharsets.US_ASCII));
        List<byte[]> elements = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int from = at[0];
            value(reply, at);
            elements.add(Arrays.copyOfRange(reply, from, at[0]));
        }
        elements.sort(Arrays::compare);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(reply, 0, header + 2);
        elements.forEach(out::writeBytes);
        return out.toByteArray();
    }

    /** A flat array of names and values (CONFIG GET) as a map. */
    static Map<String, String> pairs(Object reply) {
        List<?> flat = (List<?>) reply;
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            m.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return m;
    }

    /** The index of the CR ending the line at {@code at[0]}; {@code at[0]} moves past its LF. */
    private static int line(byte[] b, int[] at) {
        for (int i = at[0]; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                at[0] = i + 2;
                return i;
            }
        }
        throw new IllegalArgumentException("a reply cut short: " + show(Arrays.copyOfRange(b, at[0], b.length)));
    }

    private static Object value(byte[] b, int[] at) {
        int start = at[0];
        int end = line(b, at);
        String text = new String(b, start + 1, end - start - 1, StandardCharsets.ISO_8859_1);
        switch (b[start]) {
            case '+' -> {
                return text;
            }
            case '-' -> {
                return "-" + text; // an error, told from a simple string
            }
            case ':' -> {
                return Long.parseLong(text);
            }
            case '$' -> {
                int n = Integer.parseInt(text);
                if (n < 0) {
                    return null;
                }
                String s = new String(b, at[0], n, StandardCharsets.ISO_8859_1);
                if (b[at[0] + n] != '\r' || b[at[0] + n + 1] != '\n') {
                    throw new IllegalArgumentException("a bulk string not ended by CRLF");
                }
                at[0] += n + 2;
                return s;
            }
            case '*' -> {
                int n = Integer.parseInt(text);
                if (n < 0) {
                    return null;
                }
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(value(b, at));
                }
                return list;
            }
            default -> throw new IllegalArgumentException("not RESP2: " + show(Arrays.copyOfRange(b, start, end)));
        }
    }
}
