package io.slurmlet.agent.node;

/** A loop on a daemon thread of its own: {@link #start}, and {@link #stop}, which wakes and interrupts it. */
abstract class Worker {

    private final String threadName;
    private Thread thread;
    protected volatile boolean stopping;

    Worker(String threadName) {
        this.threadName = threadName;
    }

    synchronized void start() {
        thread = new Thread(this::loop, threadName);
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
}
