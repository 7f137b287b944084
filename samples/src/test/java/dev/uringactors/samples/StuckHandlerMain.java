package dev.uringactors.samples;

import dev.uringactors.actors.UringExtension;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Runs the HTTP sample with one handler on ring 0 that never returns once started, as a handler in an endless
 * loop would: the process must still end after SIGTERM, within the shutdown timeout and its grace.
 */
public final class StuckHandlerMain {
    private StuckHandlerMain() {
    }

    public static void main(String[] args) {
        System.exit(Main.run(args, system -> {
            system.systemActorOf(Behaviors.receiveMessage(m -> {
                System.out.println("stuck handler running");
                System.out.flush();
                while (!Thread.interrupted()) {
                    Thread.onSpinWait(); // never returns, as a handler with an endless loop
                }
                return Behaviors.same();
            }), "stuck", UringExtension.get(system).dispatcher(0)).tell("go");
        }));
    }
}
