package dev.uringactors.ring;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

import java.util.Optional;

/**
 * Registered for every test (META-INF/services, with the build's extension autodetection): says in the build's
 * output why a test was skipped, which the summary alone does not; and under
 * {@code -During.test.require-io-uring=true} turns every skip into a failure, except those for want of
 * {@link Hardware}. A CI machine without io_uring, or without a tool the tests drive, then fails loudly instead
 * of passing on what it did not run.
 */
public final class SkipsFailWhenRequired implements TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler, TestWatcher {
    /** The switch, a system property (Maven passes {@code -D} on to the tests). */
    public static final String SWITCH = "uring.test.require-io-uring";

    /** Whether the switch is on: skips other than {@link Hardware}'s fail. */
    public static boolean required() {
        return Boolean.getBoolean(SWITCH);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        throw failIfRequired(thrown);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        throw failIfRequired(thrown);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable thrown)
            throws Throwable {
        throw failIfRequired(thrown);
    }

    private static Throwable failIfRequired(Throwable thrown) {
        if (required() && thrown instanceof TestAbortedException && !(thrown instanceof Hardware.Missing)) {
            return new AssertionError("a skip, failed under -D" + SWITCH + "=true: " + thrown.getMessage(), thrown);
        }
        return thrown;
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        System.out.println("SKIPPED " + context.getRequiredTestClass().getSimpleName() + "."
                + context.getDisplayName() + ": " + cause.getMessage());
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        System.out.println("SKIPPED " + context.getRequiredTestClass().getSimpleName() + "."
                + context.getDisplayName() + ": " + reason.orElse("disabled"));
    }
}
