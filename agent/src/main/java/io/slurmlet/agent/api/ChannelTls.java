package io.slurmlet.agent.api;

import io.netty.handler.ssl.OpenSsl;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.trust.Pki;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SSLEngineOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The agents' channel's server options: TLS only, with the leader's certificate from the cluster's
 * CA, by BoringSSL where it loads, with forward-secret AEAD suites only; a handshake, a request's line
 * and its headers each given their time and size, and a connection closed once it is silent longer
 * than the longest poll. Where standbys can be, a client certificate of the cluster's CA is asked
 * for (a standby's credential), never required (agents show none).
 */
final class ChannelTls {

    /** The channel's log lines keep the one category they always had. */
    private static final Logger LOG = Logger.getLogger(AgentChannel.class);

    /**
     * The agents' channel's cipher suites, whichever engine: TLS 1.3's, and for TLS 1.2 forward-secret
     * AEAD suites for the leader's P-256 key only (Mozilla's "intermediate" list for an ECDSA
     * certificate); BoringSSL also took CBC suites by default, and its choices are not the JDK's
     * {@code jdk.tls.*} settings. Every client of the channel (the agents' JDK, Python's ssl) has these.
     */
    static final List<String> CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");

    private ChannelTls() {}

    /** The options the channel listens with, on {@code leader}'s agent host and port. */
    static HttpServerOptions options(AgentConfig.Leader leader, Pki pki, boolean standbys) {
        HttpServerOptions options = new HttpServerOptions()
                .setHost(leader.agentHost())
                .setPort(leader.agentPort())
                .setSsl(true)
                .setKeyCertOptions(new PemKeyCertOptions()
                        .setCertPath(pki.leaderCertificateFile().toString())
                        .setKeyPath(pki.leaderKeyFile().toString()))
                .setSslHandshakeTimeout(leader.agentHeaderTimeout().toMillis())
                .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
                // Above the longest poll, so a held poll is never cut; a connection silent longer is closed.
                .setIdleTimeout((int) PlanRoutes.LONGEST_POLL.plusSeconds(30).toSeconds())
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                .setMaxInitialLineLength(4096)
                .setMaxHeaderSize(8192)
                .setMaxChunkSize(8192)
                .setCompressionSupported(false)
                .setDecompressionSupported(false);
        options.setSslEngineOptions(tlsEngine());
        if (standbys) {
            // A standby shows its own credential, a client certificate of the cluster's CA; agents show none (asked,
            // not required).
            options.setClientAuth(ClientAuth.REQUEST)
                    .setTrustOptions(
                            new PemTrustOptions().addCertPath(pki.caFile().toString()));
        }
        CIPHER_SUITES.forEach(options::addEnabledCipherSuite);
        return options;
    }

    /** Which TLS {@code options} speak, for the log: "BoringSSL" or "the JDK". */
    static String engine(HttpServerOptions options) {
        return options.getSslEngineOptions() instanceof OpenSSLEngineOptions ? "BoringSSL" : "the JDK";
    }

    /**
     * BoringSSL (netty-tcnative) where its library loads, else the JDK's TLS. At 10,000 agents the
     * JDK's engine encrypted into a new heap buffer at each write (a change's 130 MB of answers were
     * 630 MB of garbage, and the collector stopped the leader for it) and spent most of a restart's
     * CPU in handshakes; BoringSSL writes into the channel's pooled direct buffers.
     */
    private static SSLEngineOptions tlsEngine() {
        if (OpenSSLEngineOptions.isAvailable()) {
            LOG.debugf("the agents' channel's TLS by BoringSSL (%s)", OpenSsl.versionString());
            return new OpenSSLEngineOptions().setSessionCacheEnabled(true);
        }
        LOG.infof(
                "the agents' channel's TLS by the JDK: BoringSSL does not load here (%s)",
                String.valueOf(OpenSsl.unavailabilityCause()));
        return new JdkSSLEngineOptions();
    }
}
