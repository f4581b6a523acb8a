package io.slurmlet.agent.node;

import java.time.Duration;
import org.jboss.logging.Logger;

/** A loop on a daemon thread of its own: {@link #start}, and {@link #stop}, which wakes and interrupts it. */
abstract class Worker {

    private final String threadName;
    private Thread thread;
    protected volatile boolean stopping;

    Worker(String threadName) {
        this.threadName = threadName;
    }

    synchronized void start() {
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    void stop() {
        stopping = true;
        Thread t;
        synchronized (this) {
            t = thread;
            notifyAll();
        }
        if (t != null) {
            t.interrupt();
        }
    }

    /** Until {@link #stopping}; returns when interrupted. */
    protected abstract void loop();

    /** A loop that does {@code look} every {@code every} until {@link #stopping}, woken early by {@link #stop}. */
    protected final void repeat(Duration every, Runnable look) {
        while (!stopping) {
            look.run();
            synchronized (this) {
                try {
                    wait(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** A loop that ends on anything but a stop is a bug: it is said, with its cause, and the thread begins again. */
    private void run() {
        while (!stopping) {
            try {
                loop();
                return;
            } catch (RuntimeException e) {
                LOG.errorf(e, "%s stopped on a bug (%s): it starts again in 5 s", threadName, e);
                try {
                    Thread.sleep(5000);
                } catch (InterruptedException interrupted) {
                    return;
                }
            } catch (Error e) {
                LOG.errorf(e, "%s stopped: %s", threadName, e);
                throw e;
            }
        }
    }

    private static final Logger LOG = Logger.getLogger(Worker.class);
}
