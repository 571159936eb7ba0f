import { AccountService } from "./accounts/account-service.js";
import { SessionService } from "./auth/session-service.js";
import type { ServiceDeps } from "./deps.js";
import { InstanceService } from "./instance/instance-service.js";
import { SettingsService } from "./settings/settings-service.js";

/** Every service of a Kith instance; routes, federation listeners and the CLI all call these. */
export interface KithServices {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly settings: SettingsService;
  readonly instance: InstanceService;
}

export function createServices(deps: ServiceDeps): KithServices {
  const settings = new SettingsService(deps);
  return {
    accounts: new AccountService(deps),
    sessions: new SessionService(deps),
    settings,
    instance: new InstanceService(deps, settings),
  };
}

export type { ServiceDeps };
