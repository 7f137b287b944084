package dev.uringactors.samples;

/** What the copy sample will not do, or could not finish for a reason that is no system call's error. */
final class CopyRefusedException extends RuntimeException {
    CopyRefusedException(String message) {
        super(message);
    }
}
