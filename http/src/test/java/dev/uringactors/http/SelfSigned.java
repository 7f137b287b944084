package dev.uringactors.http;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A key pair and a certificate for 127.0.0.1, made by the JDK's keytool: for a server, and clients that trust it. */
final class SelfSigned {
    private static final char[] PASSWORD = "uring-test".toCharArray();
    private final KeyStore keys;

    private SelfSigned(KeyStore keys) {
        this.keys = keys;
    }

    /** Makes the key and certificate in {@code dir}. */
    static SelfSigned in(Path dir) throws Exception {
        Path file = dir.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool: " + output);
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, PASSWORD);
        }
        return new SelfSigned(store);
    }

    /** The server's side: its key and certificate. */
    SSLContext serverContext() throws Exception {
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, PASSWORD);
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(keyManagers.getKeyManagers(), null, null);
        return server;
    }

    /** Trust in the certificate, for a client. */
    TrustManagerFactory trust() throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keys);
        return trust;
    }

    /** A client's side: trusting the certificate. */
    SSLContext clientContext() throws Exception {
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, trust().getTrustManagers(), null);
        return client;
    }
}
