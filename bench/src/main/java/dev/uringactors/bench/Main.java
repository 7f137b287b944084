package dev.uringactors.bench;

import dev.uringactors.bench.figures.Plot;

import java.nio.file.Path;

/** {@code java -jar uring-bench.jar <command> [--option value]...}: the side-by-side benchmarks. */
public final class Main {
    private static final String USAGE = """
            usage: java -jar bench/target/uring-bench.jar <command> [options]
              nop --batch 32 --seconds 5 [--c-nop /tmp/uring-anchors/nop]
                  NOPs through one SINGLE_ISSUER|DEFER_TASKRUN ring; with --c-nop, liburing's C figure beside it
              actor-nop --seconds 5 [--depth 32] [--wait interrupt|classic|hybrid]
                  NOP requests from an actor on the ring thread, answered as messages
              busy-ring [--asks 2000]
                  ask latency to an actor on a ring kept busy by a self-messaging actor or a never-resting stream
              file-read --file F --direct true|false --qd 32 --seconds 10 [--size-mib 1024] [--rings auto]
                        [--batch 1] [--registered false] [--lend false] [--via actor|files] [--fio fio [--fio-best true]]
                        [--backend io-uring|jdk] [--rounds 1]
                  4 KiB random reads: actors vs AsynchronousFileChannel vs FileChannel on a pool, as it is and with
                  each read's bytes kept in an array (and fio); --lend:
                  ReadWith instead of a ByteString copy; --via files: through UringFiles' CompletionStages;
                  --rounds: the contenders in turn that many times, and the median of the rounds' ratios
              echo-peers --conns 64 --seconds 8 [--bytes 64] [--client /tmp/uring-anchors/echo_client] [--peers a,b]
                  echo round trips, server CPU and bytes allocated a round trip: ours vs Netty io_uring/epoll/NIO
                  vs Pekko Streams Tcp;
                  the peer uring-actors-jdk (ours on the JDK backend) only when --peers names it
              accept --count 10000 [--batch 2000] [--c-accept /tmp/uring-anchors/accept_bench]
                  accepting queued connections through our stack, multishot and single-shot, beside C
              wait-modes [--file F] [--seconds 5] [--qd 1] [--busy 2]
                  interrupt vs classic vs hybrid on O_DIRECT reads: IOPS and ring-thread CPU, idle and busy CPUs
              db-like --file F [--workers 8] [--seconds 6]
                  workers that compress 4 KiB, then read 4 KiB through the ring and wait: ops/s per wait strategy
              read-all [--kib 4] [--in-flight 32] [--seconds 6] [--rounds 3]
                  a small file read whole through UringFiles: readAll (one request) vs open, read, close (three)
              file-server [--seconds 6] [--rounds 3] [--splice-threshold 64KiB|off] [--sample-jar J]
                  the sample file server vs nginx (both on PATH: apt-get install nginx wrk), 4 KiB and 1 MiB files
              sqpoll --file F [--qd 32] [--seconds 6]
                  4 KiB random O_DIRECT reads through one ring without and with SQPOLL: IOPS, CPU per read of the
                  ring thread (CPU 1) and of the SQ thread (CPU 0)
              pekko-http [--seconds 6] [--rounds 3] [--sample-jar J] [--protocol h1|h2c]
                  [--backend io-uring|jdk]
                  the pekko-http sample on the rings vs on Pekko's own TCP, GET / (wrk on PATH: apt-get install wrk;
                  h2c: h2load, apt-get install nghttp2-client)
              pekko-http-post [--requests 300] [--kib 1024] [--in-flight all] [--warmup 4] [--sample-jar J]
                  the same, under many large JSON POSTs to /echo at once: wall time, server peak RSS and threads;
                  --in-flight N: at most N at a time, the same number on both servers; --warmup N: documents
                  posted first (4 load the classes; 300 let the JIT finish before the measure)
              kv [--requests 500000] [--rounds 3] [--aof DIR] [--nodes 1|3] [--sample-jar J]
                  the kv sample vs redis-server, redis-benchmark -t set,get -c 50 -r 100000 -d 16, -P 1 and 16
                  (apt-get install redis-server redis-tools); --aof DIR: both fsync every write, in DIR;
                  --nodes 3: three kv nodes in a cluster, a key through its owner (local) and the others (remote)
              grpc [--calls 64] [--seconds 6] [--rounds 3] [--bytes 64] [--warmup 20] [--collect-strict 0]
                   [--client grpc-java|h2load]
                  gRPC unary calls (pekko-grpc's handler, grpc-java's client, h2c) on the rings vs on Pekko's own
                  TCP; servers on CPU 1 (grpc-server --transport uring|pekko), the client on CPU 0;
                  --collect-strict B: both servers' pekko.http.server.http2.min-collect-strict-entity-size;
                  --client h2load: h2load -c16 -m32 posts the calls (apt-get install nghttp2-client)
              http-client [--seconds 6] [--rounds 3] [--connections 64] [--concurrency 128] [--warmup 20]
                          [--sample-jar J] [--backend io-uring|jdk]
                  Pekko HTTP's client (singleRequest through a pool) on the rings' transport vs on Pekko's own, GET /
                  of the http sample on CPU 1; the clients on CPU 0: requests/s and client CPU a request
              proxy [--seconds 6] [--rounds 3] [--warmup 20] [--sample-jar J]
                  the proxy sample on the rings vs on Pekko's own TCP vs nginx proxy_pass, in front of nginx serving
                  a small file (apt-get install nginx wrk); proxies on CPU 1, upstream and wrk -c64 on CPU 0
              profile --pid P [--seconds 10] [--event cpu|alloc] [--top 15]
                  async-profiler in the running JVM P (a sample under a bench's load, say): its CPU samples, or the
                  bytes it allocated, split into the kernel's, the sample's, the rings', JNA's, Pekko's, the JDK's and
                  the JVM's own, and the leaf frames that took most
              plot [--data docs/figures/data] [--out docs/figures]
                  every recording in --data as a chart (PNG and SVG) in --out, and the headline chart
            Every measuring command also takes --data DIR: it appends its figures to
            DIR/<workload>_<machine>_<date>.csv, which plot draws.
            """;

