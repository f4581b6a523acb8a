package io.slurmlet.model.settings;

import java.util.List;

/**
 * Valid settings to change one thing in: Slurm on, ctl1 the controller, gpu1 and gpu2 its nodes,
 * gpu1 lent, nothing else named. A test sets the one field it is about, so the problems it finds
 * are that field's alone.
 */
final class SettingsBuilder {
    private boolean enabled = true;
    private String clusterName = "";
    private String controller = "ctl1";
    private List<String> nodes = List.of("gpu1", "gpu2");
    private boolean allNodes = false;
    private List<String> lent = List.of("gpu1");
    private String partition = "";
    private SharedStorage shared = SharedStorage.NONE;
    private String users = "";
    private boolean containers = false;
    private Experimental experimental = Experimental.NONE;

    static SettingsBuilder settings() {
        return new SettingsBuilder();
    }

    SettingsBuilder enabled(boolean v) {
        enabled = v;
        return this;
    }

    SettingsBuilder clusterName(String v) {
        clusterName = v;
        return this;
    }

    SettingsBuilder controller(String v) {
        controller = v;
        return this;
    }

    SettingsBuilder nodes(String... v) {
        nodes = List.of(v);
        return this;
    }

    SettingsBuilder allNodes(boolean v) {
        allNodes = v;
        return this;
    }

    SettingsBuilder lent(String... v) {
        lent = List.of(v);
        return this;
    }

    SettingsBuilder partition(String v) {
        partition = v;
        return this;
    }

    SettingsBuilder shared(String path, String nfs, String server) {
        shared = new SharedStorage(path, nfs, server);
        return this;
    }

    SettingsBuilder users(String v) {
        users = v;
        return this;
    }

    SettingsBuilder containers(boolean v) {
        containers = v;
        return this;
    }

    SettingsBuilder asyncReply(boolean v) {
        experimental = new Experimental(v);
        return this;
    }

    SlurmSettings build() {
        return new SlurmSettings(
                enabled,
                clusterName,
                controller,
                nodes,
                allNodes,
                lent,
                partition,
                shared,
                users,
                containers,
                experimental);
    }

    List<Problem> check() {
        return build().check();
    }
}
