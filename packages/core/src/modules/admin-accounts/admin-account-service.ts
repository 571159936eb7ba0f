import type { Kysely } from "kysely";
import { type LocalAccount, canSignIn } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import type { ResourceName } from "../../domain/resources.js";
import type { PageRequest } from "../../domain/page.js";
import {
  type AdminAccountFilter,
  type AdminAccountRow,
  deleteAccountRow,
  findAdminAccount,
  ipsOfAccount,
  listAdminAccounts,
  revokeAllSessionsOfAccount,
  setAccountModeration,
  setPasswordHash,
} from "./admin-accounts-store.js";
import { updateUserFlags } from "../accounts/accounts-store.js";
import { countAssignments, findAssignment, findRoleWithPermissions } from "../roles/rbac-store.js";
import { findRoleByName, grantsOfActor, rolesOfActor, setGlobalRole } from "../roles/roles-store.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import { type AccountService, MIN_PASSWORD_LENGTH } from "../accounts/account-service.js";
import { newPassword } from "../auth/secrets.js";
import type { IssuedSession, SessionService } from "../auth/session-service.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { grantsCover } from "../roles/role-service.js";

export type { AdminAccountFilter, AdminAccountRow };

/** Mastodon's `POST /api/v1/admin/accounts/:id/action` types. */
export const ACCOUNT_ACTIONS = ["none", "sensitive", "disable", "silence", "suspend"] as const;
export type AccountAction = (typeof ACCOUNT_ACTIONS)[number];

/** Undo transitions, each at its own path as Mastodon has them. */
export type AccountUndo = "enable" | "unsilence" | "unsuspend" | "unsensitive";

/** Scopes of a token issued by impersonation: a bot's ordinary rights, never administration. */
export const IMPERSONATION_SCOPES: readonly string[] = ["read", "write", "follow", "push"];

/**
 * The reports an account action answers (Mastodon's `report_id`): set by the
 * reports module when it is composed; without it `report_id` is ignored.
 */
export interface ActionReports {
  /** Refuses a report that is not about the account (or does not exist). */
  assertAbout(reportId: string, accountId: string): Promise<void>;
  /** Resolves the report, the actor recorded. */
  resolve(reportId: string, actorId: string): Promise<void>;
}

/** An account as the administration shows it. */
export interface AdminAccountView {
  readonly row: AdminAccountRow;
  readonly ips: readonly { readonly ip: string; readonly usedAt: string }[];
  readonly role: { readonly id: string; readonly name: string; readonly administrator: boolean } | null;
  /** The account as the Account entity shows it (remote accounts too). */
  readonly account: LocalAccount;
}

/** The acting administrator: who (null: the server itself, as the `kith` command line acts), and what their roles grant. */
export interface AdminActor {
  readonly accountId: string | null;
  readonly grants: readonly Grant[];
}

export interface AdminCreateInput {
  readonly username: string;
  readonly email: string;
  readonly password?: string;
  readonly role?: string;
  readonly confirmed?: boolean;
}

const OWNER = "Owner";

function asLocalAccount(row: AdminAccountRow): LocalAccount {
  return {
    id: row.id,
    username: row.username,
    displayName: row.displayName,
    note: row.note,
    actorType: row.actorType === "Service" || row.actorType === "Group" ? row.actorType : "Person",
    locked: row.locked,
    discoverable: row.discoverable,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    email: row.user?.email ?? "",
    emailConfirmed: row.user?.emailConfirmed ?? false,
    approved: row.user?.approved ?? true,
    disabled: row.user?.disabled ?? false,
    suspended: row.suspendedAt !== null,
    silenced: row.silencedAt !== null,
  };
}

/**
 * Administration of accounts (Users.Manage): listing, state transitions,
 * creation, deletion, roles, passwords and impersonation of bots. Nobody acts
 * on an account holding permissions they do not hold themselves, and nobody
 * hands out a role beyond their own permissions.
 */
