import { AccountService } from "./accounts/account-service.js";
import { SessionService } from "./auth/session-service.js";
import type { ServiceDeps } from "./deps.js";
import { InstanceService } from "./instance/instance-service.js";
import { JobsService } from "./jobs/jobs-service.js";
import { OAuthService } from "./oauth/oauth-service.js";
import { SettingsService } from "./settings/settings-service.js";

/** Every service of a Kith instance; routes, federation listeners and the CLI all call these. */
export interface KithServices {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly oauth: OAuthService;
  readonly settings: SettingsService;
  readonly instance: InstanceService;
  readonly jobs: JobsService;
}

export function createServices(deps: ServiceDeps): KithServices {
  const settings = new SettingsService(deps);
  const sessions = new SessionService(deps);
  return {
    accounts: new AccountService(deps),
    sessions,
    oauth: new OAuthService(deps, sessions),
    settings,
    instance: new InstanceService(deps, settings),
    jobs: new JobsService(deps),
  };
}

export type { ServiceDeps };
