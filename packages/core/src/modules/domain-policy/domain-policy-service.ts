import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import {
  type DomainAllowRow,
  type DomainBlockFields,
  type DomainBlockRow,
  type DomainBlockSeverity,
  deleteDomainAllow,
  deleteDomainBlock,
  findDomainAllow,
  findDomainAllowByDomain,
  findDomainBlock,
  findDomainBlockByDomain,
  findDomainRules,
  insertDomainAllow,
  insertDomainBlock,
  listDomainAllows,
  listDomainBlocks,
  updateDomainBlock,
} from "./domain-policy-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { SettingsService } from "../settings/settings-service.js";
import { domainAndParents, hostWithoutPort, normalizeDomain } from "./domain-names.js";
import { severDomain } from "./domain-severance.js";

/** What federation does with one remote host. */
export interface DomainPolicy {
  /** The host without port, lower-case. */
  readonly domain: string;
  /**
   * Nothing is exchanged with the host: it is suspended (SUSPEND), or
   * allowlist mode is on and it is not on the allowlist.
   */
  readonly blocked: boolean;
  /** The severity of the block that applies (the most specific domain's), or null. */
  readonly severity: DomainBlockSeverity | null;
  /** LIMIT: its accounts are hidden from public timelines and reach only their followers. */
  readonly limited: boolean;
  /** Media from the host is not fetched or stored. */
  readonly rejectMedia: boolean;
  /** Reports from the host are ignored. */
  readonly rejectReports: boolean;
  /** The host is on the domain allowlist (or one of its parents is). */
  readonly allowlisted: boolean;
  /** Why it is blocked, for logs: "suspended", "not_allowlisted" or null. */
  readonly reason: "suspended" | "not_allowlisted" | null;
}

export interface DomainBlockInput {
  readonly domain: string;
  readonly severity?: DomainBlockSeverity;
  readonly rejectMedia?: boolean;
  readonly rejectReports?: boolean;
  readonly privateComment?: string | null;
  readonly publicComment?: string | null;
  readonly obfuscate?: boolean;
}

export type DomainBlockChanges = Partial<Omit<DomainBlockInput, "domain">>;

/** A block as its audit entry tells it: the severity, and the moderators' own comment. */
function blockText(block: DomainBlockRow): string {
  return block.privateComment ? `${block.severity}: ${block.privateComment}` : block.severity;
}

/** How long a host's policy is reused before it is read again; changes made here clear it at once. */
const CACHE_MS = 30_000;
const CACHE_LIMIT = 10_000;

/**
 * Administrators' domain policy (domain blocks and the domain allowlist) and
 * the question every inbox and delivery asks: what may we do with this host?
 * `policyFor` costs one query per host, cached briefly in the process.
 */
