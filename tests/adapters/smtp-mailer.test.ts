import { SmtpMailer, createKith, type Kith } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";

let sink: SmtpSink | null = null;
let mailer: SmtpMailer | null = null;
let kith: Kith | null = null;

afterEach(async () => {
  mailer?.close();
  await kith?.close();
  await sink?.close();
  sink = mailer = kith = null;
});

async function started(options: Parameters<typeof startSmtpSink>[0] = {}, auth = "kith:secret@") {
  sink = await startSmtpSink(options);
  mailer = new SmtpMailer({ url: `smtp://${auth}127.0.0.1:${sink.port}`, from: "Kith <noreply@kith.test>" });
  return { sink, mailer };
}

describe("the SMTP mailer against an SMTP server on a loopback port", () => {
  it("delivers a message with its sender, recipient, subject and text, signing in with the URL's credentials", async () => {
    const { sink, mailer } = await started({ credentials: { user: "kith", pass: "secret" } });
    await mailer.send({ to: "alice@kith.test", subject: "Your code", text: "Hello alice,\n\nYour code: 123456" });
    expect(sink.received).toHaveLength(1);
    const [mail] = sink.received;
    expect(mail?.user).toBe("kith");
    expect(mail?.from).toBe("noreply@kith.test");
    expect(mail?.to).toEqual(["alice@kith.test"]);
    expect(mail?.headers.from).toBe("Kith <noreply@kith.test>");
    expect(mail?.headers.to).toBe("alice@kith.test");
    expect(mail?.headers.subject).toBe("Your code");
    expect(mail?.body.replace(/\r\n/g, "\n").trim()).toBe("Hello alice,\n\nYour code: 123456");
  });

  it("keeps lines that start with a dot and text beyond ASCII intact", async () => {
    const { sink, mailer } = await started();
    const text = "Première ligne\n.une ligne qui commence par un point\n..et deux";
    await mailer.send({ to: "bob@kith.test", subject: "Accents: é", text });
    const [mail] = sink.received;
    expect(mail?.body.replace(/\r\n/g, "\n").trim()).toBe(text);
    expect(mail?.headers.subject).not.toBe("");
  });

  it("fails the send when the server refuses the recipient", async () => {
    const { sink, mailer } = await started({ refuseRecipients: ["nobody@kith.test"] });
    await expect(mailer.send({ to: "nobody@kith.test", subject: "x", text: "x" })).rejects.toThrow();
    expect(sink.received).toHaveLength(0);
  });

  it("fails the send when the server refuses the credentials", async () => {
    const { sink, mailer } = await started({ credentials: { user: "kith", pass: "secret" } }, "kith:wrong@");
    await expect(mailer.send({ to: "alice@kith.test", subject: "x", text: "x" })).rejects.toThrow();
    expect(sink.received).toHaveLength(0);
  });

  it("a code that cannot be mailed is a 503; recovery still answers alike; a notice that cannot be mailed leaves the change done", async () => {
    const { sink, mailer } = await started();
    const ready = await createKith({
      storage: await createSqliteStorage({ filename: ":memory:" }),
      mail: mailer,
      config: { origin: "https://kith.test", passwordHashCost: 1024 },
    });
    kith = ready;
    const { account, password } = await ready.services.accounts.createLocalAccount({ username: "erin", email: "erin@kith.test", confirmed: true });
    const { accessToken } = await ready.services.sessions.issue({ accountId: account.id, scopes: ["read", "write"] });
    const post = (path: string, json: unknown, token?: string) =>
      ready.fetch(
        new Request(`https://kith.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
          body: JSON.stringify(json),
        }),
        { clientIp: "127.0.0.1" },
      );
    sink.refused.add("erin@kith.test");
    const refused = await post("/api/v1/accounts/password/change/request", { currentPassword: password, newPassword: "a brand new phrase" }, accessToken);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: "server.unavailable", error: expect.stringMatching(/could not be mailed/) });
    expect((await post("/api/v1/accounts/password/recover", { identifier: "erin" })).status).toBe(202);
    expect((await post("/api/v1/accounts/password/recover", { identifier: "nobody-here" })).status).toBe(202);

    sink.refused.delete("erin@kith.test");
    expect((await post("/api/v1/accounts/password/change/request", { currentPassword: password, newPassword: "a brand new phrase" }, accessToken)).status).toBe(200);
    const code = /(\d{6})/.exec(sink.received.at(-1)?.body ?? "")?.[1] ?? "";
    sink.refused.add("erin@kith.test");
    const confirmed = await post("/api/v1/accounts/password/change/confirm", { code }, accessToken);
    expect(confirmed.status).toBe(200);
    expect((await ready.services.oauth.signIn("erin", "a brand new phrase", null)).ok).toBe(true);
    expect(sink.received.filter((message) => /changed/.test(message.headers.subject ?? ""))).toHaveLength(0);
  });

  it("carries a password recovery code from Kith's mail port to the server, and the code recovers the account", async () => {
    const { sink, mailer } = await started();
    kith = await createKith({
      storage: await createSqliteStorage({ filename: ":memory:" }),
      mail: mailer,
      config: { origin: "https://kith.test", passwordHashCost: 1024 },
    });
    await kith.services.accounts.createLocalAccount({ username: "carol", email: "carol@kith.test", confirmed: true, role: "User" });
    const post = (path: string, json: unknown) =>
      (kith as Kith).fetch(
        new Request(`https://kith.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) }),
        { clientIp: "127.0.0.1" },
      );
    expect((await post("/api/v1/accounts/password/recover", { identifier: "carol" })).status).toBe(202);
    const mail = sink.received.find((message) => message.to.includes("carol@kith.test"));
    expect(mail?.headers.subject).toMatch(/password recovery code/);
    const code = /(\d{6})/.exec(mail?.body ?? "")?.[1] ?? "";
    expect((await post("/api/v1/accounts/password/recover/check-code", { identifier: "carol", code })).status).toBe(200);
    const changed = await post("/api/v1/accounts/password/recover/change", { identifier: "carol", code, newPassword: "a brand new phrase" });
    expect(changed.status).toBe(200);
    expect(sink.received.at(-1)?.headers.subject).toMatch(/changed/);
  });
});
