package dev.uringactors.http.grpc;

import dev.uringactors.ring.RequiresIoUring;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A gRPC service generated from echo.proto by pekko-grpc, served over HTTP/2 and called by grpc-java's client
 * ({@link EchoCalls}), on Pekko HTTP's own transport and on the rings.
 */
class GrpcTest {

    @Nested
    class OnPekkoHttp extends EchoCalls {
        OnPekkoHttp() {
            super(EchoServer.Transport.PEKKO_HTTP);
        }
    }

    @Nested
    @ExtendWith(RequiresIoUring.class)
    class OnRings extends EchoCalls {
        OnRings() {
            super(EchoServer.Transport.RINGS);
        }
    }
}
