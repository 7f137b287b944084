package dev.uringactors.samples;

import dev.uringactors.actors.file.FileHandle;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An HTML page listing a directory: names sorted, escaped in the text and percent-encoded in the links. */
final class DirectoryListing {
    private DirectoryListing() {
    }

    /**
     * Lists the open {@code directory}, through /proc/self/fd: the very directory that was opened beneath the root,
     * not whatever its path names by now. On the JDK backend, which gives no descriptor, through its path.
     * Blocking: run it off the ring thread.
     */
    static byte[] html(FileHandle directory, String requestPath) throws IOException {
        List<String> names = new ArrayList<>();
        Path listed = directory.fd() == FileHandle.NO_DESCRIPTOR ? directory.path()
                : Path.of("/proc/self/fd/" + directory.fd());
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(listed)) {
            for (Path entry : entries) {
                names.add(entry.getFileName() + (Files.isDirectory(entry) ? "/" : ""));
            }
        }
        names.sort(null);
        StringBuilder page = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Index of ")
                .append(escape(requestPath)).append("</title></head>\n<body><h1>Index of ").append(escape(requestPath))
                .append("</h1>\n<ul>\n");
        for (String name : names) {
            page.append("<li><a href=\"").append(href(name)).append("\">").append(escape(name)).append("</a></li>\n");
        }
        return page.append("</ul></body></html>\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A relative link to {@code name} ("./" first, so that a name with a colon is not taken for a scheme). */
    private static String href(String name) {
        boolean directory = name.endsWith("/");
        String bare = directory ? name.substring(0, name.length() - 1) : name;
        return "./" + URLEncoder.encode(bare, StandardCharsets.UTF_8).replace("+", "%20") + (directory ? "/" : "");
    }
}
