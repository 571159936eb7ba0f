import { KithError } from "../../domain/errors.js";
import {
  type EmailDomainAllowRow,
  anyEmailDomainAllowed,
  deleteEmailDomainAllow,
  findEmailDomainAllow,
  insertEmailDomainAllow,
  listEmailDomainAllows,
} from "./email-domain-allows-store.js";
import type { ServiceDeps } from "../service-deps.js";
import { domainAndParents, normalizeDomain } from "./email-address.js";

/** A page of the allowlist, in domain order; `next` is the cursor of the following page, null on the last. */
export interface EmailAllowPage {
  readonly items: readonly EmailDomainAllowRow[];
  readonly next: string | null;
}

/**
 * The email-domain allowlist. When the setting `emailAllowlistEnabled` is
 * on, an address may register only if its domain is on the list or is a
 * subdomain of one that is: allowing `example.org` allows `mail.example.org`
 * too, as an organisation's mail often lives on subdomains it controls, and
 * whoever controls `example.org` controls its subdomains. `example.org` does
 * not allow `badexample.org`: domains are compared by whole labels.
 */
export class EmailAllowService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock">) {}

  /** A domain as stored: lower-case ASCII; a leading `@` (as people paste it) is dropped. Bad ones are 422. */
  #normalize(raw: string): string {
    const domain = normalizeDomain(raw.trim().replace(/^@/, ""));
    if (domain === null) throw new KithError("email_allow.invalid_domain");
    return domain;
  }

  async list(page: { readonly cursor?: string; readonly limit: number }): Promise<EmailAllowPage> {
    const items = await listEmailDomainAllows(this.deps.storage.db, {
      limit: page.limit,
      ...(page.cursor !== undefined && { after: page.cursor }),
    });
    const last = items[items.length - 1];
    return { items, next: items.length >= page.limit && last ? last.domain : null };
  }

  /** Adds a domain; 409 when it is already there. */
  async add(rawDomain: string): Promise<EmailDomainAllowRow> {
    const domain = this.#normalize(rawDomain);
    const now = this.deps.clock.now().toISOString();
    if (!(await insertEmailDomainAllow(this.deps.storage.db, domain, now))) throw new KithError("email_allow.exists");
    return { domain, createdAt: now };
  }

  /** Removes a domain; 404 when it is not there. */
  async remove(rawDomain: string): Promise<void> {
    const domain = normalizeDomain(rawDomain.trim().replace(/^@/, ""));
    if (domain === null || !(await deleteEmailDomainAllow(this.deps.storage.db, domain))) throw new KithError("email_allow.not_found");
  }

  async find(rawDomain: string): Promise<EmailDomainAllowRow | null> {
    const domain = normalizeDomain(rawDomain);
    return domain === null ? null : findEmailDomainAllow(this.deps.storage.db, domain);
  }

  /** Whether a (normalised) address domain is allowed: it, or a domain it is a subdomain of, is on the list. */
  async allows(domain: string): Promise<boolean> {
    return anyEmailDomainAllowed(this.deps.storage.db, domainAndParents(domain));
  }
}
