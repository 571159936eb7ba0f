/**
 * The public pages of the web module: the landing page, profiles, posts with
 * their threads, hashtags, groups, their feeds, oEmbed and robots.txt, with
 * content negotiation on the same addresses; and the walk of every page as a
 * guest and as a signed-in stranger, which finds no private, direct or
 * secret-group post and no suspended account.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { registerApp } from "../support/oauth.js";

const HTML_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const AP_ACCEPT = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

describeOnEngines("public web pages", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let stranger: TestUser;
  let admin: TestUser;
  let moderator: TestUser;
  let publicGroupName: string;
  let secretGroupName: string;
  const word = `pw${Date.now().toString(36)}`;
  const ids = { root: "", reply: "", unlisted: "", private: "", direct: "", secret: "", groupPost: "", daves: "" };
  /** Words only the posts a guest may not see contain. */
  const hidden = { private: `${word}private`, direct: `${word}direct`, secret: `${word}secret`, suspended: `${word}suspended` };

  const page = async (path: string, token?: string, accept = HTML_ACCEPT) =>
    kith.request("GET", path, { ...(token && { token }), headers: { accept } });

  async function post(user: TestUser, json: Record<string, unknown>): Promise<string> {
    const posted = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(posted.status).toBe(200);
    return posted.body.id as string;
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
    dave = await kith.createUser("dave");
    stranger = await kith.createUser("stranger");
    admin = await kith.createUser("admin", { role: "Admin" });
    moderator = await kith.createUser("moderator", { role: "Moderator" });
    await call(kith, "PATCH", "/api/v1/accounts/update_credentials", alice.token, {
      display_name: "Alice <Liddell>",
      note: "Curious & <b>brave</b>",
      // An account is not indexed unless it says so (the API's noindex is the reverse of indexable).
      indexable: true,
    });
    await call(kith, "PATCH", "/api/v1/accounts/update_credentials", bob.token, { indexable: true });
    await call(kith, "PATCH", "/api/v1/accounts/update_credentials", carol.token, { indexable: false });
    ids.root = await post(alice, { status: `Hello #${word} <script>alert(1)</script>`, visibility: "public" });
    ids.reply = await post(bob, { status: `@alice a public reply ${word}`, in_reply_to_id: ids.root, visibility: "public" });
    ids.unlisted = await post(alice, { status: `quietly ${word}`, visibility: "unlisted" });
    ids.private = await post(alice, { status: `#${word} ${hidden.private}`, visibility: "private", in_reply_to_id: ids.root });
    ids.direct = await post(alice, { status: `@bob ${hidden.direct}`, visibility: "direct" });
    const secretGroup = await createGroup(kith, alice.token, { secret: true, join_mode: "INVITE_ONLY" });
    secretGroupName = secretGroup.name;
    ids.secret = await post(alice, { status: `#${word} ${hidden.secret}`, group_id: secretGroup.id, visibility: "public" });
    const publicGroup = await createGroup(kith, alice.token, { display_name: "Open Circle" });
    publicGroupName = publicGroup.name;
    ids.groupPost = await post(alice, { status: `in the open circle ${word}`, group_id: publicGroup.id, visibility: "public" });
    ids.daves = await post(dave, { status: `#${word} ${hidden.suspended}`, visibility: "public" });
    expect((await call(kith, "POST", `/api/v1/admin/accounts/${dave.account.id}/action`, admin.token, { type: "suspend" })).status).toBe(
      200,
    );
  });
  afterAll(async () => {
    await kith.close();
  });

  it("serves the landing and about page with the instance's name, rules, contact and registration state", async () => {
    for (const path of ["/", "/about"]) {
      const response = await page(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      const body = await response.text();
      expect(body).toMatch(/^<!doctype html>/);
      expect(body).toContain('<html lang="en">');
      expect(body).toContain('<h2 id="rules">Rules</h2>');
      expect(body).toContain('data-mode="open"');
      expect(body).toContain('<meta property="og:site_name"');
      expect(body).toContain("joinmastodon.org/apps");
    }
  });

  it("shows a profile as an h-card with OpenGraph and Twitter tags, its feeds, and escapes what the user typed", async () => {
    const response = await page("/@alice");
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain('class="h-card"');
    expect(body).toContain("Alice &lt;Liddell&gt;");
    expect(body).not.toContain("Alice <Liddell>");
    expect(body).toContain('<meta property="og:type" content="profile">');
    expect(body).toContain('<meta property="og:title" content="Alice &lt;Liddell&gt; (@alice@');
    expect(body).toContain('<meta name="twitter:card" content="summary">');
    expect(body).toContain(`href="${kith.config.origin}/@alice.rss"`);
    expect(body).toContain(`href="${kith.config.origin}/@alice.atom"`);
    expect(body).toContain('class="h-entry');
    expect(body).not.toContain("<script>");
    // Replies are on the post's page, not the profile's list; pinned posts and unlisted ones are the API's to decide.
    expect(body).toContain(`/@alice/${ids.root}`);
    expect(body).not.toContain('<meta name="robots"');
    // A user name spelled otherwise finds the same account; the handle with this host's domain too.
    expect((await page("/@ALICE")).status).toBe(200);
    expect((await page(`/@alice@${new URL(kith.config.origin).host}`)).status).toBe(200);
  });

  it("shows a post with its thread as h-entries, with the oEmbed link and article metadata", async () => {
    const response = await page(`/@bob/${ids.reply}`);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain(`id="status-${ids.root}"`);
    expect(body).toContain(`id="status-${ids.reply}"`);
    expect(body).toContain('class="h-entry focus"');
    expect(body).toContain(`class="u-in-reply-to" href="/@alice/${ids.root}"`);
    expect(body).toContain('<meta property="og:type" content="article">');
    expect(body).toContain('type="application/json+oembed"');
    const root = await (await page(`/@alice/${ids.root}`)).text();
    expect(root).toContain('<h2 id="replies">Replies</h2>');
    expect(root).toContain(`id="status-${ids.reply}"`);
    // The post's path names its author: under another account it is not there.
    expect((await page(`/@bob/${ids.root}`)).status).toBe(404);
  });

  it("shows a hashtag's public posts and a non-secret group's page", async () => {
    const tag = await (await page(`/tags/${word}`)).text();
    expect(tag).toContain(`<h1>#${word}</h1>`);
    expect(tag).toContain(`id="status-${ids.root}"`);
    const group = await page(`/@${publicGroupName}`);
    expect(group.status).toBe(200);
    const groupBody = await group.text();
    expect(groupBody).toContain("Open Circle");
    expect(groupBody).toContain(`id="status-${ids.groupPost}"`);
    expect((await page(`/@${secretGroupName}`)).status).toBe(404);
  });

  it("sends ActivityPub clients to the actor and the object, where the federation answers them", async () => {
    const actor = await page("/@alice", undefined, AP_ACCEPT);
    expect(actor.status).toBe(302);
    expect(actor.headers.get("location")).toBe(`${kith.config.origin}/users/alice`);
    expect(actor.headers.get("vary")).toContain("Accept");
    const followed = await kith.request("GET", new URL(actor.headers.get("location") ?? "").pathname, {
      headers: { accept: "application/activity+json" },
    });
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as { type: string }).type).toBe("Person");
    const note = await page(`/@alice/${ids.root}`, undefined, "application/activity+json");
    expect(note.status).toBe(302);
    expect(note.headers.get("location")).toBe(`${kith.config.origin}/users/alice/statuses/${ids.root}`);
    const object = await kith.request("GET", `/users/alice/statuses/${ids.root}`, { headers: { accept: "application/activity+json" } });
    expect(object.status).toBe(200);
    // The private post's object is the federation's to refuse to an unsigned fetch.
    const privateObject = await kith.request("GET", `/users/alice/statuses/${ids.private}`, {
      headers: { accept: "application/activity+json" },
    });
    expect(privateObject.status).not.toBe(200);
    expect((await page("/@nobody", undefined, AP_ACCEPT)).status).toBe(404);
  });

  it("walks every page as a guest and as a stranger and finds no private, direct, secret-group or suspended content", async () => {
    const statusPaths = Object.values(ids).flatMap((id) => ["alice", "bob", "dave", publicGroupName].map((user) => `/@${user}/${id}`));
    const paths = [
      "/",
      "/about",
      "/robots.txt",
      ...["alice", "bob", "carol", "dave", "stranger", publicGroupName, secretGroupName].flatMap((user) => [
        `/@${user}`,
        `/@${user}.rss`,
        `/@${user}.atom`,
      ]),
      `/tags/${word}`,
      `/tags/${word}.rss`,
      `/tags/${word}.atom`,
      ...statusPaths,
      ...statusPaths.map((path) => `/api/oembed?url=${encodeURIComponent(`${kith.config.origin}${path}`)}`),
    ];
    for (const viewer of [undefined, stranger.token]) {
      for (const path of paths) {
        const response = await page(path, viewer);
        expect(response.status, path).toBeLessThan(500);
        const body = await response.text();
        for (const secret of Object.values(hidden)) expect(body, `${path} shows ${secret}`).not.toContain(secret);
      }
      for (const id of [ids.private, ids.direct, ids.secret, ids.daves]) {
        for (const user of ["alice", "dave", secretGroupName]) expect((await page(`/@${user}/${id}`, viewer)).status).toBe(404);
      }
      expect((await page("/@dave", viewer)).status).toBe(404);
    }
  });

  it("tells crawlers to leave out accounts that chose not to be indexed, on the page and in robots.txt", async () => {
    const robots = await page("/robots.txt");
    expect(robots.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await robots.text();
    expect(text).toContain("User-agent: *");
    expect(text).toContain("Disallow: /api/");
    expect(text).toContain("Disallow: /@carol$");
    expect(text).toContain("Disallow: /@dave/");
    expect(text).not.toContain("/@alice");
    const carolsPage = await (await page("/@carol")).text();
    expect(carolsPage).toContain('<meta name="robots" content="noindex, noarchive">');
  });

  it("serves RSS and Atom feeds of a profile and a tag", async () => {
    const rss = await page("/@alice.rss");
    expect(rss.status).toBe(200);
    expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const rssText = await rss.text();
    expect(rssText).toContain('<rss version="2.0"');
    expect(rssText).toContain(`<link>${kith.config.origin}/@alice/${ids.root}</link>`);
    expect(rssText).not.toContain("<script>");
    const atom = await page(`/tags/${word}.atom`);
    expect(atom.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const atomText = await atom.text();
    expect(atomText).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(atomText).toContain(`/@alice/${ids.root}`);
    // Remote accounts have no feed here, nor do unknown ones.
    expect((await page("/@nobody.rss")).status).toBe(404);
  });

  it("answers oEmbed for a public post and 404 for anything else", async () => {
    const url = `${kith.config.origin}/@alice/${ids.root}`;
    const embed = await call(kith, "GET", `/api/oembed?url=${encodeURIComponent(url)}`);
    expect(embed.status).toBe(200);
    expect(embed.body).toMatchObject({ type: "rich", version: "1.0", author_url: `${kith.config.origin}/@alice`, width: 400 });
    expect(String(embed.body.html)).toContain("<blockquote");
    expect(String(embed.body.html)).not.toContain("<script>");
    for (const other of [`${kith.config.origin}/@alice/${ids.private}`, "https://elsewhere.example/@alice/1", "not a url"]) {
      expect((await call(kith, "GET", `/api/oembed?url=${encodeURIComponent(other)}`)).status).toBe(404);
    }
  });

  it("answers an unknown profile, post or account in HTML with 404", async () => {
    for (const path of ["/@nobody", "/@alice/999999", "/@a@b@c", "/@alice@unknown.example"]) {
      const response = await page(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain("<h1>Not found</h1>");
    }
  });

  it("keeps mail without SMTP and shows it, with its links, to an administrator only", async () => {
    await kith.mail.send({
      to: "someone@example.com",
      subject: "Confirm",
      text: "Follow https://kith.example/auth/confirmation?confirmation_token=abc to confirm.",
    });
    const kept = await call(kith, "GET", "/api/v1/admin/mail_outbox?to=someone@example.com", admin.token);
    expect(kept.status).toBe(200);
    expect(kept.body.kept).toBe(true);
    const messages = kept.body.messages as { subject: string; links: string[] }[];
    expect(messages[0]?.subject).toBe("Confirm");
    expect(messages[0]?.links).toEqual(["https://kith.example/auth/confirmation?confirmation_token=abc"]);
    expect((await call(kith, "GET", "/api/v1/admin/mail_outbox", moderator.token)).status).toBe(403);
    expect((await call(kith, "GET", "/api/v1/admin/mail_outbox")).status).toBe(401);
  });

  it("gives a link preview fetching a profile over HTTP as text/html its OpenGraph tags", async () => {
    const server: NodeServer = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    try {
      const response = await fetch(`${server.url}/@alice`, {
        headers: { accept: "text/html", "user-agent": "Kith/0.1 (link preview; +https://other.example/)" },
      });
      expect(response.status).toBe(200);
      const body = await response.text();
      const og = Object.fromEntries(
        [...body.matchAll(/<meta property="(og:[a-z:_]+)" content="([^"]*)">/g)].map((match) => [match[1], match[2]]),
      );
      expect(og["og:type"]).toBe("profile");
      expect(og["og:title"]).toContain("@alice@");
      expect(og["og:url"]).toBe(`${kith.config.origin}/@alice`);
      // What the user typed is text, escaped in the attribute as everywhere.
      expect(og["og:description"]).toBe("Curious &amp; &lt;b&gt;brave&lt;/b&gt;");
      expect(og["og:image"]).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  /** Opens the sign-up form as a browser would: its cookie and its hidden token. */
  async function signUpForm(): Promise<{ cookie: string; token: string; body: string }> {
    const response = await page("/auth/sign_up");
    expect(response.status).toBe(200);
    const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^kith_web_csrf=/);
    expect(response.headers.get("set-cookie")).toContain("SameSite=Strict");
    const body = await response.text();
    const token = /name="csrf_token" value="([^"]+)"/.exec(body)?.[1] ?? "";
    return { cookie, token, body };
  }

  const signUp = (cookie: string, form: Record<string, string>) =>
    kith.request("POST", "/auth/sign_up", { form, headers: { cookie, accept: HTML_ACCEPT } });

  it("signs up from the form with the server's rules, and the mailed link confirms the address", async () => {
    await kith.services.settings.update({ rules: [{ id: "1", text: "Be kind.", hint: "" }], registrationsMode: "open" });
    const form = await signUpForm();
    expect(form.body).toContain("Be kind.");
    expect(form.body).not.toContain('name="reason"');
    const fields = {
      csrf_token: form.token,
      username: "newcomer",
      email: "newcomer@example.com",
      password: "a long password",
      password_confirmation: "a long password",
      agreement: "1",
    };
    const done = await signUp(form.cookie, fields);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Welcome, newcomer");
    const outbox = await call(kith, "GET", "/api/v1/admin/mail_outbox?to=newcomer@example.com", admin.token);
    const link = (outbox.body.messages as { links: string[] }[])[0]?.links.find((each) => each.includes("/auth/confirmation"));
    expect(link).toBeDefined();
    const confirmed = await kith.request("GET", new URL(link ?? "").pathname + new URL(link ?? "").search);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("confirmed");
    // The same name again: the form comes back with the service's words, tied to the field.
    const again = await signUp(form.cookie, { ...fields, email: "other@example.com" });
    expect(again.status).toBe(422);
    const againBody = await again.text();
    expect(againBody).toContain(
      'id="username" name="username" type="text" autocomplete="username" value="newcomer" required aria-invalid="true"',
    );
    expect(againBody).toContain("Username is taken.");
    expect(againBody).not.toContain("a long password");
  });

  it("refuses a sign-up without the form's token, without agreeing to the rules, or with passwords that differ", async () => {
    await kith.services.settings.update({ registrationsMode: "open" });
    const form = await signUpForm();
    const fields = {
      csrf_token: form.token,
      username: "forged",
      email: "forged@example.com",
      password: "a long password",
      password_confirmation: "a long password",
      agreement: "1",
    };
    expect((await signUp("", fields)).status).toBe(403);
    expect((await signUp(form.cookie, { ...fields, csrf_token: "x".repeat(43) })).status).toBe(403);
    const unagreed = await signUp(form.cookie, { ...fields, agreement: "" });
    expect(unagreed.status).toBe(422);
    expect(await unagreed.text()).toContain('id="agreement-error"');
    const differing = await signUp(form.cookie, { ...fields, password_confirmation: "another password" });
    expect(differing.status).toBe(422);
    expect(await differing.text()).toContain("does not match the password");
    expect(await kith.services.profiles.idByAcctKey("forged")).toBeNull();
  });

  it("asks for a reason when accounts are approved, and says the sign-up waits for a moderator; closed, it refuses", async () => {
    await kith.services.settings.update({ registrationsMode: "approval" });
    const form = await signUpForm();
    expect(form.body).toContain('name="reason"');
    const fields = {
      csrf_token: form.token,
      username: "applicant",
      email: "applicant@example.com",
      password: "a long password",
      password_confirmation: "a long password",
      agreement: "1",
    };
    const missing = await signUp(form.cookie, fields);
    expect(missing.status).toBe(422);
    expect(await missing.text()).toContain('id="reason-error"');
    const done = await signUp(form.cookie, { ...fields, reason: "I grow beans." });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("A moderator will review your request");
    await kith.services.settings.update({ registrationsMode: "closed" });
    expect((await page("/auth/sign_up")).status).toBe(403);
    expect(await (await page("/about")).text()).not.toContain('href="/auth/sign_up"');
    expect((await signUp(form.cookie, { ...fields, username: "latecomer", email: "late@example.com", reason: "late" })).status).toBe(403);
    await kith.services.settings.update({ registrationsMode: "open" });
  });

  it("resets a forgotten password from the pages: a code by email, a new password, every session ended", async () => {
    const user = await kith.createUser("forgetful", { email: "forgetful@example.com" });
    const opened = await page("/auth/password/new");
    expect(opened.status).toBe(200);
    const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const token = /name="csrf_token" value="([^"]+)"/.exec(await opened.text())?.[1] ?? "";
    const post = (path: string, form: Record<string, string>, withCookie = cookie) =>
      kith.request("POST", path, { form, headers: { cookie: withCookie, accept: HTML_ACCEPT } });

    expect((await post("/auth/password/new", { csrf_token: token, identifier: "forgetful" }, "")).status).toBe(403);
    expect((await post("/auth/password/new", { csrf_token: token, identifier: " " })).status).toBe(422);
    // An unknown account is answered as a known one: the page tells nothing of who has an account here.
    const unknown = await post("/auth/password/new", { csrf_token: token, identifier: "nobody-here" });
    expect(unknown.status).toBe(200);
    const asked = await post("/auth/password/new", { csrf_token: token, identifier: "forgetful" });
    expect(asked.status).toBe(200);
    const askedBody = await asked.text();
    expect(askedBody).toContain('action="/auth/password/edit"');
    expect(askedBody.replaceAll("forgetful", "X")).toBe((await unknown.text()).replaceAll("nobody-here", "X"));
    const code = /\b(\d{6})\b/.exec(kith.mail.lastTo("forgetful@example.com")?.text ?? "")?.[1] ?? "";
    expect(code).toMatch(/^\d{6}$/);

    const change = (fields: Record<string, string>) =>
      post("/auth/password/edit", {
        csrf_token: token,
        identifier: "forgetful",
        code,
        password: "a brand new password",
        password_confirmation: "a brand new password",
        ...fields,
      });
    const wrong = await change({ code: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain('id="code-error"');
    const short = await change({ password: "short", password_confirmation: "short" });
    expect(short.status).toBe(422);
    expect(await short.text()).toContain('id="password-error"');
    expect((await change({ password_confirmation: "something else" })).status).toBe(422);
    // The form sent back for a refused password still takes the same code.
    const done = await change({});
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Your password is changed");
    expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: user.token })).status).toBe(401);
    const app = await registerApp(kith, { scopes: "read" });
    const signIn = (password: string) =>
      kith.request("POST", "/oauth/token", {
        form: {
          grant_type: "password",
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: "forgetful",
          password,
          scope: "read",
        },
      });
    expect((await signIn("a brand new password")).status).toBe(200);
    expect((await signIn(user.password)).status).toBe(400);
    // A code is used once.
    expect((await change({})).status).toBe(422);
  });
});
