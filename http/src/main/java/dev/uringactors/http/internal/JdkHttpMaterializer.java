package dev.uringactors.http.internal;

import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.stream.ActorMaterializer;
import org.apache.pekko.stream.ActorMaterializerSettings;
import org.apache.pekko.stream.Materializer;

/**
 * The materializer of {@code UringHttp}'s connections under the JDK backend, on {@value #DISPATCHER}: its threads
 * have the ring threads' stack, deep enough for Pekko HTTP's parser, which recurses once per request in a read.
 * One per system, made on first use.
 */
public final class JdkHttpMaterializer implements Extension {
    public static final String DISPATCHER = "uring.jdk.http-dispatcher";
    private static final Id ID = new Id();

    private final Materializer materializer;

    @SuppressWarnings("deprecation") // a materializer with a dispatcher of its own has no other public constructor
    private JdkHttpMaterializer(ActorSystem system) {
        // First, as a bad block of it then fails here naming its key; the materializer would time out instead.
        system.dispatchers().lookup(DISPATCHER);
        this.materializer = ActorMaterializer.create(ActorMaterializerSettings.create(system)
                .withDispatcher(DISPATCHER), system, "uring-jdk-http");
    }

    /** The materializer of {@code system}'s connections. */
    public static Materializer get(ActorSystem system) {
        return ID.get(system).materializer;
    }

    private static final class Id extends AbstractExtensionId<JdkHttpMaterializer> {
        @Override
        public JdkHttpMaterializer createExtension(ExtendedActorSystem system) {
            return new JdkHttpMaterializer(system);
        }
    }
}
