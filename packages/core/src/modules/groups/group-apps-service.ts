import { KithError } from "../../domain/errors.js";
import { toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { groupAppsErrors } from "./group-apps-errors.js";
import type { GroupAppCatalog, GroupAppEntry } from "./group-apps-catalog.js";
import { type GroupAppRow, appChoiceIn, appChoicesOf, groupAppsDb, writeAppChoice } from "./group-apps-store.js";
import { groupErrors } from "./group-errors.js";
import type { GroupViews } from "./group-views.js";

/** An application of the catalog, as the API answers it. */
export interface GroupAppEntity {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly module: string | null;
  readonly available: boolean;
  readonly default_installed: boolean;
}

/** An application as one group has it. */
export interface GroupInstalledAppEntity extends GroupAppEntity {
  readonly installed: boolean;
  /** When the group's managers last installed or uninstalled it; null while it has its default. */
  readonly changed_at: string | null;
}

function entityOf(app: GroupAppEntry): GroupAppEntity {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    module: app.module,
    available: app.available,
    default_installed: app.defaultInstalled,
  };
}

/** Whether a group has the application: its managers' last choice, else the application's default; never one the server lacks. */
function installedIn(app: GroupAppEntry, choice: GroupAppRow | undefined): boolean {
  if (!app.available) return false;
  return choice === undefined ? app.defaultInstalled : toBool(choice.installed);
}

/**
 * Group applications (the spec's "Group applications"): the catalog of what
 * groups can install, what each group has, installing and uninstalling
 * (GroupApps.Manage, the route's rule), and the check an application's
 * routes make before serving a group.
 */
export class GroupAppsService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly views: GroupViews,
    private readonly apps: GroupAppCatalog,
  ) {}

  /** Every application of the catalog, available or not. */
  catalog(): GroupAppEntity[] {
    return this.apps.all().map(entityOf);
  }

  /** The applications installed in the group, as the viewer may see it. */
  async installed(groupId: string, viewerId: string | null): Promise<GroupInstalledAppEntity[]> {
    await this.views.visible(groupId, viewerId);
    const choices = await appChoicesOf(groupAppsDb(this.deps.storage.db), groupId);
    return this.apps
      .all()
      .filter((app) => installedIn(app, choices.get(app.id)))
      .map((app) => ({ ...entityOf(app), installed: true, changed_at: choices.get(app.id)?.changed_at ?? null }));
  }

  install(groupId: string, actorId: string, appId: string): Promise<GroupInstalledAppEntity> {
    return this.#choose(groupId, actorId, appId, true);
  }

  uninstall(groupId: string, actorId: string, appId: string): Promise<GroupInstalledAppEntity> {
    return this.#choose(groupId, actorId, appId, false);
  }

  /**
   * Refuses a request to an application's route for a group that does not
   * have it: `group.not_found` for a group the viewer may not see (pass
   * `undefined` as the viewer to skip that check when the route made it),
   * `group.app_not_installed` (404) for one without the application.
   */
  async require(groupId: string, appId: string, viewerId?: string | null): Promise<void> {
    const app = this.apps.get(appId);
    if (!app) throw new Error(`Group application ${appId} is in no module's declarations`);
    if (viewerId !== undefined) await this.views.visible(groupId, viewerId);
    const { exists, choice } = await appChoiceIn(groupAppsDb(this.deps.storage.db), groupId, appId);
    if (!exists) throw new KithError(groupErrors["group.not_found"]);
    if (!installedIn(app, choice)) throw new KithError(groupAppsErrors["group.app_not_installed"]);
  }

  async #choose(groupId: string, actorId: string, appId: string, installed: boolean): Promise<GroupInstalledAppEntity> {
    await this.views.visible(groupId, actorId);
    const app = this.apps.get(appId);
    if (!app) throw new KithError(groupAppsErrors["group.app_not_found"]);
    if (!app.available) throw new KithError(groupAppsErrors["group.app_unavailable"]);
    const now = this.deps.clock.now().toISOString();
    await writeAppChoice(groupAppsDb(this.deps.storage.db), {
      group_id: groupId,
      app_id: appId,
      installed,
      changed_by: actorId,
      changed_at: now,
    });
    return { ...entityOf(app), installed, changed_at: now };
  }
}
