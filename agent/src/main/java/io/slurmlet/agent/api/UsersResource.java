package io.slurmlet.agent.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.config.AgentConfig;
import io.slurmlet.agent.leader.AccountsStore;
import io.slurmlet.agent.leader.AccountsStore.Result;
import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.users.Accounts;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.List;

/**
 * The cluster's accounts (settings' users = "slurmlet"): add one by e-mail with its SSH keys,
 * disable, enable, remove, replace its keys, import many at once. A refused change stores nothing
 * and names every problem; removing keeps the account's login and UID from ever being given again.
 */
@Path("/v1/users")
@Produces(MediaType.APPLICATION_JSON)
public class UsersResource {

    /** A new account. */
    @RegisterForReflection
    public record NewAccount(
            @JsonProperty("email") String email,
            @JsonProperty("ssh_keys") List<String> sshKeys) {}

    /** An account's keys. */
    @RegisterForReflection
    public record Keys(@JsonProperty("ssh_keys") List<String> sshKeys) {}

    /** An import: every account a site's file or sync command names. */
    @RegisterForReflection
    public record Import(@JsonProperty("accounts") List<ImportedAccount> accounts) {}

    @RegisterForReflection
    public record ImportedAccount(
            @JsonProperty("email") String email,
            @JsonProperty("ssh_keys") List<String> sshKeys,
            @JsonProperty("enabled") Boolean enabled) {}

    @Inject
    AccountsStore store;

    @Inject
    AgentConfig config;

    private byte[] limit(byte[] body, String what) {
        return Answers.limit(body, config.leader().maxBodyBytes(), what);
    }

    @GET
    public Accounts list() {
        return store.current();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response add(byte[] body) throws IOException {
        NewAccount a = SettingsJson.toValue(SettingsJson.readObject(limit(body, "the account")), NewAccount.class);
        return answer(
                store.add(a.email() == null ? "" : a.email(), a.sshKeys() == null ? List.of() : a.sshKeys()), 201);
    }

    @POST
    @Path("/{login}/disable")
    public Response disable(@PathParam("login") String login) throws IOException {
        return answer(store.setEnabled(login, false), 200);
    }

    @POST
    @Path("/{login}/enable")
    public Response enable(@PathParam("login") String login) throws IOException {
        return answer(store.setEnabled(login, true), 200);
    }

    @DELETE
    @Path("/{login}")
    public Response remove(@PathParam("login") String login) throws IOException {
        return answer(store.remove(login), 200);
    }

    @PUT
    @Path("/{login}/ssh_keys")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response keys(@PathParam("login") String login, byte[] body) throws IOException {
        Keys k = SettingsJson.toValue(SettingsJson.readObject(limit(body, "the keys")), Keys.class);
        return answer(store.setKeys(login, k.sshKeys() == null ? List.of() : k.sshKeys()), 200);
    }

    @POST
    @Path("/import")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response importAll(byte[] body) throws IOException {
        Import i = SettingsJson.toValue(SettingsJson.readObject(limit(body, "the accounts")), Import.class);
        List<AccountsStore.Imported> entries = (i.accounts() == null ? List.<ImportedAccount>of() : i.accounts())
                .stream()
                        .map(a ->
                                new AccountsStore.Imported(a.email(), a.sshKeys(), a.enabled() == null || a.enabled()))
                        .toList();
        return answer(store.importAll(entries), 200);
    }

    private static Response answer(Result result, int okStatus) {
        if (result instanceof Result.Stored s) {
            return Response.status(okStatus)
                    .entity(s.account().<Object>map(a -> a).orElse(s.accounts()))
                    .build();
        }
        if (result instanceof Result.Refused r) {
            return Answers.error(
                    400,
                    new ApiError(
                            "the accounts were not changed: %d problem%s"
                                    .formatted(r.problems().size(), r.problems().size() == 1 ? "" : "s"),
                            r.problems(),
                            null));
        }
        return Answers.error(
                404,
                ApiError.of("no account has the login or e-mail %s: 'ctl users list' shows them"
                        .formatted(((Result.NotFound) result).login())));
    }
}
