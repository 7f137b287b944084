package dev.uringactors.ring;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Skips a test class, with the probe's reason, where io_uring cannot be set up (disabled, seccomp, old kernel);
 * and says in the build's output why any test of the class was skipped (an assumption that did not hold), which
 * the test summary alone does not.
 */
public final class RequiresIoUring implements ExecutionCondition, TestWatcher {
    private static final Probe PROBE = Probe.run();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return PROBE.available()
                ? ConditionEvaluationResult.enabled("io_uring available on Linux " + PROBE.kernel())
                : ConditionEvaluationResult.disabled("io_uring unavailable here: " + PROBE.report().trim());
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        System.out.println("SKIPPED " + context.getRequiredTestClass().getSimpleName() + "."
                + context.getDisplayName() + ": " + cause.getMessage());
    }

    @Override
    public void testDisabled(ExtensionContext context, java.util.Optional<String> reason) {
        System.out.println("SKIPPED " + context.getDisplayName() + ": " + reason.orElse("disabled"));
    }

    /** The probe of this machine's io_uring, run once. */
    public static Probe probe() {
        return PROBE;
    }
}
