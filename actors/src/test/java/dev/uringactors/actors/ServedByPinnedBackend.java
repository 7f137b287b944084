package dev.uringactors.actors;

import dev.uringactors.ring.SkipsFailWhenRequired;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePreConstructCallback;
import org.junit.jupiter.api.extension.TestInstanceFactoryContext;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After each test of a {@link BothBackends} class, every actor system started meanwhile that ran the uring
 * extension must run the backend that the build pins ({@code -During.backend}: io-uring in the default run, jdk
 * in the jdk-backend one); and the class must have run it at least once. Without a pin (a test run from an IDE)
 * nothing is checked, unless {@code -During.test.require-io-uring=true} asks for a run that means what it says.
 */
public final class ServedByPinnedBackend implements TestInstancePreConstructCallback, BeforeAllCallback,
        AfterEachCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ServedByPinnedBackend.class);

    @Override
    public void preConstructTestInstance(TestInstanceFactoryContext factoryContext, ExtensionContext context) {
        forgetEarlierSystems(context);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        forgetEarlierSystems(context);
    }

    /**
     * Before the class's first system, once: the systems started before it are other classes' to check. That is
     * before its instance is made where one instance serves every test (its fields may start systems), else
     * before its {@code @BeforeAll} methods.
     */
    private static void forgetEarlierSystems(ExtensionContext context) {
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(List.of(context.getRequiredTestClass(), "begun"),
                k -> {
                    StartedSystems.takeAll();
                    return Boolean.TRUE;
                }, Boolean.class);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context);
        pinned().ifPresent(backend -> assertTrue(served(context).get() > 0, context.getRequiredTestClass()
                .getSimpleName() + " ran no actor system with the uring extension: which backend served it?"));
    }

    private static void check(ExtensionContext context) {
        Optional<Backend> pinned = pinned();
        for (ActorSystem<?> system : StartedSystems.takeAll()) {
            if (pinned.isPresent() && system.hasExtension(UringExtension.Id.getInstance())) {
                served(context).incrementAndGet();
                UringExtension uring = UringExtension.get(system);
                assertEquals(pinned.get(), uring.backend(), "actor system " + system.name() + " of "
                        + context.getDisplayName() + " ran " + uring.backendReason());
            }
        }
    }

    /** How many systems with the extension the test class ran so far. */
    private static AtomicInteger served(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(context.getRequiredTestClass(),
                k -> new AtomicInteger(), AtomicInteger.class);
    }

    private static Optional<Backend> pinned() {
        String pin = System.getProperty("uring.backend");
        if (pin == null) {
            if (SkipsFailWhenRequired.required()) {
                throw new AssertionError("a run with -D" + SkipsFailWhenRequired.SWITCH
                        + "=true must pin uring.backend (the build's Surefire configuration does)");
            }
            return Optional.empty();
        }
        for (Backend backend : Backend.values()) {
            if (backend.settingValue().equals(pin)) {
                return Optional.of(backend);
            }
        }
        throw new AssertionError("uring.backend = " + pin + " pins no backend (io-uring or jdk)");
    }
}
