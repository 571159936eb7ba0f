import { AccountService } from "./accounts/account-service.js";
import { AdminAccountService } from "./admin/admin-account-service.js";
import { SessionService } from "./auth/session-service.js";
import type { ServiceDeps } from "./deps.js";
import { DomainEvents } from "./events/domain-events.js";
import { InstanceService } from "./instance/instance-service.js";
import { JobsService } from "./jobs/jobs-service.js";
import { OAuthService } from "./oauth/oauth-service.js";
import { EmailAllowService } from "./registration/email-allow-service.js";
import { RegistrationService } from "./registration/registration-service.js";
import { RoleService } from "./roles/role-service.js";
import { SettingsService } from "./settings/settings-service.js";
import { SignupService } from "./signups/signup-service.js";

/** Every service of a Kith instance; routes, federation listeners and the CLI all call these. */
export interface KithServices {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly oauth: OAuthService;
  readonly settings: SettingsService;
  readonly instance: InstanceService;
  readonly jobs: JobsService;
  readonly registration: RegistrationService;
  readonly emailAllow: EmailAllowService;
  readonly signups: SignupService;
  readonly roles: RoleService;
  readonly adminAccounts: AdminAccountService;
  /** What happened in the social core, for the parts that react to it (timelines, notifications, streaming, federation). */
  readonly events: DomainEvents;
}

export function createServices(deps: ServiceDeps): KithServices {
  const settings = new SettingsService(deps);
  const sessions = new SessionService(deps);
  const accounts = new AccountService(deps);
  const emailAllow = new EmailAllowService(deps);
  const events = new DomainEvents();
  return {
    events,
    accounts,
    sessions,
    oauth: new OAuthService(deps, sessions),
    settings,
    instance: new InstanceService(deps, settings),
    jobs: new JobsService(deps),
    registration: new RegistrationService(deps, accounts, sessions, settings, emailAllow),
    emailAllow,
    signups: new SignupService(deps),
    roles: new RoleService(deps),
    adminAccounts: new AdminAccountService(deps, accounts, sessions),
  };
}

export type { ServiceDeps };