    private Main() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.print(USAGE);
            System.exit(2);
        }
        try {
            Args args = new Args(argv, 1);
            switch (argv[0]) {
                case "nop" -> NopBench.main(args);
                case "actor-nop" -> ActorNopBench.main(args);
                case "busy-ring" -> BusyRingBench.main(args);
                case "file-read" -> FileReadBench.main(args);
                case "wait-modes" -> WaitModesBench.main(args);
                case "db-like" -> DbLikeBench.main(args);
                case "echo-peers" -> EchoPeersBench.main(args);
                case "accept" -> AcceptBench.main(args);
                case "file-server" -> FileServerBench.main(args);
                case "read-all" -> ReadAllBench.main(args);
                case "pekko-http" -> PekkoHttpBench.main(args);
                case "pekko-http-post" -> PekkoHttpPostBench.main(args);
                case "kv" -> KvBench.main(args);
                case "sqpoll" -> SqPollBench.main(args);
                case "grpc" -> GrpcBench.main(args);
                case "grpc-server" -> GrpcServer.main(args);
                case "http-client" -> HttpClientBench.main(args);
                case "http-client-run" -> HttpClientRun.main(args);
                case "proxy" -> ProxyBench.main(args);
                case "profile" -> ProfileSplit.main(args);
                case "plot" -> Plot.run(Path.of(args.string("data", "docs/figures/data")),
                        Path.of(args.string("out", "docs/figures")));
                default -> throw new IllegalArgumentException("unknown command: " + argv[0]);
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
    }
}
