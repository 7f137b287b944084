package dev.uringactors.http.internal;

import org.apache.pekko.NotUsed;
import org.apache.pekko.http.scaladsl.model.HttpRequest;
import org.apache.pekko.http.scaladsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * Responses on their way from the graceful terminator to the HTTP layer, so that a request still in flight at a
 * binding's hard deadline ends as on Pekko HTTP's own transport: with a reset and no response. At the deadline the
 * terminator emits its {@code termination-deadline-exceeded-response} and fails the connection at once; Pekko's TCP
 * stage holds the bytes for a write-coalescing round trip, so the failure overtakes them and aborts the connection
 * before they are written. A connection on a ring writes at once, so its client would read the 503, then the reset.
 * This stage holds that response (the settings' own instance: the deadline alone emits it untouched) for one turn
 * of the stage: the failure that follows drops it, as on Pekko's transport; anything else lets it through.
 */
final class DeadlineResponseStage extends GraphStage<FlowShape<HttpResponse, HttpResponse>> {
    private final Inlet<HttpResponse> in = Inlet.create("DeadlineResponse.in");
    private final Outlet<HttpResponse> out = Outlet.create("DeadlineResponse.out");
    private final FlowShape<HttpResponse, HttpResponse> shape = FlowShape.of(in, out);
    private final HttpResponse deadlineResponse;

    private DeadlineResponseStage(HttpResponse deadlineResponse) {
        this.deadlineResponse = deadlineResponse;
    }

    /** The stage as the layer under the terminator of a stack with {@code settings}; requests pass untouched. */
    static BidiFlow<HttpResponse, HttpResponse, HttpRequest, HttpRequest, NotUsed> layer(ServerSettings settings) {
        HttpResponse deadlineResponse = settings.terminationDeadlineExceededResponse();
        return BidiFlow.fromFlows(Flow.fromGraph(new DeadlineResponseStage(deadlineResponse)), Flow.create());
    }

    @Override
    public FlowShape<HttpResponse, HttpResponse> shape() {
        return shape;
    }

    @Override
    public GraphStageLogic createLogic(Attributes inheritedAttributes) {
        return new GraphStageLogic(shape) {
            private boolean holding;
            private boolean finished;
            private final AsyncCallback<HttpResponse> release = createAsyncCallback(response -> {
                holding = false;
                push(out, response);
                if (finished) {
                    completeStage();
                }
            });

            {
                setHandler(in, new AbstractInHandler() {
                    @Override
                    public void onPush() {
                        HttpResponse response = grab(in);
                        if (response == deadlineResponse) {
                            holding = true;
                            release.invoke(response); // runs after the signals already on their way here
                        } else {
                            push(out, response);
                        }
                    }

                    @Override
                    public void onUpstreamFinish() {
                        if (holding) {
                            finished = true;
                        } else {
                            completeStage();
                        }
                    }
                });
                setHandler(out, new AbstractOutHandler() {
                    @Override
                    public void onPull() {
                        pull(in);
                    }
                });
            }
        };
    }
}