export class DomainPolicyService {
  readonly #cache = new Map<string, { policy: DomainPolicy; until: number }>();
  #allowlistMode: { value: boolean; until: number } | null = null;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "config">,
    private readonly settings: SettingsService,
    private readonly events: DomainEvents,
  ) {}

  /**
   * Tells the audit log what was done about a domain (named by itself: it outlives its block). `actorId` null: the
   * server did (its command line, a test).
   */
  async #acted(actorId: string | null, action: string, domain: string, text: string | null): Promise<void> {
    await this.events.emit({
      type: "moderation.action",
      actorId,
      action,
      resource: "Federation",
      targetType: "domain",
      targetId: domain,
      text,
    });
  }

  /** The policy for a remote host (a port is ignored). This server's own host is never blocked. */
  async policyFor(host: string): Promise<DomainPolicy> {
    const domain = hostWithoutPort(host);
    const now = this.deps.clock.now().getTime();
    const cached = this.#cache.get(domain);
    if (cached && cached.until > now) return cached.policy;
    const policy = await this.#compute(domain, now);
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(domain, { policy, until: now + CACHE_MS });
    return policy;
  }

  async #compute(domain: string, now: number): Promise<DomainPolicy> {
    const own = hostWithoutPort(new URL(this.deps.config.origin).host);
    const normalized = normalizeDomain(domain) ?? domain;
    const [rules, allowlistMode] = await Promise.all([
      normalized === own
        ? Promise.resolve({ blocks: [], allowed: true })
        : findDomainRules(this.deps.storage.db, domainAndParents(normalized)),
      this.#allowlistModeAt(now),
    ]);
    // The most specific block wins: a NOOP on a subdomain overrides a parent's SUSPEND.
    const block = [...rules.blocks].sort((a, b) => b.domain.length - a.domain.length)[0] ?? null;
    const suspended = block?.severity === "SUSPEND";
    const notAllowed = allowlistMode && !rules.allowed && normalized !== own;
    return {
      domain: normalized,
      blocked: suspended || notAllowed,
      severity: block?.severity ?? null,
      limited: block?.severity === "LIMIT",
      rejectMedia: suspended || (block?.rejectMedia ?? false),
      rejectReports: suspended || (block?.rejectReports ?? false),
      allowlisted: rules.allowed,
      reason: suspended ? "suspended" : notAllowed ? "not_allowlisted" : null,
    };
  }

  async #allowlistModeAt(now: number): Promise<boolean> {
    if (this.#allowlistMode && this.#allowlistMode.until > now) return this.#allowlistMode.value;
    const value = await this.settings.get("federationAllowlistEnabled");
    this.#allowlistMode = { value, until: now + CACHE_MS };
    return value;
  }

  /** Forgets cached policies; called after every change made through this service. */
  invalidate(): void {
    this.#cache.clear();
    this.#allowlistMode = null;
  }

  listBlocks(page: PageRequest): Promise<DomainBlockRow[]> {
    return listDomainBlocks(this.deps.storage.db, page);
  }

  async getBlock(id: string): Promise<DomainBlockRow> {
    const block = await findDomainBlock(this.deps.storage.db, id);
    if (!block) throw new KithError("domain_block.not_found");
    return block;
  }

  async createBlock(input: DomainBlockInput, actorId: string | null = null): Promise<DomainBlockRow> {
    const domain = normalizeDomain(input.domain);
    if (!domain) throw new KithError("domain_policy.invalid_domain", { details: [{ field: "domain", message: "not a domain name" }] });
    const now = this.deps.clock.now().toISOString();
    const block: DomainBlockRow = {
      id: this.deps.ids.next("domainBlock"),
      domain,
      severity: input.severity ?? "LIMIT",
      rejectMedia: input.rejectMedia ?? false,
      rejectReports: input.rejectReports ?? false,
      privateComment: input.privateComment ?? null,
      publicComment: input.publicComment ?? null,
      obfuscate: input.obfuscate ?? false,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await insertDomainBlock(this.deps.storage.db, block))) {
      const existing = await findDomainBlockByDomain(this.deps.storage.db, domain);
      throw new KithError("domain_block.exists", {
        details: [{ field: "domain", message: existing ? `already blocked (${existing.id})` : "already blocked" }],
      });
    }
    this.invalidate();
    if (block.severity === "SUSPEND") await severDomain(this.deps, domain);
    await this.#acted(actorId, "domain_block.create", domain, blockText(block));
    return block;
  }

  async updateBlock(id: string, changes: DomainBlockChanges, actorId: string | null = null): Promise<DomainBlockRow> {
    const current = await this.getBlock(id);
    const fields: DomainBlockFields = {
      severity: changes.severity ?? current.severity,
      rejectMedia: changes.rejectMedia ?? current.rejectMedia,
      rejectReports: changes.rejectReports ?? current.rejectReports,
      privateComment: changes.privateComment !== undefined ? changes.privateComment : current.privateComment,
      publicComment: changes.publicComment !== undefined ? changes.publicComment : current.publicComment,
      obfuscate: changes.obfuscate ?? current.obfuscate,
    };
    await updateDomainBlock(this.deps.storage.db, id, fields, this.deps.clock.now().toISOString());
    this.invalidate();
    if (fields.severity === "SUSPEND" && current.severity !== "SUSPEND") await severDomain(this.deps, current.domain);
    const updated = await this.getBlock(id);
    await this.#acted(actorId, "domain_block.update", updated.domain, blockText(updated));
    return updated;
  }

  async deleteBlock(id: string, actorId: string | null = null): Promise<DomainBlockRow> {
    const block = await this.getBlock(id);
    if (!(await deleteDomainBlock(this.deps.storage.db, id))) throw new KithError("domain_block.not_found");
    this.invalidate();
    await this.#acted(actorId, "domain_block.delete", block.domain, blockText(block));
    return block;
  }

  listAllows(page: PageRequest): Promise<DomainAllowRow[]> {
    return listDomainAllows(this.deps.storage.db, page);
  }

  async getAllow(id: string): Promise<DomainAllowRow> {
    const allow = await findDomainAllow(this.deps.storage.db, id);
    if (!allow) throw new KithError("domain_allow.not_found");
    return allow;
  }

  /** Allows a domain; an already allowed domain is answered with its existing entry, as Mastodon does. */
  async createAllow(input: string, actorId: string | null = null): Promise<DomainAllowRow> {
    const domain = normalizeDomain(input);
    if (!domain) throw new KithError("domain_policy.invalid_domain", { details: [{ field: "domain", message: "not a domain name" }] });
    const allow: DomainAllowRow = { id: this.deps.ids.next("domainAllow"), domain, createdAt: this.deps.clock.now().toISOString() };
    if (!(await insertDomainAllow(this.deps.storage.db, allow))) {
      const existing = await findDomainAllowByDomain(this.deps.storage.db, domain);
      if (existing) return existing;
    }
    this.invalidate();
    await this.#acted(actorId, "domain_allow.create", domain, null);
    return allow;
  }

  async deleteAllow(id: string, actorId: string | null = null): Promise<DomainAllowRow> {
    const allow = await this.getAllow(id);
    if (!(await deleteDomainAllow(this.deps.storage.db, id))) throw new KithError("domain_allow.not_found");
    this.invalidate();
    await this.#acted(actorId, "domain_allow.delete", allow.domain, null);
    return allow;
  }
}
