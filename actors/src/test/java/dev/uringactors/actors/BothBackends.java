package dev.uringactors.actors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs on both backends: tagged {@code both-backends}, which the build's {@code jdk-backend}
 * execution runs again with {@code uring.backend = jdk}; and checked to have been served by the backend its run
 * pins ({@link ServedByPinnedBackend}), so that a ring refusing to open cannot pass it on the JDK backend.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("both-backends")
@ExtendWith(ServedByPinnedBackend.class)
public @interface BothBackends {
}
