import { type CreateKithOptions, type Kith, createKith } from "../kith.js";
import { FakeClock } from "../memory/system-clock.js";
import { MailOutbox, SmsOutbox } from "../memory/outboxes.js";
import type { LocalAccount } from "../domain/accounts.js";
import { ALL_SCOPES } from "../domain/scopes.js";
import type { Storage } from "../ports/storage.js";

export interface TestKithOptions extends Partial<Omit<CreateKithOptions, "storage">> {
  /** Makes the database; each test Kith gets its own. */
  readonly storage: () => Storage | Promise<Storage>;
}

export interface RequestOptions {
  readonly token?: string;
  /** Sent as JSON. */
  readonly json?: unknown;
  /** Sent form-encoded. */
  readonly form?: Record<string, string>;
  /** Sent as is. */
  readonly body?: BodyInit;
  readonly headers?: Record<string, string>;
  readonly clientIp?: string;
}

export interface TestUser {
  readonly account: LocalAccount;
  readonly password: string;
  /** A session token with every scope. */
  readonly token: string;
}

/** A Kith for tests: fake clock, outboxes to read mail from, and one-line helpers for requests and users. */
export interface TestKith extends Kith {
  readonly clock: FakeClock;
  readonly mail: MailOutbox;
  readonly sms: SmsOutbox;
  /** Sends a request through the fetch handler, as an HTTP host would. */
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** A local user with a role (default "User") and a token. */
  createUser(username: string, options?: { role?: string; scopes?: readonly string[]; email?: string }): Promise<TestUser>;
}

export async function createTestKith(options: TestKithOptions): Promise<TestKith> {
  const clock = new FakeClock(new Date());
  const mail = new MailOutbox();
  const sms = new SmsOutbox();
  const kith = await createKith({
    ...options,
    storage: await options.storage(),
    clock,
    mail,
    sms,
    // Registrations are open in tests (a server's default is approval): the tests that sign up say so here, not by the default.
    config: {
      origin: "https://kith.test",
      passwordHashCost: 1024,
      ...options.config,
      settingDefaults: { registrationsMode: "open", ...options.config?.settingDefaults },
    },
  });
  const request = async (method: string, path: string, init: RequestOptions = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    let body: BodyInit | undefined = init.body;
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    }
    const response = await kith.fetch(new Request(new URL(path, kith.config.origin), { method, headers, body }), {
      clientIp: init.clientIp ?? "127.0.0.1",
    });
    // Tests read the effects of a request right after it; reactions that follow the answer (fan-out) are done by then.
    await kith.services.events.settled();
    return response;
  };
  const createUser = async (
    username: string,
    userOptions: { role?: string; scopes?: readonly string[]; email?: string } = {},
  ): Promise<TestUser> => {
    const { account, password } = await kith.services.accounts.createLocalAccount({
      username,
      email: userOptions.email ?? `${username.toLowerCase()}@kith.test`,
      confirmed: true,
      role: userOptions.role ?? "User",
    });
    const session = await kith.services.sessions.issue({ accountId: account.id, scopes: userOptions.scopes ?? ALL_SCOPES });
    return { account, password, token: session.accessToken };
  };
  return { ...kith, clock, mail, sms, request, createUser };
}
