import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SoftwareAuthenticator, toEntries } from "../support/software-authenticator.js";
import { describeOnEngines } from "../support/engines.js";
import { expectJson, type InspectedJson } from "../support/expect-json.js";

let kith: TestKith;
let alice: TestUser;

async function register(authenticator: SoftwareAuthenticator, user: TestUser = alice): Promise<InspectedJson> {
  const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: user.token }));
  return expectJson(
    await kith.request("POST", "/api/v1/passkeys/finish-register", { token: user.token, json: toEntries(authenticator.register(options)) }),
  );
}

async function beginAuth(username = "alice"): Promise<InspectedJson> {
  return expectJson(await kith.request("GET", `/api/v1/passkeys/begin-auth?username=${username}`));
}

describeOnEngines("passkeys", (engine) => {
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
  });
  afterEach(async () => {
    await kith.close();
  });

  describe("passkey registration", () => {
    it("begin-register answers the spec's registration options for the caller", async () => {
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      expect(Object.keys(options).sort()).toEqual(
        [
          "attestation",
          "authenticatorSelection",
          "challenge",
          "excludeCredentials",
          "extensions",
          "pubKeyCredParams",
          "rp",
          "timeout",
          "user",
        ].sort(),
      );
      expect(options.rp).toEqual({ id: "kith.test", name: "kith.test" });
      expect(options.user.name).toBe("alice");
      expect(options.pubKeyCredParams).toContainEqual({ type: "public-key", alg: -7 });
      expect(Object.keys(options.authenticatorSelection).sort()).toEqual(
        ["authenticatorAttachment", "requireResidentKey", "residentKey", "userVerification"].sort(),
      );
    });

    it("finish-register verifies a real attestation and keeps the credential, listed for its owner", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      const credential = await register(authenticator);
      expect(credential).toEqual({
        credentialId: authenticator.credentialIdBase64url,
        accountId: alice.account.id,
        userId: alice.account.id,
        publicKeyCose: authenticator.coseKey().toString("base64url"),
        publicKeyAlg: -7,
        aaguid: "00000000-0000-0000-0000-000000000000",
        signCount: 0,
      });
      expect(await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: alice.token }))).toEqual([credential]);
      const audit = await expectJson(await kith.request("GET", "/api/v1/accounts/login_methods/audit", { token: alice.token }));
      expect(audit.map((entry: InspectedJson) => entry.action)).toEqual(["passkey.added"]);
    });

    it("refuses a registration challenge used twice", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      const body = toEntries(authenticator.register(options));
      await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: body }));
      const again = await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: body }), 422);
      expect(again.code).toBe("passkey.challenge_invalid");
    });

    it("refuses an attestation made for another origin, or another RP ID", async () => {
      const phishing = new SoftwareAuthenticator("https://kith.test.evil.example");
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: toEntries(phishing.register(options)) }),
        422,
      );
      expect(refused.code).toBe("passkey.verification_failed");
      const wrongRp = new SoftwareAuthenticator("https://kith.test", "evil.example");
      const second = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      const refusedRp = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: toEntries(wrongRp.register(second)) }),
        422,
      );
      expect(refusedRp.code).toBe("passkey.verification_failed");
      expect(await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: alice.token }))).toEqual([]);
    });

    it("refuses a challenge issued to another user", async () => {
      const bob = await kith.createUser("bob");
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: bob.token }));
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", {
          token: alice.token,
          json: toEntries(authenticator.register(options)),
        }),
        422,
      );
      expect(refused.code).toBe("passkey.challenge_invalid");
    });

    it("refuses an expired challenge", async () => {
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      kith.clock.advance(5 * 60 * 1000 + 1);
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", {
          token: alice.token,
          json: toEntries(authenticator.register(options)),
        }),
        422,
      );
      expect(refused.code).toBe("passkey.challenge_invalid");
    });

    it("refuses registering the same credential twice, and offers it as excluded", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
      expect(options.excludeCredentials.map((item: InspectedJson) => item.id)).toEqual([authenticator.credentialIdBase64url]);
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", {
          token: alice.token,
          json: toEntries(authenticator.register(options)),
        }),
        409,
      );
      expect(refused.code).toBe("passkey.already_registered");
    });

    it("answers 400 to a body that is not key/value entries of a credential", async () => {
      await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: { id: "x" } }), 400);
      const missing = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-register", { token: alice.token, json: [{ key: "id", value: "abc" }] }),
        400,
      );
      expect(missing.code).toBe("passkey.invalid_response");
    });

    it("needs a signed-in user for registration and management", async () => {
      expect((await kith.request("GET", "/api/v1/passkeys/begin-register")).status).toBe(401);
      expect((await kith.request("POST", "/api/v1/passkeys/finish-register", { json: [{ key: "id", value: "x" }] })).status).toBe(401);
      expect((await kith.request("GET", "/api/v1/passkeys")).status).toBe(401);
      expect((await kith.request("DELETE", "/api/v1/passkeys/abc")).status).toBe(401);
    });
  });

  describe("passkey sign-in", () => {
    it("begin-auth answers the spec's authentication options for the username, without credentials", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const options = await beginAuth();
      expect(Object.keys(options).sort()).toEqual(
        ["allowCredentials", "challenge", "extensions", "rpId", "timeout", "userVerification"].sort(),
      );
      expect(options.rpId).toBe("kith.test");
      expect(options.allowCredentials).toEqual([{ id: authenticator.credentialIdBase64url, type: "public-key", transports: ["internal"] }]);
    });

    it("finish-auth verifies a real signature and answers a sessionKey that works as a Bearer token", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const { sessionKey } = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth())) }),
      );
      expect(typeof sessionKey).toBe("string");
      const me = await expectJson(await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: sessionKey }));
      expect(me.id).toBe(alice.account.id);
      const [stored] = await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: sessionKey }));
      expect(stored.signCount).toBe(1);
    });

    it("refuses a replayed assertion (its challenge was used)", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const body = toEntries(authenticator.assert(await beginAuth()));
      await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: body }));
      const replay = await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: body }), 422);
      expect(replay.code).toBe("passkey.challenge_invalid");
    });

    it("refuses an assertion made for another origin", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", {
          json: toEntries(authenticator.assert(await beginAuth(), { origin: "https://evil.example" })),
        }),
        422,
      );
      expect(refused.code).toBe("passkey.verification_failed");
    });

    it("refuses an assertion signed for another RP ID, even from the right origin", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", {
          json: toEntries(authenticator.assert(await beginAuth(), { rpId: "evil.example" })),
        }),
        422,
      );
      expect(refused.code).toBe("passkey.verification_failed");
      await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth())) }),
      );
    });

    it("refuses a signature counter that does not increase, as a cloned authenticator", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth())) }),
      );
      await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth())) }),
      );
      const clone = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", {
          json: toEntries(authenticator.assert(await beginAuth(), { counter: 2 })),
        }),
        409,
      );
      expect(clone.code).toBe("passkey.cloned_authenticator");
      const lower = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", {
          json: toEntries(authenticator.assert(await beginAuth(), { counter: 1 })),
        }),
        409,
      );
      expect(lower.code).toBe("passkey.cloned_authenticator");
    });

    it("refuses a forged signature (another key for the same credential id)", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const forger = new SoftwareAuthenticator("https://kith.test");
      Object.defineProperty(forger, "credentialId", { value: authenticator.credentialId });
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(forger.assert(await beginAuth())) }),
        422,
      );
      expect(refused.code).toBe("passkey.verification_failed");
    });

    it("refuses an expired challenge, and a challenge issued for another username", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const options = await beginAuth();
      kith.clock.advance(5 * 60 * 1000 + 1);
      const expired = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(options)) }),
        422,
      );
      expect(expired.code).toBe("passkey.challenge_invalid");
      await kith.createUser("bob");
      const forBob = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth("bob"))) }),
        422,
      );
      expect(forBob.code).toBe("passkey.verification_failed");
    });

    it("answers begin-auth for an unknown username with the same shape", async () => {
      const options = await beginAuth("nobody");
      expect(options.allowCredentials).toEqual([]);
      expect(typeof options.challenge).toBe("string");
    });
  });

  describe("passkey deletion", () => {
    it("deletes the owner's passkey, which then cannot sign in", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const id = authenticator.credentialIdBase64url;
      expect((await kith.request("DELETE", `/api/v1/passkeys/${id}`, { token: alice.token })).status).toBe(204);
      expect(await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: alice.token }))).toEqual([]);
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: toEntries(authenticator.assert(await beginAuth())) }),
        422,
      );
      expect(refused.code).toBe("passkey.verification_failed");
    });

    it("answers 404 to another user deleting it, and keeps it", async () => {
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      await register(authenticator);
      const bob = await kith.createUser("bob");
      const refused = await expectJson(
        await kith.request("DELETE", `/api/v1/passkeys/${authenticator.credentialIdBase64url}`, { token: bob.token }),
        404,
      );
      expect(refused.code).toBe("passkey.not_found");
      expect(await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: alice.token }))).toHaveLength(1);
      expect(await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: bob.token }))).toEqual([]);
    });
  });
});
