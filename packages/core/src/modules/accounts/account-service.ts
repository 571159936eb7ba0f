import { type LocalAccount, USERNAME_PATTERN, acctKey } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import {
  emailExists,
  findLocalAccountById,
  findLocalAccountByUsername,
  insertLocalAccount,
  updateUserFlags,
  usernameTaken,
} from "./accounts-store.js";
import { findRoleByName, rolesOfActor, setGlobalRole } from "../roles/roles-store.js";
import { newPassword } from "../auth/secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import { requireLocalAccount } from "./require-local-account.js";
import type { SessionService } from "../auth/session-service.js";

export const MIN_PASSWORD_LENGTH = 8;

export interface CreateLocalAccountInput {
  readonly username: string;
  readonly email: string;
  /** Generated when absent, and returned. */
  readonly password?: string;
  /** The email counts as confirmed. */
  readonly confirmed?: boolean;
  /** Approved to sign in (approval-mode signups start unapproved). @default true */
  readonly approved?: boolean;
  /** Name of a global role. @default "User" */
  readonly role?: string;
  readonly actorType?: "Person" | "Service";
}

export interface AccountModification {
  readonly role?: string;
  readonly approve?: boolean;
  readonly disable?: boolean;
  readonly enable?: boolean;
  readonly confirm?: boolean;
}

/**
 * An address as Mastodon takes one for an account an administrator makes (Devise's check: something, one `@`,
 * something, no spaces), so `admin@localhost` does. Sign-up checks addresses more strictly before they get here
 * (`checkEmailAddress`).
 */
const ADMINISTERED_EMAIL = /^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u;
const MAX_EMAIL_LENGTH = 254;

function acceptableEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && ADMINISTERED_EMAIL.test(email);
}

/** Normalises an email address for storage and lookup. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Local accounts: creation and the administrative changes the CLI makes. */
export class AccountService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "passwords">,
    private readonly sessions: Pick<SessionService, "signInChanged">,
  ) {}

  async createLocalAccount(input: CreateLocalAccountInput): Promise<{ account: LocalAccount; password: string }> {
    if (!USERNAME_PATTERN.test(input.username)) throw new KithError("account.invalid_username");
    const email = normalizeEmail(input.email);
    if (!acceptableEmail(email)) throw new KithError("account.invalid_email");
    const password = input.password ?? newPassword(this.deps.random);
    if (password.length < MIN_PASSWORD_LENGTH) throw new KithError("account.password_too_short");
    const passwordHash = await this.deps.passwords.hash(password);
    const now = this.deps.clock.now().toISOString();
    const id = this.deps.ids.next("user");

    await this.deps.storage.transaction(async (trx) => {
      // A group's name is taken as an account's is.
      if (await usernameTaken(trx, input.username)) throw new KithError("account.username_taken");
      if (await emailExists(trx, email)) throw new KithError("account.email_taken");
      const role = await findRoleByName(trx, input.role ?? "User");
      if (!role) throw new KithError("role.not_found", { message: `No global role named ${input.role}` });
      await insertLocalAccount(
        trx,
        {
          id,
          username: input.username,
          domain: null,
          acct_key: acctKey(input.username, null),
          display_name: "",
          note: "",
          actor_type: input.actorType ?? "Person",
          locked: false,
          discoverable: true,
          uri: null,
          url: null,
          created_at: now,
          updated_at: now,
          suspended_at: null,
          silenced_at: null,
        },
        {
          account_id: id,
          email,
          email_confirmed_at: input.confirmed ? now : null,
          password_hash: passwordHash,
          approved: input.approved ?? true,
          disabled_at: null,
          locale: null,
          created_at: now,
          updated_at: now,
        },
      );
      await setGlobalRole(trx, id, role.id, now);
    });
    const account = await findLocalAccountById(this.deps.storage.db, id);
    if (!account) throw new Error("Account vanished after creation");
    return { account, password };
  }

  async findByUsername(username: string): Promise<LocalAccount> {
    const account = await findLocalAccountByUsername(this.deps.storage.db, username);
    if (!account) throw new KithError("account.not_found");
    return account;
  }

  async findById(id: string): Promise<LocalAccount> {
    return requireLocalAccount(this.deps.storage.db, id);
  }

  /** The account's global role, as Mastodon's credential account shows one role. */
  async globalRole(accountId: string): Promise<{ id: string; name: string } | null> {
    const roles = await rolesOfActor(this.deps.storage.db, accountId);
    const role = roles.find((candidate) => candidate.scope === "global");
    return role ? { id: role.id, name: role.name } : null;
  }

  /** The administrative changes of `kith accounts modify`, applied together or not at all. */
  async modify(username: string, changes: AccountModification): Promise<LocalAccount> {
    const now = this.deps.clock.now().toISOString();
    const account = await this.findByUsername(username);
    await this.deps.storage.transaction(async (trx) => {
      if (changes.role) {
        const role = await findRoleByName(trx, changes.role);
        if (!role) throw new KithError("role.not_found", { message: `No global role named ${changes.role}` });
        await setGlobalRole(trx, account.id, role.id, now);
      }
      await updateUserFlags(trx, account.id, {
        ...(changes.approve && { approved: true }),
        ...(changes.disable && { disabledAt: now }),
        ...(changes.enable && { disabledAt: null }),
        ...(changes.confirm && { emailConfirmedAt: now }),
        updatedAt: now,
      });
    });
    await this.sessions.signInChanged();
    return this.findById(account.id);
  }
}
