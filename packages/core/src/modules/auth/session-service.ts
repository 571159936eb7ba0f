import { canSignIn } from "../../domain/accounts.js";
import { type Caller, GUEST } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import { grantsOfActor } from "../roles/roles-store.js";
import { type SessionRow, toBool } from "../../ports/storage-schema.js";
import {
  type SessionWithApp,
  type SessionWithSigner,
  deleteSession,
  findSessionById,
  findSessionByRefreshTokenHash,
  findSessionByTokenHash,
  findSessionWithSigner,
  findSessionsWithSignerByIds,
  insertSession,
  listSessionsOfAccount,
  purgeEndedSessions,
  revokeOtherSessions,
  revokeSessions,
  rotateSessionTokens,
  touchSession,
} from "./sessions-store.js";
import { AnnouncedCache } from "../../platform/cache/announced-cache.js";
import type { ServiceDeps } from "../service-deps.js";
import { constantTimeEqual, hashSecret, newToken } from "./secrets.js";

/** The pubsub channel on which any process says that sessions or the right to sign in changed. */
export const SIGN_IN_CHANGED_CHANNEL = "kith:sign-in-changed";

/** How long a kept session answers for its token when no change is announced (`AnnouncedCache`). */
export const SESSION_CACHE_TTL_MS = 10_000;

/** `last_used_at` is written at most this often per session, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

export interface IssueSessionInput {
  readonly accountId: string | null;
  readonly appId?: string | null;
  readonly scopes: readonly string[];
  readonly userAgent?: string | null;
  readonly ip?: string | null;
  /** Seconds until the token expires; never when absent. */
  readonly expiresInSeconds?: number;
  /** Also issue a refresh token (user tokens from the OAuth grants). */
  readonly withRefreshToken?: boolean;
}

export interface IssuedSession {
  readonly sessionId: string;
  readonly accessToken: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly refreshToken: string | null;
  readonly expiresAt: string | null;
}

/** One session as its owner sees it in the sessions list. */
export interface SessionView {
  readonly id: string;
  readonly appName: string | null;
  readonly appWebsite: string | null;
  readonly userAgent: string | null;
  readonly ip: string | null;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  /** The session making the request. */
  readonly current: boolean;
}

function toView(row: SessionWithApp, currentId: string): SessionView {
  return {
    id: row.id,
    appName: row.app_name,
    appWebsite: row.app_website,
    userAgent: row.user_agent,
    ip: row.ip,
    scopes: row.scopes.split(" ").filter(Boolean),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    current: row.id === currentId,
  };
}

