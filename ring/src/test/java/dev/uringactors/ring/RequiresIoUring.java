package dev.uringactors.ring;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Optional;

/**
 * Skips a test class where io_uring cannot be set up (disabled, seccomp, old kernel), naming the errno of a plain
 * io_uring_setup ({@link KernelFacts}: not the library's own probe, whose bug would then skip everything); under
 * {@code -During.test.require-io-uring=true} fails it instead.
 */
public final class RequiresIoUring implements ExecutionCondition {
    private static final Optional<String> REFUSAL = KernelFacts.ioUringRefusal();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (REFUSAL.isEmpty()) {
            return ConditionEvaluationResult.enabled("io_uring available on Linux " + KernelFacts.release());
        }
        String why = "io_uring unavailable here: " + REFUSAL.get();
        if (SkipsFailWhenRequired.required()) {
            throw new IllegalStateException(why + " (and -D" + SkipsFailWhenRequired.SWITCH + "=true)");
        }
        return ConditionEvaluationResult.disabled(why);
    }
}