export class AdminAccountService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "passwords">,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly events: DomainEvents,
  ) {}

  /** Tells the audit log what was done to an account (after the change committed). */
  async #acted(actorId: string | null, action: string, id: string, text: string | null = null, resource: ResourceName = "Users") {
    await this.events.emit({ type: "moderation.action", actorId, action, resource, targetType: "account", targetId: id, text });
  }

  async #view(db: Kysely<Database>, row: AdminAccountRow): Promise<AdminAccountView> {
    const [ips, roles] = await Promise.all([ipsOfAccount(db, row.id), rolesOfActor(db, row.id)]);
    const role = roles.find((candidate) => candidate.scope === "global");
    return {
      row,
      ips,
      role: role ? { id: role.id, name: role.name, administrator: ["owner", "admin"].includes(role.name.toLowerCase()) } : null,
      account: asLocalAccount(row),
    };
  }

  async #row(db: Kysely<Database>, id: string): Promise<AdminAccountRow> {
    const row = await findAdminAccount(db, id);
    if (!row) throw new KithError("account.not_found");
    return row;
  }

  async list(filter: AdminAccountFilter, page: PageRequest): Promise<AdminAccountView[]> {
    const db = this.deps.storage.db;
    const rows = await listAdminAccounts(db, filter, page);
    return Promise.all(rows.map((row) => this.#view(db, row)));
  }

  async get(id: string): Promise<AdminAccountView> {
    const db = this.deps.storage.db;
    return this.#view(db, await this.#row(db, id));
  }

  /** Refuses to act on an account whose roles hold more than the actor's. */
  async #guardOutranks(db: Kysely<Database>, actor: AdminActor, targetId: string): Promise<void> {
    if (actor.accountId === targetId) return;
    const targetGrants = await grantsOfActor(db, targetId);
    const covered = targetGrants.every((grant) =>
      grantsCover(actor.grants, [{ resource: grant.resource, access: grant.access }], grant.scope),
    );
    if (!covered) throw new KithError("admin_account.outranked");
  }

  /** Refuses a change that would leave the server without an Owner. */
  async #guardLastOwner(db: Kysely<Database>, accountId: string): Promise<void> {
    const owner = await findRoleByName(db, OWNER, "global");
    if (!owner || !toBool(owner.built_in)) return;
    if (!(await findAssignment(db, accountId, owner.id))) return;
    if ((await countAssignments(db, owner.id)) <= 1) throw new KithError("role.last_owner");
  }

  #reports: ActionReports | null = null;

  /** Sets how an action naming a report resolves it. */
  resolveReportsWith(reports: ActionReports): void {
    this.#reports = reports;
  }

  /**
   * Mastodon's moderation action, with the moderator's `text`. `none` changes
   * nothing (a warning, in Mastodon). With `reportId`, the report about the account is resolved
   * once the action is taken.
   */
  async act(actor: AdminActor, id: string, type: AccountAction, options: { text?: string | null; reportId?: string } = {}): Promise<void> {
    const reports = options.reportId === undefined ? null : this.#reports;
    if (reports && options.reportId !== undefined) await reports.assertAbout(options.reportId, id);
    await this.#act(actor, id, type, options.text ?? null);
    // A report is resolved by someone: the command line (no account) does not take report ids.
    if (reports && options.reportId !== undefined && actor.accountId !== null) await reports.resolve(options.reportId, actor.accountId);
  }

  async #act(actor: AdminActor, id: string, type: AccountAction, text: string | null): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const row = await this.#row(trx, id);
      if (type === "none") return;
      if (actor.accountId === id) throw new KithError("admin_account.self");
      await this.#guardOutranks(trx, actor, id);
      switch (type) {
        case "sensitive":
          await setAccountModeration(trx, id, { sensitizedAt: row.sensitizedAt ?? now, updatedAt: now });
          return;
        case "silence":
          await setAccountModeration(trx, id, { silencedAt: row.silencedAt ?? now, updatedAt: now });
          return;
        case "suspend":
          await setAccountModeration(trx, id, { suspendedAt: row.suspendedAt ?? now, updatedAt: now });
          return;
        case "disable":
          if (!row.user) throw new KithError("admin_account.remote");
          if (!row.user.disabled) await updateUserFlags(trx, id, { disabledAt: now, updatedAt: now });
          return;
      }
    });
    await this.sessions.signInChanged();
    await this.#acted(actor.accountId, type === "none" ? "account.warn" : `account.${type}`, id, text);
  }

  /** Undoes one state: enable (disable), unsilence, unsuspend, unsensitive. Undoing a state the account is not in changes nothing. */
  async undo(actor: AdminActor, id: string, undo: AccountUndo): Promise<AdminAccountView> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const row = await this.#row(trx, id);
      await this.#guardOutranks(trx, actor, id);
      switch (undo) {
        case "enable":
          if (!row.user) throw new KithError("admin_account.remote");
          await updateUserFlags(trx, id, { disabledAt: null, updatedAt: now });
          return;
        case "unsilence":
          await setAccountModeration(trx, id, { silencedAt: null, updatedAt: now });
          return;
        case "unsuspend":
          await setAccountModeration(trx, id, { suspendedAt: null, updatedAt: now });
          return;
        case "unsensitive":
          await setAccountModeration(trx, id, { sensitizedAt: null, updatedAt: now });
          return;
      }
    });
    await this.sessions.signInChanged();
    await this.#acted(actor.accountId, `account.${undo}`, id);
    return this.get(id);
  }

  async #pending(db: Kysely<Database>, id: string): Promise<AdminAccountRow> {
    const row = await this.#row(db, id);
    if (!row.user || row.user.approved) throw new KithError("admin_account.not_pending");
    return row;
  }

  /** Approves a pending account (409 otherwise); `actorId` null: the server did. */
  async approve(id: string, actorId: string | null = null): Promise<AdminAccountView> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      await this.#pending(trx, id);
      await updateUserFlags(trx, id, { approved: true, updatedAt: now });
    });
    await this.sessions.signInChanged();
    await this.#acted(actorId, "account.approve", id);
    return this.get(id);
  }

  /** Rejects a pending account (409 otherwise): it is removed. Returns it as it was. */
  async reject(id: string, actorId: string | null = null): Promise<AdminAccountView> {
    const view = await this.deps.storage.transaction(async (trx) => {
      const removed = await this.#view(trx, await this.#pending(trx, id));
      await deleteAccountRow(trx, id);
      return removed;
    });
    await this.sessions.signInChanged();
    await this.#acted(actorId, "account.reject", id);
    return view;
  }

  /** Removes a suspended account, as Mastodon's DELETE does (409 for one not suspended). */
  async delete(actor: AdminActor, id: string): Promise<AdminAccountView> {
    // Checked once before the Delete goes out to other servers (it needs the rows and keys), and again with the removal.
    await this.#deletable(this.deps.storage.db, actor, id);
    await this.events.emit({ type: "account.deleting", accountId: id });
    const view = await this.deps.storage.transaction(async (trx) => {
      const removed = await this.#view(trx, await this.#deletable(trx, actor, id));
      await deleteAccountRow(trx, id);
      return removed;
    });
    await this.sessions.signInChanged();
    await this.#acted(actor.accountId, "account.delete", id);
    return view;
  }

  async #deletable(db: Kysely<Database>, actor: AdminActor, id: string): Promise<AdminAccountRow> {
    const row = await this.#row(db, id);
    if (actor.accountId === id) throw new KithError("admin_account.self");
    if (row.suspendedAt === null) throw new KithError("admin_account.not_suspended");
    await this.#guardOutranks(db, actor, id);
    await this.#guardLastOwner(db, id);
    return row;
  }

  /** Resolves a global role by id or name. */
  async #globalRole(db: Kysely<Database>, ref: string) {
    const byId = await findRoleWithPermissions(db, ref);
    const role = byId ?? (await findRoleByName(db, ref, "global").then((row) => (row ? findRoleWithPermissions(db, row.id) : null)));
    if (!role) throw new KithError("role.not_found");
    if (role.row.scope !== "global") throw new KithError("role.invalid", { message: "An account's role here is a global role" });
    return role;
  }

  /** Creates a local account; the password is generated when not given, and returned then. */
  async create(actor: AdminActor, input: AdminCreateInput): Promise<{ view: AdminAccountView; generatedPassword: string | null }> {
    const role = await this.#globalRole(this.deps.storage.db, input.role ?? "User");
    if (!grantsCover(actor.grants, role.permissions, "global")) throw new KithError("role.escalation");
    const { account, password } = await this.accounts.createLocalAccount({
      username: input.username,
      email: input.email,
      ...(input.password !== undefined && { password: input.password }),
      confirmed: input.confirmed ?? true,
      role: role.row.name,
    });
    await this.#acted(actor.accountId, "account.create", account.id, role.row.name);
    return { view: await this.get(account.id), generatedPassword: input.password === undefined ? password : null };
  }

  /** Replaces the account's global role. */
  async setRole(actor: AdminActor, id: string, roleRef: string): Promise<AdminAccountView> {
    const now = this.deps.clock.now().toISOString();
    const name = await this.deps.storage.transaction(async (trx) => {
      await this.#row(trx, id);
      const role = await this.#globalRole(trx, roleRef);
      if (!grantsCover(actor.grants, role.permissions, "global")) throw new KithError("role.escalation");
      await this.#guardOutranks(trx, actor, id);
      if (role.row.name !== OWNER || !toBool(role.row.built_in)) await this.#guardLastOwner(trx, id);
      await setGlobalRole(trx, id, role.row.id, now);
      return role.row.name;
    });
    await this.#acted(actor.accountId, "role.assign", id, name, "Roles");
    return this.get(id);
  }

  /**
   * Sets the account's password, or generates one (returned then). Every
   * session of the account ends: its tokens stop working at once.
   */
  async setPassword(actor: AdminActor, id: string, password?: string): Promise<{ password: string | null; sessionsRevoked: number }> {
    const next = password ?? newPassword(this.deps.random);
    if (next.length < MIN_PASSWORD_LENGTH) throw new KithError("account.password_too_short");
    const hash = await this.deps.passwords.hash(next);
    const now = this.deps.clock.now().toISOString();
    const sessionsRevoked = await this.deps.storage.transaction(async (trx) => {
      const row = await this.#row(trx, id);
      if (!row.user) throw new KithError("admin_account.remote");
      await this.#guardOutranks(trx, actor, id);
      await setPasswordHash(trx, id, hash, now);
      return revokeAllSessionsOfAccount(trx, id, now);
    });
    await this.sessions.signInChanged();
    await this.#acted(actor.accountId, "account.reset_password", id);
    return { password: password === undefined ? next : null, sessionsRevoked };
  }

  /**
   * A token acting as a bot (Service) account, recorded as a session of the
   * bot whose user agent names the administrator. Other accounts: 409.
   */
  async impersonate(actor: AdminActor, id: string): Promise<IssuedSession> {
    const db = this.deps.storage.db;
    const row = await this.#row(db, id);
    if (!row.user || row.actorType !== "Service") throw new KithError("admin_account.not_bot");
    if (!canSignIn(asLocalAccount(row))) throw new KithError("admin_account.cannot_sign_in");
    await this.#guardOutranks(db, actor, id);
    const session = await this.sessions.issue({
      accountId: id,
      scopes: IMPERSONATION_SCOPES,
      userAgent: `impersonated by ${actor.accountId ?? "the server"}`,
    });
    await this.#acted(actor.accountId, "account.impersonate", id);
    return session;
  }
}
