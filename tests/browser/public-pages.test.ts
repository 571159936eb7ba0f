/**
 * The public pages in a real browser (Debian's Chromium through
 * playwright-core, against a real HTTP server): a guest opens the about page,
 * a profile, a post with its thread and a tag page, at a desktop and a phone
 * width, in light and dark; axe-core finds no serious or critical
 * accessibility violation on any of them. Screenshots are kept under
 * `.tmp/browser-artefacts/public-pages/` (ignored by git) for a person to look at.
 *
 * On SQLite only: the pages' content and visibility run on both engines in
 * tests/api/web-pages.test.ts.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import axe from "axe-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { browserTestsRun, launchChromium } from "../support/chromium.js";
import { sqlite } from "../support/engines.js";
import { call } from "../support/groups.js";

const ARTEFACTS = fileURLToPath(new URL("../../.tmp/browser-artefacts/public-pages/", import.meta.url));
const WIDTHS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;
const SCHEMES = ["light", "dark"] as const;

interface AxeViolation {
  readonly id: string;
  readonly impact?: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[] }[];
}

/** Runs axe-core in the page (through the debugging protocol, which the pages' CSP does not stop) and keeps the serious findings. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe.run();
    return result.violations;
  })) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}

describe.skipIf(!browserTestsRun("the public pages"))("the public pages in Chromium", () => {
  let kith: TestKith;
  let server: NodeServer;
  let browser: Browser | undefined;
  let alice: TestUser;
  let bob: TestUser;
  let rootId: string;
  let replyId: string;
  let warnedId: string;

  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    kith = await sqlite.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    await kith.services.settings.update({
      title: "Kith Garden",
      description: "A small server for friends who garden.",
      contactEmail: "admin@garden.example",
      registrationsMode: "open",
      rules: [
        { id: "1", text: "Be kind to one another.", hint: "No harassment." },
        { id: "2", text: "Mark spoilers with a content warning.", hint: "" },
      ],
    });
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    await call(kith, "PATCH", "/api/v1/accounts/update_credentials", alice.token, {
      display_name: "Alice Gardener",
      note: "Tomatoes, beans and #compost.",
      indexable: true,
      fields_attributes: { "0": { name: "Plot", value: "Number 12" }, "1": { name: "Favourite", value: "Runner beans" } },
    });
    const post = async (user: TestUser, json: Record<string, unknown>) =>
      (await call(kith, "POST", "/api/v1/statuses", user.token, json)).body.id as string;
    rootId = await post(alice, { status: "First beans of the year! #gardening", visibility: "public" });
    replyId = await post(bob, {
      status: "@alice Lovely, mine are still flowering. #gardening",
      in_reply_to_id: rootId,
      visibility: "public",
    });
    await post(alice, { status: "@bob Water them in the evening.", in_reply_to_id: replyId, visibility: "public" });
    warnedId = await post(alice, { status: "The slugs ate everything.", spoiler_text: "garden sadness", visibility: "public" });
    await post(alice, { status: "Only my followers see this.", visibility: "private" });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await kith?.close();
  });

  const pages = () => [
    { name: "about", path: "/about", heading: "Kith Garden" },
    { name: "profile", path: "/@alice", heading: "Alice Gardener" },
    { name: "thread", path: `/@bob/${replyId}`, heading: "Post by bob" },
    { name: "tag", path: "/tags/gardening", heading: "#gardening" },
  ];

  it("shows each page to a guest at desktop and phone widths, light and dark, with no serious accessibility violation", async () => {
    if (!browser) throw new Error("no browser");
    const findings: string[] = [];
    for (const size of WIDTHS) {
      for (const scheme of SCHEMES) {
        const context = await browser.newContext({
          viewport: { width: size.width, height: size.height },
          colorScheme: scheme,
          javaScriptEnabled: true,
        });
        const page = await context.newPage();
        for (const target of pages()) {
          const response = await page.goto(`${server.url}${target.path}`);
          expect(response?.status(), target.path).toBe(200);
          await expect(page.locator("h1").first().textContent()).resolves.toContain(target.heading);
          // Nothing wider than the screen: the page reads without scrolling sideways.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${target.path} at ${size.name}`).toBeLessThanOrEqual(0);
          await page.screenshot({ path: `${ARTEFACTS}${target.name}-${size.name}-${scheme}.png`, fullPage: true });
          for (const finding of await seriousViolations(page)) findings.push(`${target.path} ${size.name} ${scheme}: ${finding}`);
        }
        await context.close();
      }
    }
    expect(findings).toEqual([]);
  }, 180_000);

  it("reads a profile, a thread and a tag page without JavaScript, and never shows a followers-only post", async () => {
    if (!browser) throw new Error("no browser");
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/@alice`);
    expect(await page.locator("#profile-name").textContent()).toBe("Alice Gardener");
    expect(await page.locator("dl.fields dt").allTextContents()).toEqual(["Plot", "Favourite"]);
    expect(await page.content()).not.toContain("Only my followers see this.");

    await page.goto(`${server.url}/@bob/${replyId}`);
    const entries = page.locator("article.h-entry");
    expect(await entries.count()).toBe(3);
    expect(await page.locator("article.focus .e-content").textContent()).toContain("mine are still flowering");
    expect(await page.locator("#replies").textContent()).toBe("Replies");
    // From a post of the thread to its author's profile, as a reader follows links.
    await page.locator(`#status-${rootId} .p-author a.p-name`).click();
    await page.waitForURL(`${server.url}/@alice`);

    // A content warning folds the post away; opening it needs no script.
    await page.goto(`${server.url}/@alice/${warnedId}`);
    const warned = page.locator(`#status-${warnedId} details`);
    expect(await warned.locator(".e-content").isVisible()).toBe(false);
    await warned.locator("summary").click();
    expect(await warned.locator(".e-content").isVisible()).toBe(true);

    await page.goto(`${server.url}/tags/gardening`);
    expect(await page.locator("article.h-entry").count()).toBe(2);
    await context.close();
  }, 60_000);

  it("signs up from the form, confirms the address from the mail outbox, and the form passes the accessibility check", async () => {
    if (!browser) throw new Error("no browser");
    const admin = await kith.createUser("admin", { role: "Admin" });
    for (const size of WIDTHS) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await page.goto(`${server.url}/about`);
      await page.locator("#sign-up").click();
      await page.waitForURL(`${server.url}/auth/sign_up`);
      await page.screenshot({ path: `${ARTEFACTS}sign-up-${size.name}.png`, fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      // A first try without agreeing: the form comes back with what to fix, the name kept.
      const username = `sprout_${size.name}`;
      await page.getByLabel("Username").fill(username);
      await page.getByLabel("Email address").fill(`${username}@example.com`);
      await page.getByLabel("Password", { exact: true }).fill("a long password");
      await page.getByLabel("Password, again").fill("a long password");
      await page.evaluate(() => document.querySelector("form")?.setAttribute("novalidate", ""));
      await page.getByRole("button", { name: "Sign up" }).click();
      expect(await page.locator("#agreement-error").isVisible()).toBe(true);
      expect(await page.getByLabel("Username").inputValue()).toBe(username);
      await page.screenshot({ path: `${ARTEFACTS}sign-up-problems-${size.name}.png`, fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Password", { exact: true }).fill("a long password");
      await page.getByLabel("Password, again").fill("a long password");
      await page.getByLabel("I have read the rules and agree to them").check();
      await page.getByRole("button", { name: "Sign up" }).click();
      expect(await page.locator("h1").textContent()).toBe(`Welcome, ${username}`);
      await page.screenshot({ path: `${ARTEFACTS}signed-up-${size.name}.png`, fullPage: true });

      const outbox = await call(kith, "GET", `/api/v1/admin/mail_outbox?to=${username}@example.com`, admin.token);
      const link = (outbox.body.messages as { links: string[] }[])[0]?.links.find((each) => each.includes("/auth/confirmation"));
      if (!link) throw new Error("no confirmation link in the outbox");
      const confirmation = new URL(link);
      await page.goto(`${server.url}${confirmation.pathname}${confirmation.search}`);
      expect(await page.locator("h1").textContent()).toBe("Email address confirmed");
      await context.close();
    }
  }, 120_000);

  it("resets a forgotten password with the code from the mail outbox, and the pages pass the accessibility check", async () => {
    if (!browser) throw new Error("no browser");
    const admin = await kith.createUser("resetadmin", { role: "Admin" });
    for (const size of WIDTHS) {
      const username = `forgot_${size.name}`;
      await kith.createUser(username, { email: `${username}@example.com` });
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await page.goto(`${server.url}/auth/password/new`);
      await page.screenshot({ path: `${ARTEFACTS}password-new-${size.name}.png`, fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Email address or username").fill(username);
      await page.getByRole("button", { name: "Email me a code" }).click();
      expect(await page.locator("h1").textContent()).toBe("Set a new password");
      const outbox = await call(kith, "GET", `/api/v1/admin/mail_outbox?to=${username}@example.com`, admin.token);
      const mailed = (outbox.body.messages as { text: string }[])[0]?.text ?? "";
      const code = /\b(\d{6})\b/.exec(mailed)?.[1];
      if (!code) throw new Error("no recovery code in the outbox");
      await page.getByLabel("Code from the email").fill(code);
      await page.getByLabel("New password", { exact: true }).fill("a fresh long password");
      await page.getByLabel("New password, again").fill("a fresh long password");
      await page.screenshot({ path: `${ARTEFACTS}password-edit-${size.name}.png`, fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Set the password" }).click();
      expect(await page.locator("h1").textContent()).toBe("Your password is changed");
      await context.close();
    }
  }, 120_000);
});
