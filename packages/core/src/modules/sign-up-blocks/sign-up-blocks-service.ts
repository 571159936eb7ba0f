import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { AccessBlocks, SignUpAttempt, SignUpVerdict } from "../registration/index.js";
import { domainAndParents, normalizeDomain } from "../registration/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { signUpBlockErrors, signUpBlockIds } from "./block-ids.js";
import type { BlocksStore, CanonicalEmailBlockRow, EmailDomainBlockRow, IpBlockRow, IpBlockSeverity } from "./blocks-store.js";
import { canonicalEmailHash } from "./canonical-email.js";
import { type IpRange, formatRange, parseAddress, parseRange, rangeContains } from "./ip-ranges.js";

const DAY_MS = 86_400_000;
/** Days of history an email domain block shows, as Mastodon's. */
const HISTORY_DAYS = 7;

export interface CanonicalEmailBlockEntity {
  readonly id: string;
  readonly canonical_email_hash: string;
}

export interface EmailDomainBlockEntity {
  readonly id: string;
  readonly domain: string;
  readonly allow_with_approval: boolean;
  readonly created_at: string;
  readonly history: readonly { readonly day: string; readonly accounts: string; readonly uses: string }[];
}

export interface IpBlockEntity {
  readonly id: string;
  readonly ip: string;
  readonly severity: IpBlockSeverity;
  readonly comment: string;
  readonly created_at: string;
  readonly expires_at: string | null;
}

export interface IpBlockChange {
  readonly ip?: string | undefined;
  readonly severity?: IpBlockSeverity | undefined;
  readonly comment?: string | undefined;
  /** Seconds from now; null lifts the expiry. */
  readonly expiresIn?: number | null | undefined;
}

/** How long the `no_access` ranges are trusted before they are read again. */
const NO_ACCESS_TTL_MS = 30_000;

const SEVERITY_RANK: Record<IpBlockSeverity, number> = { sign_up_requires_approval: 1, sign_up_block: 2, no_access: 3 };

