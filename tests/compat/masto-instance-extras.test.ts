/**
 * masto.js reading the server's publications over real HTTP, on both engines: languages, translation languages,
 * the extended description, rules, domain blocks as the setting allows; and a user taking their avatar away and
 * reading another account's identity proofs.
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makePng } from "../support/media-files.js";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js instance extras", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("mastoextraalice");
    bob = await compat.kith.createUser("mastoextrabob");
  });
  afterAll(() => compat?.close());

  it("reads languages, translation languages, the extended description and rules as a guest", async () => {
    await compat.kith.services.settings.update({
      extendedDescription: "About this place.",
      rules: [{ id: "1", text: "Be kind", hint: "" }],
    });
    const guest = compat.client();
    const languages = (await guest.v1.instance.languages.list()) as unknown as { code: string; name: string }[];
    expect(languages).toContainEqual({ code: "fr", name: "French" });
    expect(await guest.v1.instance.translationLanguages.list()).toEqual({});
    const description = await guest.v1.instance.extendedDescription.fetch();
    expect(description.content).toBe("<p>About this place.</p>");
    expect(description.updatedAt).toEqual(expect.any(String));
    // masto.js has no typed call for the rules; its paths are built from the names it is given.
    const instance = guest.v1.instance as unknown as { rules: { list(): Promise<unknown> } };
    expect(await instance.rules.list()).toEqual([{ id: "1", text: "Be kind", hint: "" }]);
  });

  it("gets 404 for domain blocks until they are published, then the list", async () => {
    const guest = compat.client();
    await expect(guest.v1.instance.domainBlocks.fetch()).rejects.toMatchObject({ statusCode: 404 });
    await compat.kith.services.settings.update({ showDomainBlocks: "all" });
    expect(await guest.v1.instance.domainBlocks.fetch()).toEqual([]);
    await compat.kith.services.settings.update({ showDomainBlocks: "disabled" });
  });

  it("takes the avatar away and answers the CredentialAccount; a guest is refused", async () => {
    const client = compat.client(alice);
    await client.v1.accounts.updateCredentials({
      avatar: new File([await makePng(64, 64)], "me.png", { type: "image/png" }),
    });
    expect((await client.v1.accounts.verifyCredentials()).avatar).not.toContain("missing.png");
    const account = await client.v1.profile.avatar.remove();
    expect(account.id).toBe(alice.account.id);
    expect(account.avatar).toContain("missing.png");
    expect(account.source).toBeDefined();
    expect((await client.v1.profile.header.remove()).header).toContain("missing.png");
    await expect(compat.client().v1.profile.avatar.remove()).rejects.toMatchObject({ statusCode: 401 });
  });

  it("lists no identity proofs for an account, and refuses a guest", async () => {
    expect(await compat.client(alice).v1.accounts.$select(bob.account.id).identityProofs.list()).toEqual([]);
    await expect(compat.client().v1.accounts.$select(bob.account.id).identityProofs.list()).rejects.toMatchObject({ statusCode: 401 });
  });
});
