import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { authorizeQuery, openAuthorizePage, pkcePair, registerApp, submitAuthorizeForm } from "../support/oauth.js";
import { SoftwareAuthenticator, toEntries } from "../support/software-authenticator.js";
import { describeOnEngines } from "../support/engines.js";

let kith: TestKith;
let alice: TestUser;
let authenticator: SoftwareAuthenticator;

async function assertion(): Promise<string> {
  const options = await (await kith.request("GET", "/api/v1/passkeys/begin-auth?username=alice")).json();
  return JSON.stringify(authenticator.assert(options));
}

describeOnEngines("passkey sign-in on the authorize page", (engine) => {
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    authenticator = new SoftwareAuthenticator("https://kith.test");
    const options = await (await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token })).json();
    const registered = await kith.request("POST", "/api/v1/passkeys/finish-register", {
      token: alice.token,
      json: toEntries(authenticator.register(options)),
    });
    expect(registered.status).toBe(200);
  });
  afterEach(async () => {
    await kith.close();
  });

  it("offers a passkey button run by the server's own script, allowed by the page's CSP", async () => {
    const app = await registerApp(kith, { redirectUris: "https://app.example/cb" });
    const page = await openAuthorizePage(kith, authorizeQuery(app));
    expect(page.html).toContain('id="passkey"');
    expect(page.html).toContain('<script src="/oauth/passkey.js" defer></script>');
    expect(page.fields.passkey_response).toBe("");
    expect(page.response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = await kith.request("GET", "/oauth/passkey.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("/api/v1/passkeys/begin-auth");
  });

  it("completes the authorization with a verified passkey assertion, and the code gives a working token", async () => {
    const app = await registerApp(kith, { redirectUris: "https://app.example/cb" });
    const { verifier, challenge } = pkcePair();
    const page = await openAuthorizePage(
      kith,
      authorizeQuery(app, { code_challenge: challenge, code_challenge_method: "S256", state: "s1" }),
    );
    const response = await submitAuthorizeForm(kith, page, {
      username: "alice",
      password: "",
      passkey_response: await assertion(),
    } as never);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.searchParams.get("state")).toBe("s1");
    const token = await kith.request("POST", "/oauth/token", {
      form: {
        grant_type: "authorization_code",
        code: location.searchParams.get("code") ?? "",
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: "https://app.example/cb",
        code_verifier: verifier,
      },
    });
    expect(token.status).toBe(200);
    const { access_token } = await token.json();
    const me = await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: access_token });
    expect((await me.json()).id).toBe(alice.account.id);
  });

  it("shows the form again (422) for an assertion that does not verify, or is replayed", async () => {
    const app = await registerApp(kith, { redirectUris: "https://app.example/cb" });
    const page = await openAuthorizePage(kith, authorizeQuery(app));
    const options = await (await kith.request("GET", "/api/v1/passkeys/begin-auth?username=alice")).json();
    const forged = JSON.stringify(authenticator.assert(options, { origin: "https://evil.example" }));
    const refused = await submitAuthorizeForm(kith, page, { username: "alice", passkey_response: forged } as never);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("Passkey sign-in failed");
    const good = await assertion();
    expect((await submitAuthorizeForm(kith, page, { username: "alice", passkey_response: good } as never)).status).toBe(302);
    expect((await submitAuthorizeForm(kith, page, { username: "alice", passkey_response: good } as never)).status).toBe(422);
    expect((await submitAuthorizeForm(kith, page, { username: "alice", passkey_response: "not json" } as never)).status).toBe(422);
  });

  it("keeps the password form working", async () => {
    const app = await registerApp(kith);
    const page = await openAuthorizePage(kith, authorizeQuery(app));
    const response = await submitAuthorizeForm(kith, page, { username: "alice", password: alice.password });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<code id="code">');
  });
});