/** Access tokens: every token is a session. */
export class SessionService {
  /**
   * Sessions with their signer's sign-in state, by token hash: every
   * signed-in request would otherwise begin with this read, a round trip
   * before its own statements on PostgreSQL.
   */
  readonly #cache: AnnouncedCache<SessionWithSigner>;

  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "pubsub">) {
    this.#cache = new AnnouncedCache(deps.pubsub, deps.clock, {
      channel: SIGN_IN_CHANGED_CHANNEL,
      ttlMs: SESSION_CACHE_TTL_MS,
      capacity: 10_000,
    });
  }

  /**
   * Announces, once the change has committed, that a session ended or that
   * an account's right to sign in changed, so that no process answers for a
   * kept session any more. Every write that revokes, rotates or deletes a
   * session, or sets an account's approval, disabling, suspension or
   * confirmation, or removes it, is followed by this. It forgets every kept
   * session: such changes are rare beside requests, and each is read once more.
   */
  signInChanged(): Promise<void> {
    return this.#cache.changed();
  }

  async issue(input: IssueSessionInput): Promise<IssuedSession> {
    const accessToken = newToken(this.deps.random);
    const refreshToken = input.withRefreshToken ? newToken(this.deps.random) : null;
    const now = this.deps.clock.now();
    const sessionId = this.deps.ids.next("session");
    const expiresAt = input.expiresInSeconds ? new Date(now.getTime() + input.expiresInSeconds * 1000).toISOString() : null;
    await insertSession(this.deps.storage.db, {
      id: sessionId,
      accountId: input.accountId,
      appId: input.appId ?? null,
      tokenHash: hashSecret(accessToken),
      refreshTokenHash: refreshToken === null ? null : hashSecret(refreshToken),
      scopes: input.scopes.join(" "),
      userAgent: input.userAgent ?? null,
      ip: input.ip ?? null,
      createdAt: now.toISOString(),
      expiresAt,
    });
    return { sessionId, accessToken, refreshToken, scopes: input.scopes, createdAt: now.toISOString(), expiresAt };
  }

  /** The live session a refresh token belongs to, or null. */
  async findByRefreshToken(refreshToken: string): Promise<SessionRow | null> {
    const hash = hashSecret(refreshToken);
    const session = await findSessionByRefreshTokenHash(this.deps.storage.db, hash);
    if (!session || session.refresh_token_hash === null || !constantTimeEqual(session.refresh_token_hash, hash)) return null;
    return session.revoked_at === null ? session : null;
  }

  /**
   * Refresh-token rotation: the session gets a new access token and a new
   * refresh token, and the old pair stops working at once. The session keeps
   * its id, so it stays one entry (one device) in the sessions list. Null
   * when the refresh token was already used or revoked.
   */
  async rotate(refreshToken: string, scopes: readonly string[]): Promise<IssuedSession | null> {
    const accessToken = newToken(this.deps.random);
    const nextRefreshToken = newToken(this.deps.random);
    const now = this.deps.clock.now().toISOString();
    const row = await rotateSessionTokens(this.deps.storage.db, {
      oldRefreshTokenHash: hashSecret(refreshToken),
      tokenHash: hashSecret(accessToken),
      refreshTokenHash: hashSecret(nextRefreshToken),
      scopes: scopes.join(" "),
      now,
    });
    if (!row) return null;
    await this.signInChanged();
    return { sessionId: row.id, accessToken, refreshToken: nextRefreshToken, scopes, createdAt: now, expiresAt: row.expires_at };
  }

  /** The session an access or refresh token belongs to, revoked or not; null when unknown. */
  async findByAnyToken(token: string): Promise<SessionRow | null> {
    const hash = hashSecret(token);
    const db = this.deps.storage.db;
    return (await findSessionByTokenHash(db, hash)) ?? (await findSessionByRefreshTokenHash(db, hash));
  }

  /** The application a session was issued to, if any. */
  async appIdOf(sessionId: string): Promise<string | null> {
    return (await findSessionById(this.deps.storage.db, sessionId))?.app_id ?? null;
  }

  /** Revokes a session by id; its tokens stop working on the next request. */
  async revokeById(sessionId: string): Promise<void> {
    await revokeSessions(this.deps.storage.db, [sessionId], this.deps.clock.now().toISOString());
    await this.signInChanged();
  }

  /** The account's sessions, newest first, revoked ones included until their records are deleted. */
  async listOwn(accountId: string, currentSessionId: string): Promise<SessionView[]> {
    const rows = await listSessionsOfAccount(this.deps.storage.db, accountId);
    return rows.map((row) => toView(row, currentSessionId));
  }

  /** One of the account's own sessions; another account's is not found, as if it did not exist. */
  async #own(accountId: string, sessionId: string): Promise<SessionRow> {
    const session = await findSessionById(this.deps.storage.db, sessionId);
    if (!session || session.account_id !== accountId) throw new KithError("session.not_found");
    return session;
  }

  /** Revokes one of the account's sessions; the one making the request is refused (409). */
  async revokeOwn(accountId: string, currentSessionId: string, sessionId: string): Promise<SessionView> {
    await this.#own(accountId, sessionId);
    if (sessionId === currentSessionId) throw new KithError("session.current");
    await this.revokeById(sessionId);
    const view = (await this.listOwn(accountId, currentSessionId)).find((candidate) => candidate.id === sessionId);
    if (!view) throw new KithError("session.not_found");
    return view;
  }

  /** Revokes every other session of the account; returns how many were live. */
  async revokeOthers(accountId: string, currentSessionId: string): Promise<number> {
    const revoked = await revokeOtherSessions(this.deps.storage.db, accountId, currentSessionId, this.deps.clock.now().toISOString());
    await this.signInChanged();
    return revoked;
  }

  /**
   * Deletes a session's record. A live one stops working too, since its
   * token no longer matches anything; the current one is refused (409).
   */
  async deleteOwn(accountId: string, currentSessionId: string, sessionId: string): Promise<void> {
    await this.#own(accountId, sessionId);
    if (sessionId === currentSessionId) throw new KithError("session.current");
    await deleteSession(this.deps.storage.db, sessionId);
    await this.signInChanged();
  }

  /** Deletes the records of the account's revoked and expired sessions; returns how many. */
  async purgeEnded(accountId: string, currentSessionId: string): Promise<number> {
    const purged = await purgeEndedSessions(this.deps.storage.db, accountId, currentSessionId, this.deps.clock.now().toISOString());
    await this.signInChanged();
    return purged;
  }

  /**
   * The caller a bearer token stands for. No token: a guest. A token that is
   * unknown, revoked, expired, or whose account may not sign in: 401.
   */
  async authenticate(token: string | null): Promise<Caller> {
    if (token === null) return GUEST;
    const hash = hashSecret(token);
    const db = this.deps.storage.db;
    const session = await this.#sessionWithSigner(hash);
    const now = this.deps.clock.now();
    if (!session || !constantTimeEqual(session.token_hash, hash) || !sessionHasNotEnded(session, now)) {
      throw new KithError("auth.unauthenticated");
    }
    if (!session.last_used_at || now.getTime() - new Date(session.last_used_at).getTime() > TOUCH_INTERVAL_MS) {
      await touchSession(db, session.id, now.toISOString());
      // A kept copy would otherwise ask for the write again on every request.
      session.last_used_at = now.toISOString();
    }
    const scopes = session.scopes.split(" ").filter(Boolean);
    if (session.account_id === null) {
      if (!session.app_id) throw new KithError("auth.unauthenticated");
      return { kind: "app", appId: session.app_id, sessionId: session.id, scopes };
    }
    if (session.signer_id === null || !signerMaySignIn(session)) throw new KithError("auth.unauthenticated");
    const accountId = session.signer_id;
    // Roles are read per request, when a route asks: they are not part of the kept session.
    let grants: Promise<readonly Grant[]> | undefined;
    return {
      kind: "user",
      accountId,
      sessionId: session.id,
      scopes,
      emailConfirmed: session.signer_email_confirmed_at !== null,
      grants: () => {
        grants ??= grantsOfActor(db, accountId);
        return grants;
      },
    };
  }

  /**
   * Of these sessions, those whose token would still authenticate: not
   * revoked or expired, and their account may still sign in. Open streams
   * are checked against it whenever sign-in changes are announced.
   */
  async liveSessionIds(ids: readonly string[]): Promise<Set<string>> {
    const now = this.deps.clock.now();
    const live = new Set<string>();
    // In slices: SQLite bounds the parameters of one statement.
    for (let start = 0; start < ids.length; start += 500) {
      for (const session of await findSessionsWithSignerByIds(this.deps.storage.db, ids.slice(start, start + 500))) {
        if (!sessionHasNotEnded(session, now)) continue;
        if (session.account_id === null ? session.app_id !== null : session.signer_id !== null && signerMaySignIn(session)) {
          live.add(session.id);
        }
      }
    }
    return live;
  }

  /** Calls `listener` whenever any process announces a sign-in change (`signInChanged`); the returned function stops it. */
  onSignInChanged(listener: () => void): Promise<() => Promise<void>> {
    return this.deps.pubsub.subscribe(SIGN_IN_CHANGED_CHANNEL, () => listener());
  }

  /** The session and its signer's sign-in state, kept between requests (an unknown token is read each time). */
  #sessionWithSigner(tokenHash: string): Promise<SessionWithSigner | null> {
    return this.#cache.through(tokenHash, () => findSessionWithSigner(this.deps.storage.db, tokenHash));
  }
}

/** Neither revoked nor expired. */
function sessionHasNotEnded(session: SessionRow, now: Date): boolean {
  return session.revoked_at === null && (session.expires_at === null || new Date(session.expires_at) > now);
}

/** The session's account may sign in (approved, not disabled, not suspended). */
function signerMaySignIn(session: SessionWithSigner): boolean {
  return canSignIn({
    approved: toBool(session.signer_approved),
    disabled: session.signer_disabled_at !== null,
    suspended: session.signer_suspended_at !== null,
  });
}
