package dev.uringactors.samples;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A raw HTTP/1.1 client connection for tests: requests as written, responses read by their framing. */
final class HttpExchange implements AutoCloseable {
    /** One response: its status, its header fields (names in lower case) and its body. */
    record Response(int status, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    HttpExchange(InetSocketAddress server) throws IOException {
        socket = new Socket(server.getAddress(), server.getPort());
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** A GET of {@code target} with {@code headers} (whole lines, each ending in CRLF). */
    static String get(String target, String headers) {
        return "GET " + target + " HTTP/1.1\r\nHost: test\r\n" + headers + "\r\n";
    }

    void send(String request) throws IOException {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    Response exchange(String request) throws IOException {
        send(request);
        return read(request.startsWith("HEAD "));
    }

    /** Reads one response; a HEAD's, a 304's and a 1xx's have no body whatever their Content-Length says. */
    Response read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("the server closed the connection instead of answering");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); line != null && !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        int length = head || status == 304 ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
        return new Response(status, headers, in.readNBytes(length));
    }

    /** Whether the server has closed its side: nothing more to read. */
    boolean closedByServer() throws IOException {
        return in.read() < 0;
    }

    InputStream input() {
        return in;
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            line.write(b);
        }
        if (b < 0 && line.size() == 0) {
            return null;
        }
        String text = line.toString(StandardCharsets.ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