function invalid(field: string, message: string): KithError {
  return new KithError("request.validation_failed", { details: [{ field, message }] });
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Mastodon's blocks on sign-ups, managed at `/api/v1/admin/canonical_email_blocks`,
 * `email_domain_blocks` and `ip_blocks`, and enforced where registration and
 * sign-in ask (`AccessBlocks`): a blocked address, domain (or a subdomain of
 * it) or network cannot sign up; a network blocked with `no_access` is not
 * served at all (not even with a token issued before the block); `sign_up_requires_approval` and `allow_with_approval` let
 * the sign-up through to wait for a reviewer.
 */
export class SignUpBlockService implements AccessBlocks {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "ids">,
    private readonly store: BlocksStore,
  ) {}

  #now(): string {
    return this.deps.clock.now().toISOString();
  }

  // --- Enforcement ---------------------------------------------------------

  async #ipSeverity(ip: string | null): Promise<IpBlockSeverity | null> {
    if (ip === null) return null;
    const address = parseAddress(ip);
    if (address === null) return null;
    let strongest: IpBlockSeverity | null = null;
    for (const block of await this.store.activeIpBlocks(this.#now())) {
      const range = parseRange(block.ip);
      if (range === null || !rangeContains(range, address)) continue;
      if (strongest === null || SEVERITY_RANK[block.severity] > SEVERITY_RANK[strongest]) strongest = block.severity;
    }
    return strongest;
  }

  async signUp(attempt: SignUpAttempt): Promise<SignUpVerdict> {
    const severity = await this.#ipSeverity(attempt.ip);
    if (severity === "no_access" || severity === "sign_up_block") return { refused: "ip", requiresApproval: false };
    let requiresApproval = severity === "sign_up_requires_approval";
    if (attempt.email === null) return { refused: null, requiresApproval };
    if ((await this.store.canonicalByHash(canonicalEmailHash(attempt.email.address))).length > 0) {
      return { refused: "email", requiresApproval: false };
    }
    const blocks = await this.store.domainsIn(domainAndParents(attempt.email.domain));
    const day = dayOf(this.deps.clock.now().getTime());
    for (const block of blocks) await this.store.recordHit(block.id, day, attempt.ip ?? "");
    if (blocks.some((block) => !block.allow_with_approval)) return { refused: "email", requiresApproval: false };
    if (blocks.length > 0) requiresApproval = true;
    return { refused: null, requiresApproval };
  }

  /**
   * Whether requests from this address are served at all: every request, signed in or not, asks, so the `no_access`
   * ranges are kept in memory, read again after a change made here and at least every NO_ACCESS_TTL_MS (a change made
   * by another process, a block expiring).
   */
  async addressAllowed(ip: string | null): Promise<boolean> {
    if (ip === null) return true;
    const ranges = await this.#noAccessRanges();
    if (ranges.length === 0) return true;
    const address = parseAddress(ip);
    return address === null || !ranges.some((range) => rangeContains(range, address));
  }

  #noAccess: { readonly ranges: Promise<IpRange[]>; readonly until: number } | null = null;

  #noAccessRanges(): Promise<IpRange[]> {
    const now = this.deps.clock.now().getTime();
    if (this.#noAccess === null || this.#noAccess.until <= now) {
      const ranges = this.store
        .activeIpBlocks(new Date(now).toISOString())
        .then((blocks) =>
          blocks.flatMap((block) => (block.severity === "no_access" ? [parseRange(block.ip)] : [])).filter((range) => range !== null),
        );
      ranges.catch(() => {
        this.#noAccess = null;
      });
      this.#noAccess = { ranges, until: now + NO_ACCESS_TTL_MS };
    }
    return this.#noAccess.ranges;
  }

  // --- Canonical email blocks ---------------------------------------------

  listCanonical(page: PageRequest): Promise<CanonicalEmailBlockEntity[]> {
    return this.store.canonicalPage(page).then((rows) => rows.map(canonicalEntity));
  }

  async getCanonical(id: string): Promise<CanonicalEmailBlockEntity> {
    const row = await this.store.canonical(id);
    if (!row) throw new KithError(signUpBlockErrors["canonical_email_block.not_found"]);
    return canonicalEntity(row);
  }

  /** Blocks an address by its canonical form, given as the address or as the hash itself. */
  async createCanonical(input: { email?: string | undefined; hash?: string | undefined }): Promise<CanonicalEmailBlockEntity> {
    let hash: string;
    if (input.email !== undefined && input.email.trim() !== "") {
      if (!/^[^@\s]+@[^@\s]+$/.test(input.email.trim())) throw invalid("email", "is not an email address");
      hash = canonicalEmailHash(input.email);
    } else if (input.hash !== undefined && input.hash.trim() !== "") {
      hash = input.hash.trim().toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(hash)) throw invalid("canonical_email_hash", "is not a SHA-256 hash in hex");
    } else {
      throw invalid("email", "email or canonical_email_hash is required");
    }
    const row: CanonicalEmailBlockRow = {
      id: this.deps.ids.next(signUpBlockIds.canonicalEmailBlock),
      canonical_email_hash: hash,
      created_at: this.#now(),
    };
    if (!(await this.store.insertCanonical(row))) throw new KithError(signUpBlockErrors["canonical_email_block.exists"]);
    return canonicalEntity(row);
  }

  async removeCanonical(id: string): Promise<void> {
    if (!(await this.store.deleteCanonical(id))) throw new KithError(signUpBlockErrors["canonical_email_block.not_found"]);
  }

  /** The blocks an address matches: what `POST .../test` answers. */
  async testCanonical(email: string): Promise<CanonicalEmailBlockEntity[]> {
    return (await this.store.canonicalByHash(canonicalEmailHash(email))).map(canonicalEntity);
  }

  // --- Email domain blocks --------------------------------------------------

  async #domainEntities(rows: readonly EmailDomainBlockRow[]): Promise<EmailDomainBlockEntity[]> {
    const today = Date.parse(`${dayOf(this.deps.clock.now().getTime())}T00:00:00Z`);
    const days = Array.from({ length: HISTORY_DAYS }, (_, i) => today - i * DAY_MS);
    const hits = await this.store.hitsSince(
      rows.map((row) => row.id),
      dayOf(days[days.length - 1] ?? today),
    );
    const byKey = new Map(hits.map((hit) => [`${hit.blockId} ${hit.day}`, hit]));
    return rows.map((row) => ({
      id: row.id,
      domain: row.domain,
      allow_with_approval: Boolean(row.allow_with_approval),
      created_at: row.created_at,
      history: days.map((day) => {
        const hit = byKey.get(`${row.id} ${dayOf(day)}`);
        return { day: String(day / 1000), accounts: String(hit?.sources ?? 0), uses: String(hit?.uses ?? 0) };
      }),
    }));
  }

  async listDomains(page: PageRequest): Promise<EmailDomainBlockEntity[]> {
    return this.#domainEntities(await this.store.domainPage(page));
  }

  async getDomain(id: string): Promise<EmailDomainBlockEntity> {
    const row = await this.store.domainBlock(id);
    if (!row) throw new KithError(signUpBlockErrors["email_domain_block.not_found"]);
    return (await this.#domainEntities([row]))[0] as EmailDomainBlockEntity;
  }

  async createDomain(input: { domain: string; allowWithApproval: boolean }): Promise<EmailDomainBlockEntity> {
    const domain = normalizeDomain(input.domain);
    if (domain === null) throw invalid("domain", "is not a domain name");
    const row: EmailDomainBlockRow = {
      id: this.deps.ids.next(signUpBlockIds.emailDomainBlock),
      domain,
      allow_with_approval: input.allowWithApproval,
      created_at: this.#now(),
    };
    if (!(await this.store.insertDomain(row))) throw new KithError(signUpBlockErrors["email_domain_block.exists"]);
    return (await this.#domainEntities([row]))[0] as EmailDomainBlockEntity;
  }

  async removeDomain(id: string): Promise<void> {
    if (!(await this.store.deleteDomain(id))) throw new KithError(signUpBlockErrors["email_domain_block.not_found"]);
  }

  // --- IP blocks -------------------------------------------------------------

  async listIp(page: PageRequest): Promise<IpBlockEntity[]> {
    await this.store.deleteExpiredIp(this.#now());
    return (await this.store.ipPage(page)).map(ipEntity);
  }

  async getIp(id: string): Promise<IpBlockEntity> {
    await this.store.deleteExpiredIp(this.#now());
    const row = await this.store.ipBlock(id);
    if (!row) throw new KithError(signUpBlockErrors["ip_block.not_found"]);
    return ipEntity(row);
  }

  #range(raw: string): string {
    const range: IpRange | null = parseRange(raw);
    if (range === null) throw invalid("ip", "is not an IP address or CIDR range");
    return formatRange(range);
  }

  #expiry(expiresIn: number | null | undefined): string | null {
    if (expiresIn === undefined || expiresIn === null) return null;
    return new Date(this.deps.clock.now().getTime() + expiresIn * 1000).toISOString();
  }

  async createIp(input: {
    ip: string;
    severity: IpBlockSeverity;
    comment?: string | undefined;
    expiresIn?: number | null | undefined;
  }): Promise<IpBlockEntity> {
    const now = this.#now();
    await this.store.deleteExpiredIp(now);
    const row: IpBlockRow = {
      id: this.deps.ids.next(signUpBlockIds.ipBlock),
      ip: this.#range(input.ip),
      severity: input.severity,
      comment: input.comment ?? "",
      expires_at: this.#expiry(input.expiresIn),
      created_at: now,
      updated_at: now,
    };
    if (!(await this.store.insertIp(row))) throw new KithError(signUpBlockErrors["ip_block.exists"]);
    this.#noAccess = null;
    return ipEntity(row);
  }

  async updateIp(id: string, change: IpBlockChange): Promise<IpBlockEntity> {
    const existing = await this.store.ipBlock(id);
    if (!existing) throw new KithError(signUpBlockErrors["ip_block.not_found"]);
    const ip = change.ip === undefined ? undefined : this.#range(change.ip);
    if (ip !== undefined && ip !== existing.ip) {
      const other = await this.store.ipBlockByRange(ip);
      if (other) throw new KithError(signUpBlockErrors["ip_block.exists"]);
    }
    const values = {
      ...(ip !== undefined && { ip }),
      ...(change.severity !== undefined && { severity: change.severity }),
      ...(change.comment !== undefined && { comment: change.comment }),
      ...(change.expiresIn !== undefined && { expires_at: this.#expiry(change.expiresIn) }),
      updated_at: this.#now(),
    };
    await this.store.updateIp(id, values);
    this.#noAccess = null;
    return ipEntity({ ...existing, ...values });
  }

  async removeIp(id: string): Promise<void> {
    if (!(await this.store.deleteIp(id))) throw new KithError(signUpBlockErrors["ip_block.not_found"]);
    this.#noAccess = null;
  }
}

function canonicalEntity(row: CanonicalEmailBlockRow): CanonicalEmailBlockEntity {
  return { id: row.id, canonical_email_hash: row.canonical_email_hash };
}

function ipEntity(row: IpBlockRow): IpBlockEntity {
  return {
    id: row.id,
    ip: row.ip,
    severity: row.severity,
    comment: row.comment,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}
