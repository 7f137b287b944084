package dev.uringactors.actors.internal.file.jdk;

import java.util.concurrent.Executor;

/**
 * Runs the blocking file calls on the file dispatcher, and in place when the caller is already one of its threads
 * running a call of this runner: a chain of reads, each issued by the callback of the one before, then goes on on
 * the thread it is on with no hand-over. So do several calls made by one callback: one after another, as a chain
 * would. A task runs at most {@link #IN_PLACE_CALLS} calls in place, then the next one goes to the back of the
 * dispatcher's queue: this bounds the stack (each call in place nests in the callback of the one before) and lets
 * the other tasks waiting on the dispatcher have their turn. A thread whose interrupt flag is set runs none in
 * place: a FileChannel read on it would close the channel for every user of the file.
 */
final class InPlaceRunner {
    /** Calls a task may run in place after its own. */
    static final int IN_PLACE_CALLS = 32;
    /** What the current thread is running: one object per thread, so that a call allocates nothing for it. */
    private static final ThreadLocal<Turn> TURN = ThreadLocal.withInitial(Turn::new);
    private final Executor io;

    InPlaceRunner(Executor io) {
        this.io = io;
    }

    /**
     * Runs {@code call} now if this thread is running a task of this runner that has calls in place left, else
     * hands it to the dispatcher; throws the dispatcher's {@code RejectedExecutionException} once it is shut down.
     */
    void run(Runnable call) {
        Turn turn = TURN.get();
        if (turn.runner == this && turn.left > 0 && !Thread.currentThread().isInterrupted()) {
            turn.left--;
            call.run();
        } else {
            io.execute(() -> runAsTask(call));
        }
    }

    private void runAsTask(Runnable call) {
        Turn turn = TURN.get();
        InPlaceRunner outerRunner = turn.runner;
        int outerLeft = turn.left;
        turn.runner = this;
        turn.left = IN_PLACE_CALLS;
        try {
            call.run();
        } finally {
            turn.runner = outerRunner;
            turn.left = outerLeft;
        }
    }

    /** The runner whose task a thread is running, and the calls that task may still run in place. */
    private static final class Turn {
        private InPlaceRunner runner;
        private int left;
    }
}
