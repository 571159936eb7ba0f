import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import {
  type SignupRow,
  approvePendingSignup,
  deletePendingSignup,
  findSignup,
  listPendingSignups,
} from "./signups-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { SessionService } from "../auth/session-service.js";

export type { SignupRow };

/**
 * Signup requests of approval mode: accounts that signed up and wait for a
 * reviewer. Approving lets the account sign in; rejecting removes the
 * account and its user. Each sends the person a mail. Acting on an account
 * that is not pending (already approved, or made by an administrator) is a
 * conflict (409); an unknown account is 404.
 */
export class SignupService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "mail" | "config">,
    private readonly sessions: Pick<SessionService, "signInChanged">,
  ) {}

  async listPending(page: PageRequest): Promise<SignupRow[]> {
    return listPendingSignups(this.deps.storage.db, page);
  }

  /** A pending signup; 404 for an account that is not awaiting approval or does not exist. */
  async get(accountId: string): Promise<SignupRow> {
    const signup = await findSignup(this.deps.storage.db, accountId);
    if (!signup || signup.approved) throw new KithError("signup.not_found");
    return signup;
  }

  async #existing(accountId: string): Promise<SignupRow> {
    const signup = await findSignup(this.deps.storage.db, accountId);
    if (!signup) throw new KithError("signup.not_found");
    if (signup.approved) throw new KithError("signup.not_pending");
    return signup;
  }

  async approve(accountId: string): Promise<SignupRow> {
    const signup = await this.#existing(accountId);
    const now = this.deps.clock.now().toISOString();
    // Conditional on still being pending, so of two reviewers acting at once only one succeeds.
    if (!(await approvePendingSignup(this.deps.storage.db, accountId, now))) throw new KithError("signup.not_pending");
    await this.sessions.signInChanged();
    await this.deps.mail.send({
      to: signup.email,
      subject: "Your account was approved",
      text: [
        `Hello ${signup.username},`,
        "",
        `Your account on ${this.deps.config.origin} was approved: you can sign in now.`,
        ...(signup.emailConfirmed ? [] : ["Confirm your email address with the link we sent you first."]),
      ].join("\n"),
    });
    return { ...signup, approved: true };
  }

  async reject(accountId: string): Promise<SignupRow> {
    const signup = await this.#existing(accountId);
    const removed = await this.deps.storage.transaction((trx) => deletePendingSignup(trx, accountId));
    if (!removed) throw new KithError("signup.not_pending");
    await this.sessions.signInChanged();
    await this.deps.mail.send({
      to: signup.email,
      subject: "Your sign-up was not approved",
      text: [
        `Hello ${signup.username},`,
        "",
        `Your request to join ${this.deps.config.origin} was not approved. Your data has been removed.`,
      ].join("\n"),
    });
    return signup;
  }
}
