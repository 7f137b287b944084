package dev.uringactors.ring;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Skips a test class, with the probe's reason, where io_uring cannot be set up (disabled, seccomp, old kernel). */
public final class RequiresIoUring implements ExecutionCondition {
    private static final Probe PROBE = Probe.run();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return PROBE.available()
                ? ConditionEvaluationResult.enabled("io_uring available on Linux " + PROBE.kernel())
                : ConditionEvaluationResult.disabled("io_uring unavailable here: " + PROBE.report().trim());
    }

    public static Probe probe() {
        return PROBE;
    }
}
