package dev.uringactors.bench;

/** An echo server that the echo benchmark can start on a loopback port and stop again. */
interface EchoPeer {
    String name();

    /** Starts listening on 127.0.0.1; returns the port. */
    int start() throws Exception;

    void stop() throws Exception;
}
