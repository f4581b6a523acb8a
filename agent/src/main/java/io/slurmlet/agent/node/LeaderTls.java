package io.slurmlet.agent.node;

import io.slurmlet.agent.trust.StandbyCredential;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The TLS of the leader's agents' channel as an agent makes it: trusting the cluster's CA alone,
 * showing a standby's own certificate where it asks the leader as a standby, and, only to fetch the
 * CA before the pin is checked, trusting anything.
 */
public final class LeaderTls {

    private static final Duration CONNECT = Duration.ofSeconds(10);

    private LeaderTls() {}

    static HttpClient client(SSLContext ssl) {
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(CONNECT)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** TLS that trusts the cluster's CA {@code ca} alone. */
    public static SSLContext trusting(X509Certificate ca) throws GeneralSecurityException, IOException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers(ca), null);
        return context;
    }

    private static TrustManager[] trustManagers(X509Certificate ca) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("slurmlet-ca", ca);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    /** Trusting {@code ca}, and showing {@code standby}'s certificate when the leader asks for one. */
    public static SSLContext showing(X509Certificate ca, StandbyCredential standby)
            throws GeneralSecurityException, IOException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        char[] none = new char[0];
        keys.setKeyEntry("slurmlet-standby", standby.key(), none, new Certificate[] {standby.certificate()});
        KeyManagerFactory keyFactory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyFactory.init(keys, none);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyFactory.getKeyManagers(), trustManagers(ca), null);
        return context;
    }

    /** Only for fetching the CA, which is then checked against the pin before anything is trusted. */
    static SSLContext trustingAnything() throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(
                null,
                new TrustManager[] {
                    new X509ExtendedTrustManager() {
                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public X509Certificate[] getAcceptedIssuers() {
                            return new X509Certificate[0];
                        }
                    }
                },
                null);
        return context;
    }
}
